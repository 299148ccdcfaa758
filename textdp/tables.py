"""EmbeddingTable: the public candidate vocabulary and its vectors.

docs/architecture.md rule 1: every substitute comes from a public table, never from the text being
privatized. A table holds two things:

* a *lookup* matrix with a word → row map, used to find the vector of an input token (it may
  hold punctuation, digits or several casings of a word), and
* the *candidates*: the rows that may be written out, one representative real word each
  (letters only, optionally with inner hyphens or apostrophes; no casing duplicates, because the
  surface form restores casing from the input token).

Loaders: a spaCy ``Vectors`` table, word2vec / GloVe text (with or without the header line),
fastText ``.vec``, and a transformer's input-embedding matrix. Text files are parsed with one C
level split per line and cached as ``.npy`` under ``~/.cache/textdp`` (``TEXTDP_CACHE``).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

_WORD = re.compile(r"^[^\W\d_]+(?:-[^\W\d_]+|'[^\W\d_]{2,})*$")


def is_real_word(word: str) -> bool:
    """True for words a person would write: letters, optionally joined by ``-`` or ``'``."""
    # [^\W\d_] still admits numeric characters that are not decimal digits ("½", "²", "₂").
    return bool(_WORD.match(word)) and not any(c.isnumeric() for c in word)


EXCLUDED_SUBSTITUTES_FILE = Path(__file__).resolve().parent / "data" / "excluded_substitutes.txt"


def default_excluded_substitutes() -> frozenset[str]:
    """The shipped list of words never written as substitutes by default
    (``textdp/data/excluded_substitutes.txt``: slurs and profanity from better-profanity,
    MIT, and loaded terms curated for textdp; sources in ``LICENSE_excluded_substitutes.md``
    beside it), lower-case. Extend it with your own: ``table.without(
    default_excluded_substitutes() | {"word", ...})``."""
    with open(EXCLUDED_SUBSTITUTES_FILE, encoding="utf-8") as f:
        return frozenset(w for line in f if (w := line.split("#", 1)[0].strip().lower()))


