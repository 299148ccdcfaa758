"""Output files that appear only when complete, and the signals that clean up after them.

:func:`atomic_output`: a regular file (or a new one) is written to a temporary file beside it
and renamed into place only when everything succeeded, so a failure never leaves a
half-written output and the previous file stays as it was. A symlink is followed: its target is
replaced and the link kept. A device, FIFO or socket, and ``-`` (standard output), are written
directly and streamed (renaming over them would replace the node). New files get the mode a
plain ``open()`` gives under the caller's umask (``0o666 & ~umask``); a replaced file keeps its
mode (and, where permitted, its owner). While a temporary file exists, SIGTERM, SIGINT, SIGHUP
and SIGQUIT remove it and then take their usual course (the previous handlers are restored
after the write).
SIGKILL cannot be caught: a killed run may leave ``.NAME.textdp-XXXXXXXX.tmp`` beside the
output (``.textdp-`` and ``.tmp`` mark it as this module's); such files hold privatized output,
never input, and can be deleted.

Every command that writes a file (outputs, reports, indexes, models, caches) writes it here;
the record formats those outputs are written in are :mod:`textdp.records`.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

# Marks this module's temporary output files: ".NAME.textdp-XXXXXXXX.tmp" beside the target.
TEMP_MARK = ".textdp-"
_fdopen = os.fdopen  # the file object behind atomic_output (tests swap in a failing one)


class OutputError(OSError):
    """The output could not be written: the message names it and the reason."""


def output_is_streamed(path: str | os.PathLike[str]) -> bool:
    """Whether :func:`atomic_output` writes ``path`` directly: ``-``, or an existing device,
    FIFO or socket (after following symlinks). Regular and new files are written atomically."""
    if os.fspath(path) == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _umask() -> int:
    """The process umask, read without changing it where the kernel shows it (Linux ≥ 4.7)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for status_line in f:
                if status_line.startswith("Umask:"):
                    return int(status_line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


class _Signalled(BaseException):
    """Raised by the temporary handlers; turned back into the signal once the file is gone."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


#: The signals that remove the temporary file before taking their course: Ctrl-C, ``kill``,
#: a closed terminal (SIGHUP) and Ctrl-\\ (SIGQUIT); the last two where the platform has them.
_CLEANUP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP",
                                                             "SIGQUIT") if hasattr(signal, name))


@contextmanager
def _removed_on_signals(tmp: str) -> Iterator[None]:
    """While the block runs, SIGTERM/SIGINT/SIGHUP/SIGQUIT remove ``tmp`` and then take their
    usual course.

    Signals can only be handled in the main thread; elsewhere nothing is installed. A signal
    the process ignores stays ignored.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise _Signalled(signum)

    previous: dict[int, Any] = {}
    for sig in _CLEANUP_SIGNALS:
        prev = signal.getsignal(sig)
        if prev is signal.SIG_IGN or prev is None:  # ignored, or set outside Python
            continue
        previous[sig] = prev
        signal.signal(sig, handler)
    try:
        yield
    except _Signalled as caught:
        Path(tmp).unlink(missing_ok=True)
        for sig, prev in previous.items():
            signal.signal(sig, prev)
        prev = previous.pop(caught.signum)
        previous.clear()
        if callable(prev):  # e.g. Python's default SIGINT handler: raises KeyboardInterrupt
            prev(caught.signum, None)
        else:  # SIG_DFL: terminate as the signal would have
            signal.raise_signal(caught.signum)
        # The previous handler returned: the write is abandoned all the same.
        if caught.signum == signal.SIGINT:
            raise KeyboardInterrupt from None
        raise SystemExit(128 + caught.signum) from None
    finally:
        for sig, prev in previous.items():
            signal.signal(sig, prev)


def _open_text(fd_or_path: Any, binary: bool) -> IO[Any]:
    if binary:
        return _fdopen(fd_or_path, "wb") if isinstance(fd_or_path, int) else \
            open(fd_or_path, "wb")
    if isinstance(fd_or_path, int):
        return _fdopen(fd_or_path, "w", encoding="utf-8", newline="")
    return open(fd_or_path, "w", encoding="utf-8", newline="")


@contextmanager
def atomic_output(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """A stream for ``path`` whose file appears only on success (``-`` is stdout).

    A regular or new file is written to a uniquely named temporary file in the target's folder
    (``.NAME.textdp-XXXXXXXX.tmp``) and renamed into place, so an interrupted or failed write
    never leaves a half-written file, the previous file stays intact, and concurrent writers
    (e.g. two processes filling one cache) never share a temporary file. Symlinks are followed
    (the link is kept, its target replaced); devices, FIFOs and sockets are written directly.
    New files get ``0o666 & ~umask``, replaced ones keep their mode. ``binary`` opens it in
    bytes mode (``np.save``, ``savefig``); text mode is UTF-8 without newline translation.
    Raises ``OSError`` (``ENOSPC``, ``EACCES``, …) when the file cannot be written.
    """
    if os.fspath(path) == "-":
        out = sys.stdout.buffer if binary else sys.stdout
        yield out
        out.flush()
        return
    target = Path(os.path.realpath(path))  # a symlink's target; the link itself stays
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    if st is not None and not stat.S_ISREG(st.st_mode):
        # A device, FIFO or socket: renaming over it would replace the node, so write into it.
        with _open_text(target, binary) as f:
            yield f
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}{TEMP_MARK}", suffix=".tmp",
                               dir=target.parent)
    try:
        with _removed_on_signals(tmp):
            try:
                # mkstemp creates 0600; give what open() would: the old file's mode, or umask's.
                os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask())
                if st is not None and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
                    with suppress(OSError):  # not permitted: the new file is the caller's
                        os.fchown(fd, st.st_uid, st.st_gid)
                f = _open_text(fd, binary)
            except BaseException:
                os.close(fd)
                raise
            with f:
                yield f
                f.flush()
                os.fsync(f.fileno())  # a full disk or quota shows here, not after the rename
            os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

