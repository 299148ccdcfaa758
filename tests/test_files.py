"""textdp.files: atomic output files and the signals that remove their temporaries.

The command line's behaviour is tested through ``main()`` in tests/cli/test_cli.py; these tests
pin what every command that writes a file relies on.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import threading

import pytest

from textdp.files import atomic_output, output_is_streamed


def test_temporary_is_named_recognisably_and_gets_the_umask_mode(tmp_path):
    target = tmp_path / "cache.npy"
    old = os.umask(0o022)
    try:
        with atomic_output(target, binary=True) as f:
            names = [p.name for p in tmp_path.iterdir()]
            f.write(b"\x00")
    finally:
        os.umask(old)
    assert len(names) == 1 and names[0].startswith(".cache.npy.textdp-") \
        and names[0].endswith(".tmp")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["cache.npy"]


def test_binary_dash_is_stdouts_buffer(capsysbinary):
    with atomic_output("-", binary=True) as f:
        f.write(b"\x00bytes")
    assert capsysbinary.readouterr().out == b"\x00bytes"


def test_output_is_streamed(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    (tmp_path / "r").write_text("")
    assert output_is_streamed("-") and output_is_streamed(fifo)
    assert not output_is_streamed(tmp_path / "r") and not output_is_streamed(tmp_path / "new")


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler (a background shell job starts with SIGINT ignored)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_sigint_mid_write_removes_the_temporary(tmp_path, python_sigint):
    target = tmp_path / "out.txt"
    target.write_text("PRECIOUS")
    with pytest.raises(KeyboardInterrupt), atomic_output(target) as f:
        f.write("partial")
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10**6):  # the handler runs between bytecodes
            pass
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    assert target.read_text() == "PRECIOUS"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_sigterm_runs_the_previous_handler_after_removing_the_temporary(tmp_path):
    class Stop(Exception):
        pass

    seen = []

    def previous(signum, frame):
        seen.append(sorted(p.name for p in tmp_path.iterdir()))
        raise Stop

    old = signal.signal(signal.SIGTERM, previous)
    try:
        with pytest.raises(Stop), atomic_output(tmp_path / "out.txt") as f:
            f.write("partial")
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(10**6):
                pass
        assert signal.getsignal(signal.SIGTERM) is previous
    finally:
        signal.signal(signal.SIGTERM, old)
    assert seen == [[]] and list(tmp_path.iterdir()) == []


def test_handlers_untouched_outside_the_main_thread(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    during = []

    def work():
        with atomic_output(tmp_path / "t.json") as f:
            during.append(signal.getsignal(signal.SIGTERM))
            json.dump({"a": 1}, f)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert during == [before] and json.loads((tmp_path / "t.json").read_text()) == {"a": 1}
