"""Devices: where tensors and models run, every device setting read in one place.

A device setting is ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"auto"`` (CUDA when the machine has
it, else the CPU), ``None`` (the same as ``"auto"``) or a ``torch.device``. The core resolves
it with :func:`resolve_device` when a privatizer, an index, an encoder or a detector model is
built; the front ends that spread work over GPUs (``datasets`` workers by rank, Spark tasks by
the GPU Spark assigned) ask :func:`gpu_for` which GPU a worker takes, and Spark's driver,
which may have no GPU its executors have, checks a setting's form only (:func:`parse_device`).
"""

from __future__ import annotations

from typing import Any

import torch

#: The device settings that let a front end choose the GPU of a worker (an explicit ``"cpu"``
#: or ``"cuda:N"`` is kept as it is).
CHOOSABLE = (None, "auto", "cuda")

_FORMS = "'cpu', 'cuda', 'cuda:N' or 'auto'"


def parse_device(device: str | torch.device | None) -> torch.device | None:
    """The ``torch.device`` a setting names, or ``None`` for ``"auto"``/``None``, without
    checking that the machine has it. Raises ``ValueError`` for anything else."""
    if device is None or device == "auto":
        return None
    try:
        return torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(f"device must be {_FORMS}, got {device!r}") from err


def resolve_device(device: str | torch.device | None) -> torch.device:
    """``"auto"``/``None`` → CUDA when present, else CPU; anything else is checked, and a CUDA
    device the machine lacks is refused (``ValueError``) before any work starts."""
    dev = parse_device(device)
    if dev is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was asked for but no CUDA device is available")
    return dev


def chooses_gpu(device: Any) -> bool:
    """Whether the setting ``device`` lets a front end choose which GPU a worker takes
    (``None``, ``"auto"``, ``"cuda"``; see :data:`CHOOSABLE`)."""
    return isinstance(device, (str, type(None))) and device in CHOOSABLE


def gpu_for(device: Any, index: int, *, wrap: bool = False) -> str | None:
    """``"cuda:<index>"`` for a worker when the setting ``device`` lets it choose
    (:func:`chooses_gpu`) and CUDA is available, else ``None`` (keep the configured device).
    With ``wrap`` the index is taken modulo the visible GPUs (a ``datasets`` worker's rank);
    without, it is a GPU's own address (the one Spark assigned to a task)."""
    if not chooses_gpu(device) or not torch.cuda.is_available():
        return None
    index = int(index)
    if wrap:
        index %= torch.cuda.device_count()
    return f"cuda:{index}"


__all__ = ["CHOOSABLE", "chooses_gpu", "gpu_for", "parse_device", "resolve_device"]
