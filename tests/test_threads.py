"""textdp.threads: passive OpenMP waiting and a thread count within the CPUs this process may
use, never against the user's own choice."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

from textdp import threads


def test_passive_waiting_is_set_before_torch_loads():
    env: dict[str, str] = {}
    assert threads.prefer_passive_waiting(env, modules={})
    assert env == {"OMP_WAIT_POLICY": "PASSIVE"}


@pytest.mark.parametrize("value", ["ACTIVE", "active", ""])
def test_the_users_wait_policy_is_kept(value):
    env = {"OMP_WAIT_POLICY": value}
    assert not threads.prefer_passive_waiting(env, modules={})
    assert env == {"OMP_WAIT_POLICY": value}


def test_too_late_once_torch_is_loaded():
    env: dict[str, str] = {}
    assert not threads.prefer_passive_waiting(env, modules={"torch": torch})
    assert env == {}


def _child(code: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    return subprocess.run([sys.executable, "-c", code], env={**clean, **env},
                          capture_output=True, text=True, check=True, timeout=300
                          ).stdout.strip()


def test_importing_textdp_makes_torchs_threads_wait_passively():
    # The policy is in the environment when torch's OpenMP library loads; a user's is kept.
    code = "import os, textdp, torch; print(os.environ.get('OMP_WAIT_POLICY'))"
    assert _child(code) == "PASSIVE"
    assert _child(code, OMP_WAIT_POLICY="active") == "active"


def test_cgroup_quota_in_whole_cpus(tmp_path):
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert threads.cgroup_cpu_limit(tmp_path) == 2
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert threads.cgroup_cpu_limit(tmp_path) is None
    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("100000\n")
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert threads.cgroup_cpu_limit(v1) == 1
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    assert threads.cgroup_cpu_limit(v1) is None
    assert threads.cgroup_cpu_limit(tmp_path / "absent") is None


def test_available_cpus_is_the_affinity_mask_capped_by_the_quota(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(threads, "cgroup_cpu_limit", lambda: 3)
    assert threads.available_cpus() == 3
    monkeypatch.setattr(threads, "cgroup_cpu_limit", lambda: None)
    assert threads.available_cpus() == 4


def test_thread_count_lowered_to_the_cpus_only_when_nobody_chose_it(monkeypatch):
    before = torch.get_num_threads()
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    monkeypatch.setattr(threads, "available_cpus", lambda: 1)
    try:
        torch.set_num_threads(3)
        monkeypatch.setattr(threads, "_torch_start_threads", 3)  # torch's own count
        threads.configure_torch.cache_clear()
        assert threads.configure_torch() == 1
        # The user's count (set after torch started) stays, …
        torch.set_num_threads(2)
        threads.configure_torch.cache_clear()
        assert threads.configure_torch() == 2
        # … and so does any count while OMP_NUM_THREADS is set.
        torch.set_num_threads(3)
        monkeypatch.setenv("OMP_NUM_THREADS", "3")
        threads.configure_torch.cache_clear()
        assert threads.configure_torch() == 3
    finally:
        torch.set_num_threads(before)
        threads.configure_torch.cache_clear()
