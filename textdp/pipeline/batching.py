"""Batching: texts in, pieces of bounded size through a vectorised step, results out in order.

Texts are cut into chunks (:mod:`textdp.pipeline.chunking`) and gathered into batches by count
and by
characters, so memory is bounded by one batch whatever the length of the input or of one
text. Each text's pieces are joined back, their reports merged, and its result yielded as
soon as all its pieces ran; its state (budget, pseudonyms drawn) lives exactly as long.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from textdp.budget import TextState
from textdp.errors import RowError
from textdp.pipeline.chunking import BATCH_CHARS, Chunk, chunk_text
from textdp.report import Report, join_cut_spans


@dataclass(frozen=True)
class PrivatizedText:
    """One privatized text and its report (``original`` only with ``keep_original=True``)."""

    text: str
    report: Report
    original: str | None = None

    def __repr__(self) -> str:  # never show text in reprs (rule 7): logs often print objects
        return (f"PrivatizedText(chars={len(self.text)}, "
                f"tokens_replaced={self.report.tokens_replaced})")


class Piece(NamedTuple):
    """A chunk of the text of row ``row``."""

    row: int
    text: str
    chunk: Chunk


#: The vectorised step: the output of each piece's core and its report, given the pieces of
#: a batch and the state of their texts.
RunPieces = Callable[[list[Piece], dict[int, TextState]], list[tuple[str, Report]]]


def stream(texts: Iterable[str | None], run: RunPieces, *, empty: Report, batch_size: int,
           keep_original: bool = False, scopes: Iterable[Any] | None = None
           ) -> Iterator[PrivatizedText | None]:
    """Run ``run`` over the pieces of ``texts`` in batches of at most ``batch_size`` pieces
    and about :data:`~textdp.pipeline.chunking.BATCH_CHARS` characters; yield one result per text in
    input order (``None`` for a ``None`` text, which costs nothing; ``empty`` as the report
    of a text without pieces). ``scopes``: per text, the scope of its keyed pseudonyms.
    A non-string row raises ``ValueError`` naming it when it is reached."""
    rows: dict[int, tuple[list[str], list[Report], str | None] | None] = {}
    batch: list[Piece] = []
    chars = 0
    states: dict[int, TextState] = {}  # per text: budget left, names drawn, scope
    scope_of = iter(scopes) if scopes is not None else None
    done = n = 0  # rows before `done` have been yielded; `n` rows were read
    for i, text in enumerate(texts):
        n = i + 1
        scope = next(scope_of, None) if scope_of is not None else None
        check_row(i, text)
        if is_missing(text):  # None, NaN, pd.NA: passes through as None, costs nothing
            rows[i] = None
            continue
        # outputs, reports, the original (if kept), the text and where its cores were cut
        rows[i] = ([], [], text if keep_original else None, text, [])
        if scope is not None:
            states[i] = TextState(scope=str(scope))
        for chunk in chunk_text(text):
            if chunk.core_start:
                rows[i][4].append(chunk.core_start)
            batch.append(Piece(i, text, chunk))
            chars += chunk.end - chunk.start
            if len(batch) >= batch_size or chars >= BATCH_CHARS:
                _run(batch, run, rows, states)
                batch, chars = [], 0
                yield from _finished(rows, states, done, i, empty)  # rows < i ran
                done = i
    _run(batch, run, rows, states)
    yield from _finished(rows, states, done, n, empty)


def is_missing(text: Any) -> bool:
    """Whether ``text`` stands for a missing text: ``None``, or the NaN / ``pd.NA`` a pandas
    Series holds for one (its values are passed through as ``None``)."""
    if text is None:
        return True
    if isinstance(text, float):
        return text != text  # NaN
    return type(text).__name__ == "NAType"  # pandas.NA, without importing pandas


def check_row(i: int, text: Any) -> None:
    """A text is a string, or a missing one (:func:`is_missing`: it passes through)."""
    if not isinstance(text, str) and not is_missing(text):
        raise RowError(i, f"expected a string, got {type(text).__name__}", field="text")


def _run(batch: list[Piece], run: RunPieces, rows: dict[int, Any],
         states: dict[int, TextState]) -> None:
    """Run one batch; append each piece's output and report to its row."""
    if batch:
        for piece, (out, report) in zip(batch, run(batch, states)):
            rows[piece.row][0].append(out)
            rows[piece.row][1].append(report)


def _finished(rows: dict[int, Any], states: dict[int, TextState], start: int, stop: int,
              empty: Report) -> Iterator[PrivatizedText | None]:
    """The results of rows ``start:stop`` (all their pieces ran); their state is dropped."""
    for i in range(start, stop):
        states.pop(i, None)
        row = rows.pop(i)
        if row is None:
            yield None
            continue
        outs, reports, original, text, cuts = row
        report = reports[0] if reports else empty
        for other in reports[1:]:
            report = report.merge(other)
        if report.spans and cuts:  # a span cut by a chunk boundary is one span again
            report = dataclasses.replace(report, spans=join_cut_spans(report.spans, text, cuts))
        yield PrivatizedText("".join(outs), report, original)
