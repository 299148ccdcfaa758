"""Errors of the core, and the rule that none of them carries the text (docs/architecture.md,
"Privacy rules").

:class:`RowError`: a problem with one input row. The core numbers the texts of one call from 0;
a front end knows what that row is to its user (the CLI a line of the input file, ``datasets`` a
dataset index, Spark a row of a partition) and says so, from :attr:`RowError.row`, never by
reading the message. Messages hold the problem only, never the text.

:func:`withheld`: an error that textdp did not raise on purpose can carry text: a
``KeyError`` shows its key (``KeyError: (0, 'tomlee')`` is a name), a ``UnicodeError`` holds
the string it failed on, a library's message may quote a token. :func:`withheld` tells them
apart: an exception passes unchanged when textdp raised it
with a ``raise`` statement of its own (and it is not a lookup error), or it is an
out-of-memory error or an operating-system error (their messages name sizes and files); any
other one is replaced by an :class:`InternalError` that names only its type and where it was
raised, raised where no exception is being handled, so the original is not attached to it as
its ``__context__`` either.
"""

from __future__ import annotations

import linecache
import os
from types import TracebackType


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


#: The packages whose own ``raise`` statements are trusted to carry no text.
_OURS = tuple(os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep + name +
              os.sep for name in ("textdp", "spacy_textdp", "hf_textdp"))


class InternalError(RuntimeError):
    """An unexpected error inside privatization; its message is withheld because it may hold
    the text being privatized (see the module docstring)."""


def withheld(err: BaseException) -> InternalError | None:
    """``None`` when ``err`` may propagate as it is, else the :class:`InternalError` to raise
    in its place (raise it outside the ``except`` block that caught ``err``)."""
    if isinstance(err, (InternalError, MemoryError, OSError)) or not isinstance(err, Exception):
        return None
    if type(err).__name__ == "OutOfMemoryError":  # torch.OutOfMemoryError: sizes only
        return None
    last = _innermost(err.__traceback__)
    where = "unknown place"
    if last is not None:
        filename, lineno = last.tb_frame.f_code.co_filename, last.tb_lineno
        where = f"{_short(filename)}:{lineno}"
        line = linecache.getline(filename, lineno).strip()
        if os.path.abspath(filename).startswith(_OURS) and line.startswith("raise ") and \
                not isinstance(err, LookupError):
            return None
    return InternalError(
        f"internal error ({type(err).__name__} at {where}); its message is withheld because "
        "it may contain the text being privatized. Nothing of this batch was returned; "
        "please report this line")


def _innermost(tb: TracebackType | None) -> TracebackType | None:
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def _short(filename: str) -> str:
    """``filename`` from its package directory on (``textdp/pipeline/draw_plan.py``)."""
    parts = os.path.abspath(filename).split(os.sep)
    for k in range(len(parts) - 1, -1, -1):
        if parts[k] in ("textdp", "spacy_textdp", "hf_textdp", "site-packages"):
            return "/".join(parts[k:])
    return os.path.basename(filename)
