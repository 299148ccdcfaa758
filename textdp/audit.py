"""An audit trail of detection: which character ranges would be targeted, by what, never the text.

A row whose names were all missed used to report ``"tokens_replaced": 0`` and nothing else.
:class:`Auditor` runs the selection stage exactly as a privatizer does (the same
:class:`~textdp.pipeline.selection.TargetSelector`: detector, PII recognisers of the PII labels
among
``targets``, allow and deny lists, score threshold, multi-token PII merged into one target, a
name inside an address left to the address, honorifics dropped) on the privatizer's tokenizer
and chunks, and returns per text the targeted spans as plain values: the spans
``Privatizer(report_spans=True)`` reports for the same settings::

    {"start": 0, "end": 10, "label": "PERSON", "detector": "minilm", "score": 0.9995}

``start``/``end`` are character offsets into the text (end exclusive), ``detector`` the
member(s) that found it (``"minilm+handles"``, ``"rules"``, ``"pii"``, ``"deny_list"``),
``score`` the detector's score where it has one (the MiniLM tagger's person probability),
else ``null``. A span holds offsets and labels only: never a character of the text.

``textdp detect FILE`` (:mod:`textdp.cli.detect`) is the dry run: it writes one JSONL line per
record of a ``.txt``, ``.jsonl`` or ``.csv`` file (its input line, its 0-based record number,
optionally an id field the user names, and its spans) and privatizes nothing; a summary of
counts goes to stderr.

    textdp detect data.jsonl -o spans.jsonl --targets PERSON,EMAIL --id-field id
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textdp.budget import TextState
from textdp.config import front_end_defaults
from textdp.detect import build_detector
from textdp.devices import resolve_device
from textdp.errors import RowError
from textdp.pipeline.batching import check_row
from textdp.pipeline.chunking import chunk_text
from textdp.pipeline.selection import TargetSelector, piece_docs, shift_spans
from textdp.report import join_cut_spans
from textdp.targets import DEFAULT_TARGETS, resolve_targets

# The privatizer's defaults (one declaration, on PrivatizerConfig's fields).
_DEFAULTS = front_end_defaults("core")
# The keys of one span record, in order.
SPAN_FIELDS = ("start", "end", "label", "detector", "score")


class Auditor:
    """The selection stage of a privatizer, reporting spans instead of replacing them.

    Args:
        targets: as the privatizer's (``["PERSON"]`` by default; ``"all"`` marks every word
            token, label ``"*"``, detector ``"all"``); unknown labels are refused.
        detector: as the privatizer's (``None`` for the default).
        allow, deny, deny_label, threshold: see :class:`~textdp.detect.lists.ListDetector`.
        device: where model-based detectors run (``"auto"``: CUDA when available).
        nlp: the spaCy pipeline whose tokenizer splits the text (default: the embedded one).
        batch_size: chunks per detector call.
        phone_region: where phone numbers without a country code are read (ISO 3166
            alpha-2; the privatizer's ``phone_region``).

    The defaults of ``device`` and ``batch_size`` are the privatizer's (its config's fields).

    Every argument is validated here, before any text is read.
    """

    def __init__(self, *, targets: Any = DEFAULT_TARGETS, detector: Any = None,
                 allow: Any = None, deny: Any = None, deny_label: str = "PERSON",
                 threshold: float | None = None, device: Any = _DEFAULTS["device"],
                 nlp: Any = None, batch_size: int = _DEFAULTS["batch_size"],
                 phone_region: str = _DEFAULTS["phone_region"]) -> None:
        from textdp.validation import check_positive_int

        self.targets = resolve_targets(targets)
        self.batch_size = check_positive_int("batch_size", batch_size)
        #: The privatizer's selection stage, built from the same settings.
        self.selector = TargetSelector(self.targets, None if self.targets == "all" else
                                       build_detector(detector,
                                                      device=resolve_device(device),
                                                      targets=self.targets, allow=allow,
                                                      deny=deny, deny_label=deny_label,
                                                      threshold=threshold,
                                                      phone_region=phone_region),
                                       phone_region=phone_region)
        self._nlp = nlp

    @property
    def detector(self) -> Any:
        """The detector (``None`` with ``targets="all"``)."""
        return self.selector.detector

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from textdp.defaults import load_pipeline

            self._nlp = load_pipeline()
        return self._nlp

    def audit(self, texts: Sequence[str]) -> list[list[dict[str, Any]]]:
        """The targeted spans of each text (see the module doc), in text order."""
        from textdp.tokenization import transient_strings

        for i, t in enumerate(texts):
            if t is None:
                raise RowError(i, "expected a string, got NoneType", field="text")
            check_row(i, t)
        # As the privatizer: whitespace-only chunks are not read.
        pieces = [(i, c) for i, t in enumerate(texts) for c in chunk_text(t)
                  if t[c.start:c.end].strip()]
        out: list[list[tuple[Any, ...]]] = [[] for _ in texts]
        states: dict[int, TextState] = {}  # per text: the names its chunks carry over
        for k in range(0, len(pieces), self.batch_size):
            batch = pieces[k:k + self.batch_size]
            with transient_strings(self.nlp):
                docs, cores = piece_docs(self.nlp, self.selector, [texts[i] for i, _ in batch],
                                         [c for _, c in batch])
                selection = self.selector.select(docs, cores=cores, audit=True,
                                                 owners=[i for i, _ in batch], states=states)
                assert selection.spans is not None
                for (i, c), spans in zip(batch, selection.spans):
                    out[i].extend(shift_spans(spans, c.start))
        cuts = [[c.core_start for c in chunk_text(t) if c.core_start] for t in texts]
        return [[dict(zip(SPAN_FIELDS, s)) for s in join_cut_spans(spans, texts[i], cuts[i])]
                for i, spans in enumerate(out)]

    def __repr__(self) -> str:
        return f"Auditor(targets={self.targets!r}, detector={self.detector!r})"
