"""Forward-pass precision of the project's encoders: the contextual encoder and the name tagger.

A precision setting is ``"auto"``, ``"float32"``, ``"bfloat16"`` or ``"float16"`` (GPU only).
:func:`compute_dtype` turns it into the autocast type of a forward pass on a device:
``"auto"`` is bfloat16 on a GPU that has it (float16 on one that has not) and on a CPU where a
bfloat16 matmul is measured faster than float32 (:func:`textdp.index.bf16_matmul_fast`: AVX-512
BF16 or AMX; emulated elsewhere, and slower), float32 elsewhere. Results leave a forward pass in
float32 either way; what bfloat16's rounding changes is stated by each user of this module.
"""

from __future__ import annotations

from typing import Any

import torch

from textdp.index import bf16_matmul_fast

PRECISIONS = ("auto", "float32", "bfloat16", "float16")


def check_precision(precision: Any, device: torch.device) -> str:
    """``precision`` if it is one of :data:`PRECISIONS` and runs on ``device``."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision == "float16" and device.type != "cuda":
        raise ValueError("precision='float16' runs on a GPU only; use 'bfloat16' or 'auto' on "
                         "CPU")
    return str(precision)


def compute_dtype(precision: str, device: torch.device) -> torch.dtype:
    """The autocast type of a forward pass in ``precision`` on ``device``."""
    precision = check_precision(precision, device)
    if precision == "auto":
        if device.type == "cuda":
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.bfloat16 if device.type == "cpu" and bf16_matmul_fast() else torch.float32
    return getattr(torch, precision)