def clip_rows(vectors: np.ndarray, max_norm: float) -> np.ndarray:
    """Rows of ``vectors`` scaled down to Euclidean norm ≤ ``max_norm`` (float32)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    scale = np.minimum(1.0, max_norm / np.maximum(norms, 1e-12))
    return np.ascontiguousarray(vectors * scale, dtype=np.float32)


# The key that marks a saved ``.npz`` of embeddings trained on a user's own documents
# (textdp.embeddings). Such vectors are private: they may detect targets, never be candidates.
PRIVATE_EMBEDDINGS_KEY = "textdp_private_embeddings"


class PrivateEmbeddingsError(ValueError):
    """A file of embeddings trained on user documents was given where a public table belongs."""


def is_private_embeddings(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a ``.npz`` carrying :data:`PRIVATE_EMBEDDINGS_KEY`."""
    import zipfile

    try:
        with open(path, "rb") as f:
            if f.read(4) != b"PK\x03\x04":
                return False
        with zipfile.ZipFile(path) as z:
            return f"{PRIVATE_EMBEDDINGS_KEY}.npy" in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def cache_dir() -> Path:
    """Where processed tables (and the index backends' measured rates) are cached:
    ``TEXTDP_CACHE``, else ``$XDG_CACHE_HOME/textdp``, else ``~/.cache/textdp``."""
    if os.environ.get("TEXTDP_CACHE"):
        return Path(os.environ["TEXTDP_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "textdp"


def spacy_row_words(vocab: Any) -> dict[int, str]:
    """The word of each row of a spaCy ``Vocab``'s vectors: the row's first key (insertion
    order: the word the row was trained for, so rows come in the table's frequency order).
    The scan stops once every row has its word (en_core_web_md: after 20,000 of 514,157
    keys); the other keys (pruned words spaCy points at a kept row) are :class:`HashedKeys`."""
    strings = vocab.strings
    n_rows = vocab.vectors.shape[0]
    first_of_row: dict[int, str] = {}
    for key, row in vocab.vectors.key2row.items():
        if row not in first_of_row and key in strings:
            first_of_row[row] = strings[key]
            if len(first_of_row) == n_rows:
                break
    return first_of_row


def row_keys(vectors: Any) -> dict[int, int]:
    """The first key of each row of a spaCy ``Vectors`` (insertion order: the key of the word
    the row was trained for; the later keys are pruned words and other casings pointing at
    it). The scan stops once every row has its key."""
    n_rows = vectors.shape[0]
    first: dict[int, int] = {}
    for key, row in vectors.key2row.items():
        if row not in first:
            first[row] = key
            if len(first) == n_rows:
                break
    return first


def add_row_words(vocab: Any, words: Sequence[str]) -> bool:
    """Add ``words``, the word of each vector row in row order, to ``vocab``'s string store,
    if each one's hash is the first key of its row (the word the row was trained for: what
    :func:`spacy_row_words` reads from a whole store). False, adding nothing, when any word
    or the row count disagrees (another pipeline or version than the list was built from).

    Why: a pipeline loaded without its string store (``exclude=["strings"]``, 776k strings and
    130 MB for en_core_web_md) still decodes its row words, and only those."""
    strings = vocab.strings
    if len(words) != vocab.vectors.shape[0]:
        return False
    first_key = row_keys(vocab.vectors)
    # strings[word] is the word's key without adding it (a hash, or spaCy's symbol ID).
    if any(first_key.get(row) != strings[word] for row, word in enumerate(words)):
        return False
    for word in words:
        strings.add(word)
    return True


class HashedKeys:
    """More lookup keys of a table held as spaCy's 64-bit string hashes with their rows: a
    spaCy vocab's ``vectors.key2row``, read where it is. en_core_web_md maps 514,157 keys
    (pruned words, other casings) onto 20,000 rows; decoded into a ``dict`` of strings they
    took 0.45 s and ~43 MB at every start, sorted into arrays 0.07 s and 6 MB; read in place,
    nothing. A word is found by its hash (``spacy.strings.hash_string``, the hash the vocab
    keyed it by)."""

    def __init__(self, key2row: Mapping[int, int]) -> None:
        self.key2row = key2row

    def __len__(self) -> int:
        return len(self.key2row)

    def get(self, word: str, default: int | None = None) -> int | None:
        """The row of ``word``, or ``default``."""
        from spacy.strings import hash_string

        row = self.key2row.get(hash_string(word))
        return default if row is None else int(row)


class RowKeys:
    """A table's lookup keys: the words of its rows and any extra keys given as a ``dict``
    (one string each), then those of a :class:`HashedKeys` (spaCy's pruned keys). The row
    words win. Iteration lists the string keys only (a hash is no word); ``len`` adds the
    hashed ones (a row's own word, in both, counts twice: a size for cache keys, not a
    count of distinct words)."""

    #: Hashed look-ups remembered per table (words repeat: a text's every token is looked
    #: up in all-token mode); the memo is emptied when full.
    MEMO_SIZE = 50_000

    def __init__(self, keys: dict[str, int], hashed: HashedKeys | None = None) -> None:
        self.keys = keys
        self.hashed = hashed
        self._memo: dict[str, int | None] = {}

    def get(self, word: str, default: int | None = None) -> int | None:
        """The row of ``word`` (a string key first, then its hash), or ``default``."""
        row = self.keys.get(word)
        if row is None and self.hashed is not None:
            try:
                row = self._memo[word]
            except KeyError:
                if len(self._memo) >= self.MEMO_SIZE:
                    self._memo.clear()
                row = self._memo[word] = self.hashed.get(word)
        return default if row is None else row

    def __getitem__(self, word: str) -> int:
        row = self.get(word)
        if row is None:
            raise KeyError(word)
        return row

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.get(word) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys)

    def __len__(self) -> int:
        return len(self.keys) + (len(self.hashed) if self.hashed is not None else 0)


class EmbeddingTable:
    """Public words and their float32 vectors.

    Args:
        words: one string per row of ``vectors`` (the lookup keys, row order).
        vectors: ``(rows, dim)`` matrix; converted to contiguous float32.
        extra_keys: more lookup keys mapped to existing rows (e.g. spaCy's pruned keys).
        candidate_rows: rows that may be written out; by default every row whose word is a real
            word (see :func:`is_real_word`), keeping the first of casing duplicates.
        name: a short label for reports and cache keys.
    """

    def __init__(
        self,
        words: Sequence[str],
        vectors: np.ndarray,
        *,
        extra_keys: dict[str, int] | HashedKeys | None = None,
        candidate_rows: np.ndarray | None = None,
        name: str = "custom",
    ) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] == 0 or vectors.shape[1] == 0:
            raise ValueError(f"table vectors must be a non-empty 2-D matrix, got {vectors.shape}")
        if len(words) != vectors.shape[0]:
            raise ValueError(
                f"table has {len(words)} words but {vectors.shape[0]} vector rows; they must match"
            )
        if not np.isfinite(vectors).all():
            raise ValueError("table vectors contain NaN or inf")
        self.name = name
        self.lookup_vectors = vectors
        self.row_words = list(words)
        hashed = extra_keys if isinstance(extra_keys, HashedKeys) else None
        keys: dict[str, int] = {} if hashed is not None else dict(extra_keys or {})
        # Row words win over extra keys; later duplicates do not overwrite earlier rows.
        for row in range(len(self.row_words) - 1, -1, -1):
            keys[self.row_words[row]] = row
        self.key_to_row = RowKeys(keys, hashed)
        if candidate_rows is None:
            candidate_rows = self._default_candidates()
        self.candidate_rows = np.asarray(candidate_rows, dtype=np.int64)
        if self.candidate_rows.size == 0:
            raise ValueError("table has no candidate words (no row is a real word)")
        self.words = [self.row_words[r] for r in self.candidate_rows]

    @functools.cached_property
    def vectors(self) -> np.ndarray:
        """The candidates' vectors (their rows of ``lookup_vectors``), copied on first use:
        a table only derived from (the embedded table before clipping, the clipped one before
        the excluded words go) never holds this second copy (17 MB for the default)."""
        return np.ascontiguousarray(self.lookup_vectors[self.candidate_rows])

    def _default_candidates(self) -> np.ndarray:
        seen: set[str] = set()
        rows = []
        for row, word in enumerate(self.row_words):
            low = word.lower()
            if low in seen or not is_real_word(word):
                continue
            seen.add(low)
            rows.append(row)
        # Prefer the lower-case spelling when both exist: a casing variant that comes first
        # ("The" before "the") is swapped for its lower-case row so outputs read naturally.
        lower_rows = {self.row_words[r]: r for r in rows if self.row_words[r].islower()}
        for i, row in enumerate(rows):
            word = self.row_words[row]
            alt = self.key_to_row.get(word.lower())
            # Only the row *trained for* the lower-case spelling: a pruned key (spaCy maps
            # "john" to the row of "mr") must not swap a word for an unrelated one.
            if alt is not None and word.lower() not in lower_rows and alt != row and \
                    self.row_words[alt] == word.lower() and is_real_word(self.row_words[alt]):
                rows[i] = alt
        return np.asarray(sorted(set(rows)), dtype=np.int64)

    # ------------------------------------------------------------------ properties
    @property
    def dim(self) -> int:
        """Dimension of the vectors."""
        return int(self.lookup_vectors.shape[1])

    def __len__(self) -> int:
        """Number of candidate words."""
        return len(self.words)

    def __repr__(self) -> str:
        return f"EmbeddingTable(name={self.name!r}, candidates={len(self)}, dim={self.dim})"

    def fingerprint(self) -> str:
        """A stable digest of the candidates and vectors (for caches and dataset hashes)."""
        h = hashlib.sha256()
        h.update(self.vectors.tobytes())
        h.update("\n".join(self.words).encode("utf-8"))
        return h.hexdigest()[:16]

    # ------------------------------------------------------------------ lookup
    def lookup(self, tokens: Sequence[str]) -> np.ndarray:
        """Rows of ``lookup_vectors`` for ``tokens``; ``-1`` where neither the token nor its
        lower-case or title-case form is in the table."""
        get = self.key_to_row.get
        rows = [get(t, -1) for t in tokens]
        missing = [i for i, r in enumerate(rows) if r < 0]
        for i in missing:
            tok = tokens[i]
            rows[i] = get(tok.lower(), get(tok.title(), -1))
        return np.asarray(rows, dtype=np.int64)

    def median_norm(self) -> float:
        """Median Euclidean norm of the candidate vectors."""
        vectors = self.__dict__.get("vectors")  # not copied for this alone
        if vectors is None:
            vectors = self.lookup_vectors[self.candidate_rows]
        return float(np.median(np.linalg.norm(vectors, axis=1)))

    def clipped(self, max_norm: float) -> EmbeddingTable:
        """This table with every vector projected onto the ball of radius ``max_norm``.

        Projection onto a ball is 1-Lipschitz, so a mechanism that is ε·d metric DP on the
        clipped vectors is ε·d metric DP for the original distances too; and it stops a few
        very long vectors from absorbing the noise (they would otherwise come back unchanged
        far more often than others, and appear as "hub" outputs for unrelated inputs).
        Shares words and lookup keys with this table; memoised per radius.
        """
        cache = self.__dict__.setdefault("_clipped", {})
        if max_norm not in cache:
            other = copy.copy(self)
            for derived in ("_clipped", "vectors"):
                other.__dict__.pop(derived, None)
            other.lookup_vectors = clip_rows(self.lookup_vectors, max_norm)
            other.name = f"{self.name}|clip={max_norm:.4g}"
            cache[max_norm] = other
        return cache[max_norm]

    def with_candidates(self, rows: np.ndarray, *, suffix: str) -> EmbeddingTable:
        """This table with only ``rows`` (lookup rows) as candidates: the same lookup keys
        and vectors, a public subset to decode to (e.g. the name vocabulary). Choosing the
        subset from public data only is post-processing for every mechanism that decodes."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == 0:
            raise ValueError(f"table {self.name!r}: an empty candidate subset ({suffix})")
        other = copy.copy(self)
        for derived in ("_clipped", "_name_spaces", "vectors"):
            other.__dict__.pop(derived, None)
        other.candidate_rows = rows
        other.words = [self.row_words[r] for r in rows]
        other.name = f"{self.name}|{suffix}"
        return other

    def without(self, words: Iterable[str]) -> EmbeddingTable:
        """This table without the candidates in ``words`` (compared case-insensitively,
        after NFKC): they are never written as substitutes (a name replaced by "Islam" or
        "Violent" reads as a statement about the person). Input tokens keep their vectors
        (the lookup is unchanged); only the public candidates shrink.

        The guarantee holds as before: the list is fixed in advance, not taken from the text,
        so the reduced table is still public (docs/architecture.md rule 1). For mechanisms that add
        noise to a vector and decode it (mlaplace, mahalanobis, projection, gaussian,
        vickrey, …) this is post-processing: the noisy point is the same, only the public
        list it is decoded against is shorter. Mechanisms that sample among the candidates
        (tem, santext, …) state their guarantee for the candidates of the table they are
        given, which then is this one (for those that guarantee privacy between table words
        only, an excluded word is no longer one). :func:`default_excluded_substitutes`
        gives the shipped list. Raises ``ValueError`` when no candidate would be left.
        """
        import unicodedata

        def key(word: str) -> str:
            return unicodedata.normalize("NFKC", word).casefold()

        drop = {key(w) for w in words if isinstance(w, str)}
        keep = np.asarray([i for i, w in enumerate(self.words) if key(w) not in drop],
                          dtype=np.int64)
        if keep.size == 0:
            raise ValueError("excluding these words would leave the table without candidates")
        if keep.size == len(self.words):
            return self
        return self.with_candidates(self.candidate_rows[keep],
                                    suffix=f"without={len(self.words) - keep.size}")

    def candidate_of_row(self) -> np.ndarray:
        """Map from lookup row to candidate index (``-1`` where the row is not a candidate)."""
        out = np.full(self.lookup_vectors.shape[0], -1, dtype=np.int64)
        out[self.candidate_rows] = np.arange(len(self.candidate_rows))
        return out

    # ------------------------------------------------------------------ loaders
    @classmethod
    def from_spacy_vectors(cls, vocab: Any, *, name: str = "spacy") -> EmbeddingTable:
        """Build a table from a spaCy ``Vocab`` with vectors.

        spaCy stores pruned words as extra keys pointing at a kept row; the first key of each
        row (insertion order) is the word the row was trained for, so it represents the row.
        """
        vectors = vocab.vectors
        if vectors.shape[0] == 0 or vectors.shape[1] == 0:
            raise ValueError("this spaCy vocab has no vectors (use a pipeline with vectors)")
        data = np.asarray(vectors.data if not hasattr(vectors.data, "get") else vectors.data.get())
        first_of_row = spacy_row_words(vocab)
        row_words = [first_of_row.get(r, f"<row{r}>") for r in range(data.shape[0])]
        return cls(row_words, data, extra_keys=HashedKeys(vectors.key2row), name=name)

    @classmethod
    def from_word2vec(
        cls, path: str | os.PathLike[str], *, limit: int | None = None, name: str | None = None,
        cache: bool = True,
    ) -> EmbeddingTable:
        """Load word2vec / GloVe text or fastText ``.vec`` (header line optional).

        Refuses (:class:`PrivateEmbeddingsError`) embeddings that ``textdp train-embeddings``
        trained on user documents: they are private and never substitution candidates.
        """
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"table file {str(path)!r} does not exist")
        if is_private_embeddings(path):
            raise PrivateEmbeddingsError(
                f"table file {str(path)!r} holds embeddings trained on user documents "
                "(textdp train-embeddings): they are private, for detection only, and never "
                "substitution candidates; give a public table (word2vec/GloVe/fastText file)")
        stat = path.stat()
        key = hashlib.sha256(
            f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{limit}".encode()
        ).hexdigest()[:20]
        cached = cache_dir() / f"w2v-{key}"
        if cache and (cached / "vectors.npy").exists():
            words = json.loads((cached / "words.json").read_text(encoding="utf-8"))
            vectors = np.load(cached / "vectors.npy", mmap_mode=None)
        else:
            words, vectors = _parse_word2vec(path, limit)
            if cache:
                try:
                    cached.mkdir(parents=True, exist_ok=True)
                    tmp = cached / "vectors.tmp.npy"
                    np.save(tmp, vectors)
                    (cached / "words.json").write_text(json.dumps(words), encoding="utf-8")
                    os.replace(tmp, cached / "vectors.npy")
                except OSError:
                    pass  # a read-only home is no reason to fail; we just parse next time
        return cls(words, vectors, name=name or path.stem)

    @classmethod
    def from_transformer(
        cls, model: Any = None, *, word_pieces: bool = False, name: str | None = None
    ) -> EmbeddingTable:
        """The input-embedding matrix of a transformer (a path, hub name or loaded model).

        Whole words only by default; ``word_pieces=True`` also keeps ``##`` continuation
        pieces as lookup keys (never as candidates: outputs are always whole words).
        """
        from transformers import AutoModel, AutoTokenizer

        from textdp.model_packages import transformer_path

        path = model if model is not None else transformer_path()
        if isinstance(path, (str, os.PathLike)):
            tok = AutoTokenizer.from_pretrained(str(path))
            mdl = AutoModel.from_pretrained(str(path))
        else:
            mdl = path
            tok = AutoTokenizer.from_pretrained(mdl.name_or_path)
        weight = mdl.get_input_embeddings().weight.detach().float().cpu().numpy()
        vocab = tok.get_vocab()
        special = set(tok.all_special_tokens)
        id_word = sorted((i, w) for w, i in vocab.items() if i < weight.shape[0])
        keep = [
            (i, w) for i, w in id_word
            if w not in special and (word_pieces or not w.startswith("##"))
            and not (w.startswith("[") and w.endswith("]"))
        ]
        ids = np.asarray([i for i, _ in keep], dtype=np.int64)
        words = [w for _, w in keep]
        return cls(words, weight[ids], name=name or f"transformer:{Path(str(path)).name}")


def _parse_word2vec(path: Path, limit: int | None) -> tuple[list[str], np.ndarray]:
    """Parse word2vec text: one ``rsplit`` per line, one bulk float conversion."""
    with open(path, encoding="utf-8", errors="strict") as f:
        first = f.readline().rstrip("\n")
        head = first.split(" ")
        lines: list[str] = []
        if len(head) == 2 and head[0].isdigit() and head[1].isdigit():
            dim = int(head[1])
        else:
            dim = len(first.rstrip().split(" ")) - 1
            lines.append(first)
        for line in f:
            if limit is not None and len(lines) >= limit:
                break
            lines.append(line)
    if dim <= 0:
        raise ValueError(f"table file {str(path)!r} is not word2vec text: no vector on line 1")
    words: list[str] = []
    numbers: list[str] = []
    for lineno, line in enumerate(lines, 1):
        parts = line.rstrip().rsplit(" ", dim)
        if len(parts) != dim + 1:
            raise ValueError(
                f"table file {str(path)!r}: entry {lineno} has {len(parts) - 1} values, "
                f"expected {dim}"
            )
        words.append(parts[0])
        numbers.append(line[len(parts[0]):])
    try:
        vectors = np.array(" ".join(numbers).split(), dtype=np.float32).reshape(len(words), dim)
    except ValueError:  # find the entry only on this error path; the bulk parse stays fast
        for lineno, values in enumerate(numbers, 1):
            try:
                np.array(values.split(), dtype=np.float32)
            except ValueError:
                raise ValueError(f"table file {str(path)!r}: entry {lineno} has a value that "
                                 "is not a number") from None
        raise
    return words, vectors


def check_table_spec(table: Any) -> Any:
    """Validate a table spec eagerly; return it as given (loaded lazily) or as a table."""
    if table is None or isinstance(table, EmbeddingTable) or table == "default":
        return table
    if isinstance(table, (str, os.PathLike)):
        if not os.path.isfile(table):
            raise ValueError(f"table must be 'default', an EmbeddingTable or an existing "
                             f"word2vec/GloVe/fastText file; {os.fspath(table)!r} does not exist")
        if is_private_embeddings(table):
            raise PrivateEmbeddingsError(
                f"table {os.fspath(table)!r} holds embeddings trained on user documents: "
                "private, for detection only, never substitution candidates")
        return os.fspath(table)
    raise ValueError(f"table must be 'default', a path or an EmbeddingTable, got "
                     f"{type(table).__name__}")


def resolve_exclude(exclude: Any) -> frozenset[str]:
    """The words never written as substitutes, lower-cased (see ``Privatizer``'s
    ``exclude``)."""
    if exclude is None:
        return frozenset()
    if isinstance(exclude, str):
        if exclude != "default":
            raise ValueError(f"exclude must be 'default', None or a collection of words, got "
                             f"{exclude!r}")
        return default_excluded_substitutes()
    try:
        words = list(exclude)
    except TypeError:  # Privatizer(exclude=123): the message names the parameter (issue 37)
        raise ValueError(f"exclude must be 'default', None or a collection of words, got "
                         f"{type(exclude).__name__}") from None
    if not all(isinstance(w, str) for w in words):
        raise ValueError("exclude must hold words (strings)")
    return frozenset(w.casefold() for w in words)
