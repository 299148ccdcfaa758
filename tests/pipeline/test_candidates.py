"""The name candidate sets of the candidate space (textdp.pipeline.candidates)."""

from __future__ import annotations

import numpy as np

from textdp.pipeline.candidates import NAME_SPREAD


def test_spreading_moves_each_draw_among_its_nearest_names(names_privatizer):
    spread = names_privatizer.space.decoder("first").spread
    assert spread.shape[1] == NAME_SPREAD
    assert (spread[:, 0] == np.arange(len(spread))).all()  # itself first
