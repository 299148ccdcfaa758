"""Device settings, read in one place (textdp.devices): the core's resolution, the form check
of Spark's driver and the GPU a front end's worker takes."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from textdp import devices
from textdp.devices import chooses_gpu, gpu_for, parse_device, resolve_device

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fake_gpus(monkeypatch):
    """A machine with 2 visible CUDA devices (nothing is allocated on them)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


def test_resolve_device():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected
    assert resolve_device(None).type == expected


def test_auto_takes_the_gpu_where_there_is_one(fake_gpus):
    assert resolve_device("auto") == torch.device("cuda")
    assert resolve_device("cuda:1") == torch.device("cuda:1")


@pytest.mark.parametrize("device", ["gpu", "quantum", "cuda:x", [0]])
def test_bad_devices_are_refused_naming_the_forms(device):
    for check in (parse_device, resolve_device):
        with pytest.raises(ValueError, match=r"device must be 'cpu', 'cuda', 'cuda:N' or 'auto'"):
            check(device)


def test_cuda_without_a_gpu_is_a_value_error(no_gpu):
    with pytest.raises(ValueError, match="no CUDA device is available"):
        resolve_device("cuda")


def test_the_form_alone_is_checked_where_the_gpu_may_be_elsewhere(no_gpu):
    """Spark's driver validates a CUDA setting its executors may satisfy."""
    assert parse_device("cuda:3") == torch.device("cuda:3")
    assert parse_device("auto") is None and parse_device(None) is None
    from textdp.spark import _driver_device

    assert _driver_device("cuda:3") == "cpu"
    with pytest.raises(ValueError, match="device must be"):
        _driver_device("cuda:x")


@pytest.mark.parametrize("device, chooses", [
    (None, True), ("auto", True), ("cuda", True), ("cpu", False), ("cuda:1", False),
    (torch.device("cuda"), False), (0, False),
])
def test_which_settings_let_a_front_end_choose_the_gpu(device, chooses):
    assert chooses_gpu(device) is chooses


def test_a_worker_takes_its_gpu(fake_gpus):
    assert gpu_for("auto", 3, wrap=True) == "cuda:1"  # a datasets rank, modulo the GPUs
    assert gpu_for(None, 2, wrap=True) == "cuda:0"
    assert gpu_for("cuda", 5) == "cuda:5"  # a GPU address Spark assigned, as it is
    assert gpu_for("cpu", 1) is None and gpu_for("cuda:0", 1, wrap=True) is None


def test_without_cuda_every_worker_keeps_the_configured_device(no_gpu):
    assert gpu_for("auto", 3, wrap=True) is None and gpu_for("cuda", 0) is None


def test_spark_gives_a_task_the_gpu_spark_assigned(fake_gpus):
    from textdp.spark import _task_device

    ctx = SimpleNamespace(resources=lambda: {"gpu": SimpleNamespace(addresses=["1"])})
    assert _task_device(ctx, "auto") == "cuda:1"
    assert _task_device(ctx, "cpu") == "cpu"
    assert _task_device(None, "auto") == "auto"


def test_resolve_device_is_defined_once():
    """Every module reads device settings through textdp.devices: none defines its own."""
    defined = []
    for package in ("textdp", "hf_textdp", "spacy_textdp"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and node.name in devices.__all__:
                    defined.append(f"{path.relative_to(ROOT).as_posix()}:{node.name}")
    assert sorted(defined) == sorted(f"textdp/devices.py:{n}" for n in devices.__all__
                                     if callable(getattr(devices, n)))
