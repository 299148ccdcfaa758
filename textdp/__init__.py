"""textdp: differentially private substitution of person names (or any token) in text.

>>> from textdp import Privatizer
>>> Privatizer(epsilon=1.0)("Angela Merkel met John Smith in Berlin.").text  # doctest: +SKIP
"""

# First, before anything imports torch: its OpenMP threads read their wait policy once, when
# the library loads (textdp.threads).
from textdp import threads as _threads

_threads.prefer_passive_waiting()

from textdp._version import __version__  # noqa: E402
from textdp.config import PrivatizerConfig  # noqa: E402
from textdp.errors import RowError  # noqa: E402
from textdp.index import NeighbourIndex  # noqa: E402
from textdp.mechanisms import Mechanism, available, create_mechanism  # noqa: E402
from textdp.privatizer import PrivatizedText, Privatizer  # noqa: E402
from textdp.report import Report  # noqa: E402
from textdp.rng import RandomSource  # noqa: E402
from textdp.tables import EmbeddingTable  # noqa: E402

_threads.record_torch_start()

__all__ = [
    "EmbeddingTable", "Mechanism", "NeighbourIndex", "PrivatizedText", "Privatizer",
    "PrivatizerConfig", "RandomSource", "Report", "RowError", "__version__", "available",
    "create_mechanism",
]
