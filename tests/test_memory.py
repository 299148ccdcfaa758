"""textdp.memory: freed heap pages go back to the OS between batches."""

from __future__ import annotations

import platform
import sys

import numpy as np
import pytest

from textdp.memory import release_free_memory


def _rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="malloc_trim is glibc's")
def test_freed_heap_pages_are_returned():
    # Many mid-sized blocks (below the mmap threshold: they come from the heap), all but the
    # last freed: the last one pins the heap's top, so only trimming can return the rest.
    blocks = [np.ones(12_000) for _ in range(4_000)]  # 96 kB each, ~380 MB
    del blocks[:-1]
    before = _rss_kib()
    assert release_free_memory() is True
    assert _rss_kib() < before - 50_000  # over 50 MB given back (129 MB here)
