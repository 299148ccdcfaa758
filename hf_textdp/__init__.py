"""hf_textdp: textdp for Hugging Face ``datasets`` and ``transformers``.

    from hf_textdp import privatize, Privatizer
    ds = ds.map(privatize, batched=True)                       # column "text", embedded defaults
    ds = ds.map(Privatizer(epsilon=5, mechanism="mahalanobis", targets="all",
                           text_column="review"), batched=True, num_proc=2)

* :data:`privatize` / :class:`Privatizer`: map functions (picklable, config-only fingerprints;
  a cached release re-served by ``datasets`` costs no extra privacy).
* :class:`PrivatizingTokenizer`: a tokenizer that privatizes its text first.
* :func:`privatize_input_ids` / :class:`InputIdPrivatizer`: word-piece substitution in a
  model's own vocabulary.
* :class:`HFNERDetector`: any token-classification model as the name detector
  (also ``Privatizer(detector="hf:<model folder>")``).
"""

from hf_textdp.privatizer import REPORT_COLUMNS, Privatizer, privatize
from hf_textdp.tokenizer import InputIdPrivatizer, PrivatizingTokenizer, privatize_input_ids
from textdp.detect.hf_ner import HFNERDetector

__all__ = [
    "REPORT_COLUMNS", "HFNERDetector", "InputIdPrivatizer", "Privatizer", "PrivatizingTokenizer",
    "privatize", "privatize_input_ids",
]
