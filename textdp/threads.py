"""How textdp's torch work uses the CPUs: how its threads wait, and how many there are.
Decided here, once per process, never against a choice the user made.

On a machine shared with other work (notebooks, CI runners, Spark executors with more tasks
than cores), torch's OpenMP threads lose most of their speed to two things:

* **Spinning.** At the end of each parallel region (every ``linear``, layer norm, softmax of
  the name tagger) GNU OpenMP's threads busy-wait for the slowest one before they sleep. When
  another process holds a core, the thread sharing it is late at every barrier, and the others
  burn their CPU waiting for it, CPU the late thread and the other process needed: the names
  tagger ran at 139 tokens/s on a loaded 2-core machine, 501 with ``OMP_WAIT_POLICY=PASSIVE``
  and 633 on one thread (``bench/vs_presidio.py``; tokens per CPU-second: 839, 2,510, 2,519).
  Passive threads sleep at once, so the work per token is that of one thread, and a quiet
  machine still gets every core. OpenMP reads the policy once, when torch's OpenMP library
  loads, so :func:`prefer_passive_waiting` runs when ``textdp`` is imported, before any torch
  import of its own: it sets ``OMP_WAIT_POLICY=PASSIVE`` in the environment unless the user
  set ``OMP_WAIT_POLICY`` (any value is kept) or torch was imported before textdp (then it is
  too late; import textdp first, or set the variable yourself). ``import spacy`` loads torch
  (through thinc), so a program that imports spaCy before textdp, as a spaCy pipeline with
  the ``dp_privatizer`` component does, should set ``OMP_WAIT_POLICY=PASSIVE`` itself.
* **Too many threads.** torch starts one thread per physical core it sees, which can be more
  than the CPUs this process may use (a CPU affinity mask, a container's CPU quota).
  :func:`configure_torch` lowers torch's intra-op threads to :func:`available_cpus` when the
  count is still torch's own default: not when ``OMP_NUM_THREADS`` or ``MKL_NUM_THREADS`` is
  set, nor after ``torch.set_num_threads`` (a count that differs from the one torch started
  with), nor when torch was imported before textdp (its start count is then unknown).
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

WAIT_POLICY = "OMP_WAIT_POLICY"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
# torch's intra-op thread count when textdp imported it, None when torch came first.
_torch_start_threads: int | None = None
_torch_imported_by_textdp = False


def prefer_passive_waiting(environ: MutableMapping[str, str] | None = None,
                           modules: Mapping[str, Any] | None = None) -> bool:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` unless the user set the policy or torch is already
    loaded; ``True`` when the policy now in force is passive (set here or by the user)."""
    global _torch_imported_by_textdp
    environ = os.environ if environ is None else environ
    modules = sys.modules if modules is None else modules
    torch_loaded = "torch" in modules
    if environ is os.environ:
        _torch_imported_by_textdp = not torch_loaded
    if WAIT_POLICY not in environ and not torch_loaded:
        environ[WAIT_POLICY] = "PASSIVE"
    return environ.get(WAIT_POLICY, "").strip().upper() == "PASSIVE"


def record_torch_start() -> None:
    """Remember torch's thread count right after textdp imported it (called once, from
    ``textdp/__init__``), so a later user change is recognised as one."""
    global _torch_start_threads
    if _torch_imported_by_textdp and "torch" in sys.modules:
        _torch_start_threads = sys.modules["torch"].get_num_threads()


def cgroup_cpu_limit(root: str | os.PathLike[str] = "/sys/fs/cgroup") -> int | None:
    """The CPU quota of this process's control group in whole CPUs (rounded up), or ``None``
    without one: cgroup v2 ``cpu.max`` (``"200000 100000"`` is 2 CPUs, ``"max …"`` none),
    else v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``."""
    root = Path(root)
    try:
        quota, _, period = (root / "cpu.max").read_text().strip().partition(" ")
        if quota == "max":
            return None
        return max(1, math.ceil(int(quota) / int(period or 100000)))
    except (OSError, ValueError):
        pass
    try:
        quota_us = int((root / "cpu" / "cpu.cfs_quota_us").read_text())
        period_us = int((root / "cpu" / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    if quota_us <= 0 or period_us <= 0:
        return None
    return max(1, math.ceil(quota_us / period_us))


def available_cpus() -> int:
    """CPUs this process may run on: its affinity mask, capped by its cgroup's CPU quota."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cpus = os.cpu_count() or 1
    limit = cgroup_cpu_limit()
    return max(1, min(cpus, limit) if limit else cpus)


def user_chose_threads(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the thread count is the user's: a thread variable is set, torch came before
    textdp, or ``torch.set_num_threads`` changed the count torch started with."""
    environ = os.environ if environ is None else environ
    if any(environ.get(v, "").strip() for v in THREAD_VARIABLES):
        return True
    if _torch_start_threads is None:
        return True
    import torch

    return torch.get_num_threads() != _torch_start_threads


@functools.lru_cache(maxsize=1)
def configure_torch() -> int:
    """Lower torch's intra-op threads to :func:`available_cpus` unless the user chose them
    (:func:`user_chose_threads`); once per process. Returns the thread count in force."""
    import torch

    if not user_chose_threads():
        cpus = available_cpus()
        if torch.get_num_threads() > cpus:
            torch.set_num_threads(cpus)
    return torch.get_num_threads()
