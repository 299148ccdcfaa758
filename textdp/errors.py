"""Errors the core raises about one input row, for each front end to name its own way.

The core numbers the texts of one call from 0; a front end knows what that row is to its user
(the CLI a line of the input file, ``datasets`` a dataset index, Spark a row of a partition)
and says so, from :attr:`RowError.row`, never by reading the message. Messages hold the
problem only, never the text (docs/architecture.md, "Privacy rules").
"""

from __future__ import annotations


class RowError(ValueError):
    """A problem with one row of the texts a call was given.

    Args:
        row: the row's 0-based position among the texts of the call.
        problem: what is wrong, without any of the row's text.
        field: the parameter or field concerned (``"text"``, ``"max_epsilon_per_text"``).
    """

    def __init__(self, row: int, problem: str, *, field: str | None = None) -> None:
        self.row = int(row)
        self.problem = problem
        self.field = field
        super().__init__(f"row {self.row}: {problem}")

    def __reduce__(self) -> tuple[object, ...]:  # picklable across worker processes
        return _rebuild, (type(self), self.row, self.problem, self.field)

    def named(self, where: str) -> RowError:
        """The same error with the row named as the front end knows it (``"notes.jsonl, line
        12"``, ``"row 40 (dataset index)"``); :attr:`row` stays the core's."""
        err = RowError(self.row, self.problem, field=self.field)
        err.args = (f"{where}: {self.problem}",)
        return err


def _rebuild(cls: type[RowError], row: int, problem: str, field: str | None) -> RowError:
    return cls(row, problem, field=field)
