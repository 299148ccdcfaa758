"""What a call released and what it cost in ε (DESIGN.md rule 3).

A report never claims more than basic sequential composition gives: ``epsilon_total`` is the
sum of the per-token ε over the tokens that went through the mechanism (and likewise for δ).
Under metric DP the per-token ε multiplies the distance between the two inputs compared.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

#: Per-row report columns the table front ends (Hugging Face, Spark) append, in this order:
#: tokens that went through the mechanism, and the row's composed ε.
REPORT_COLUMNS = ("dp_tokens_replaced", "dp_epsilon")


@dataclass(frozen=True)
class Report:
    """Privacy report for one text.

    Attributes:
        mechanism: registered mechanism name.
        epsilon: ε per privatized token.
        delta: δ per privatized token (0 for pure metric DP).
        tokens_replaced: tokens that went through the mechanism (each costs ε, even when the
            draw happened to return the same word).
        epsilon_total: composed bound for the text: tokens_replaced × ε.
        delta_total: tokens_replaced × δ.
        guarantee: the mechanism's per-token guarantee in words.
        representation: ``"static"`` or ``"contextual"``.
        tokens_redacted: targets over a ``max_epsilon_per_text`` budget, replaced by draws that
            do not depend on them (they cost no ε).
    """

    mechanism: str
    epsilon: float
    delta: float
    tokens_replaced: int
    epsilon_total: float
    delta_total: float
    guarantee: str
    representation: str = "static"
    tokens_redacted: int = 0

    @classmethod
    def for_tokens(cls, n: int, *, mechanism: str, epsilon: float, delta: float,
                   guarantee: str, representation: str = "static",
                   redacted: int = 0) -> Report:
        """The report for ``n`` privatized tokens (and ``redacted`` cost-free draws)."""
        return cls(mechanism=mechanism, epsilon=epsilon, delta=delta, tokens_replaced=n,
                   epsilon_total=n * epsilon, delta_total=min(1.0, n * delta),
                   guarantee=guarantee, representation=representation,
                   tokens_redacted=redacted)

    def merge(self, other: Report) -> Report:
        """Report for the concatenation of two texts privatized with the same settings."""
        return Report.for_tokens(
            self.tokens_replaced + other.tokens_replaced, mechanism=self.mechanism,
            epsilon=self.epsilon, delta=self.delta, guarantee=self.guarantee,
            representation=self.representation,
            redacted=self.tokens_redacted + other.tokens_redacted,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable values (for ``doc._.dp``, JSONL and dataset columns)."""
        return asdict(self)
