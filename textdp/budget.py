"""Stage: what one text has spent, and what it has drawn, across the pieces it is cut into.

A long text is privatized in chunks and batches (:mod:`textdp.pipeline.chunking`); its ε budget
(``max_epsilon_per_text``) and its pseudonyms (one draw per distinct name,
:mod:`textdp.pipeline.draw_plan`) must still span the whole text. :class:`TextState` carries
both from one batch to the next and is dropped when the text is done, so nothing about a text
outlives it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from textdp.errors import RowError

BUDGET_POLICIES = ("truncate", "refuse")


@dataclass
class TextState:
    """One text's running state.

    Attributes:
        left: draws its budget still allows (``None`` until first charged: the full cap).
        names: the substitute drawn for each ``(label, name)`` in this text so far.
        scope: the consistency scope of keyed draws (``consistency="dataset"``): ``""`` for
            the whole dataset, or the text's key column value.
        mentions: the words of the full names targeted in this text so far, matched as
            later mentions in its other chunks (:func:`textdp.pipeline.selection.carry_mentions`).
        date_offset: the day offset of this text's dates once drawn (:mod:`textdp.quasi`).
    """

    left: int | None = None
    names: dict[tuple[str, str], str] = field(default_factory=dict)
    scope: str = ""
    mentions: set[str] = field(default_factory=set)
    date_offset: int | None = None


def over_budget(draw_owners: list[int], states: dict[int, TextState], *,
                epsilon: float, max_epsilon_per_text: float | None, policy: str) -> np.ndarray:
    """Which draws exceed their text's ``max_epsilon_per_text`` (draws in text order).

    Every draw within the budget is charged to its text's state. With ``policy="refuse"``
    an over-budget text raises ``ValueError`` naming its row (the caller has drawn nothing
    for the batch yet)."""
    over = np.zeros(len(draw_owners), dtype=bool)
    if max_epsilon_per_text is None:
        return over
    cap = int(max_epsilon_per_text / epsilon + 1e-9)
    for i, owner in enumerate(draw_owners):
        state = states.setdefault(owner, TextState())
        left = cap if state.left is None else state.left
        if left > 0:
            state.left = left - 1
            continue
        over[i] = True
        if policy == "refuse":
            raise RowError(
                owner, f"its targets need more than max_epsilon_per_text="
                f"{max_epsilon_per_text} at epsilon={epsilon} per draw (at most {cap} "
                "draws); use budget_policy='truncate' or a larger budget",
                field="max_epsilon_per_text")
    return over
