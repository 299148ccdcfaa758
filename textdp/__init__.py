"""textdp: differentially private substitution of person names (or any token) in text.

>>> from textdp import Privatizer
>>> Privatizer(epsilon=1.0)("Angela Merkel met John Smith in Berlin.").text  # doctest: +SKIP
"""

from textdp._version import __version__
from textdp.config import PrivatizerConfig
from textdp.errors import RowError
from textdp.index import NeighbourIndex
from textdp.mechanisms import Mechanism, available, create_mechanism
from textdp.privatizer import PrivatizedText, Privatizer
from textdp.report import Report
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable

__all__ = [
    "EmbeddingTable", "Mechanism", "NeighbourIndex", "PrivatizedText", "Privatizer",
    "PrivatizerConfig", "RandomSource", "Report", "RowError", "__version__", "available",
    "create_mechanism",
]
