"""``Privatizer`` for ``datasets.Dataset.map`` and the ready-made ``privatize`` instance.

    from hf_textdp import privatize, Privatizer
    ds = ds.map(privatize, batched=True)                       # column "text", embedded defaults
    ds = ds.map(Privatizer(epsilon=5, mechanism="mahalanobis", targets="all",
                           text_column="review"), batched=True, num_proc=2)

The map function wraps (does not copy) :class:`textdp.privatizer.Privatizer`. What it pickles
is its configuration only, never a loaded model, a table index or a random generator: every
worker process reloads the models on its first batch and, unless ``seed`` is set, draws its
own generator from OS entropy (what a fixed seed keys, and when it is refused: the "Seeds"
section of :class:`Privatizer`).

Caching. ``datasets`` fingerprints a map function by hashing its pickle. The pickle of a
:class:`Privatizer` is a deterministic function of the configuration (ε, mechanism and its
parameters, targets, table, detector, seed, …), so equal configurations hash alike in every
process and any change to what would be released gives a new fingerprint. When the
fingerprint matches, ``datasets`` serves the cached result instead of drawing again: that
re-serves a release already made, which is post-processing and costs no extra privacy. A
fresh draw of the same data would cost ε again; to force one, pass
``load_from_cache_file=False`` (and then count the ε twice).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from textdp.config import PrivatizerConfig, front_end_defaults
from textdp.devices import gpu_for
from textdp.errors import RowError
from textdp.privatizer import Privatizer as CorePrivatizer
from textdp.report import REPORT_COLUMNS, REVIEW_FIELD, review_record
from textdp.tables import EmbeddingTable
from textdp.validation import check_bool, resolve_output_column

# Where a map computes by default: the datasets entry of the one table of front-end defaults
# (textdp.settings.FRONT_END_DEFAULTS).
_DEFAULT_DEVICE: str = front_end_defaults("datasets")["device"]


class Privatizer:
    """A ``datasets.map`` function that privatizes one text column.

    Callable on a batch (``batched=True``) or on one example (``batched=False``), with the
    extra arguments ``datasets`` passes for ``with_indices`` and ``with_rank``. Returns only
    the columns it writes; ``datasets`` keeps every other column and the row order.

    Its ``datasets`` fingerprint depends on the configuration only (see the module
    docstring): a cached result is re-served exactly when the release would be the same, and
    re-serving a release already made costs no extra privacy.

    Args:
        text_column: the column to privatize (default ``"text"``).
        output_column: where the privatized text goes; ``None`` overwrites ``text_column``.
            Another column needs ``keep_original=True``, since the original text then stays in
            the dataset (docs/architecture.md rule 7: kept only where the caller asks).
        report_columns: also write ``dp_tokens_replaced`` (target tokens replaced) and
            ``dp_epsilon`` (the row's composed bound: draws × ε) per row. With
            ``review=True`` (an option below) the column ``dp_review`` is written too: per
            row ``{"needs_review": bool, "partial_mention": n, "near_threshold": m}``
            (:func:`textdp.report.review_record`; ``None`` for a missing text).
        scope_column: with ``consistency="dataset"``, a column (e.g. a patient or customer
            id) whose rows with equal values share pseudonyms; rows of different values get
            independent ones. Without it the scope is the whole dataset.
        device: ``"auto"`` (default: CUDA when available), ``"cpu"``, ``"cuda"`` or
            ``"cuda:N"``. With ``with_rank=True`` and ``"auto"``/``"cuda"``, worker ``rank``
            runs on ``cuda:{rank % device_count}`` when CUDA is available, else on the CPU.
            CUDA workers need ``multiprocess.set_start_method("spawn")`` (``datasets`` forks).
        **options: every other keyword of :class:`textdp.privatizer.Privatizer`, validated
            now, before any text is read: ``epsilon``, ``mechanism``, ``targets``,
            ``representation``, ``table``, ``detector``, ``seed``, ``secure``,
            ``keep_original``, ``index``, ``batch_size``, ``nlp``, ``clip_norm``,
            ``max_epsilon_per_text``, ``budget_policy``, …

    Seeds. Without ``seed`` (the default, and the private choice) every process draws from
    OS entropy. A fixed ``seed`` makes the release reproducible and is NOT private against
    anyone who knows or guesses it: they can recompute the noise. What it keys:

    * ``with_indices=True``: each batch draws from its own stream keyed by the seed and the
      batch's first dataset index, so no two batches of a map share noise and the same data,
      seed, ``batch_size`` and ``num_proc`` give the same release (any ``num_proc`` whose
      shards split at batch boundaries gives the one-process release).
    * ``with_rank=True`` without indices: one stream per rank (seed, rank), advanced batch
      after batch; reproducible for the same ``num_proc`` and ``batch_size``.
    * neither, in the calling process (``num_proc=None``): one stream from the seed, advanced
      batch after batch.
    * neither, in a worker process (any ``num_proc``; ``datasets`` runs even ``num_proc=1``
      in a pool): refused with ``ValueError`` before any text is read. Every worker would
      restart the same stream, so two shards holding the same texts would come back
      identical and different rows would get the same noise.

    The streams depend on the seed and the row positions only: the same seed on another
    dataset reuses them row by row, correlating the two releases; use a new seed per release.
    """

    def __init__(
        self,
        *,
        text_column: str = "text",
        output_column: str | None = None,
        report_columns: bool = False,
        scope_column: str | None = None,
        device: str | None = _DEFAULT_DEVICE,
        **options: Any,
    ) -> None:
        if device is not None and not isinstance(device, (str, torch.device)):
            raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
        keep_original = check_bool("keep_original", options.get("keep_original", False))
        self.output_column = resolve_output_column(
            text_column, output_column, keep_original, column_name="text_column")
        self.text_column = text_column
        self.report_columns = check_bool("report_columns", report_columns)
        if scope_column is not None and (not isinstance(scope_column, str) or
                                         options.get("consistency") != "dataset"):
            raise ValueError("scope_column names the column whose equal values share "
                             "pseudonyms; it needs consistency='dataset' and a column name")
        self.scope_column = scope_column
        self.device_spec = None if device is None else str(device)
        self._nlp = options.pop("nlp", None)
        # The core validates every parameter now, before any text is read
        # (docs/architecture.md rule 5); it loads nothing until its first batch.
        core = CorePrivatizer(device=self.device_spec, nlp=self._nlp, **options)
        config = core.config
        if core.key is not None:  # one key for every process and rank: pseudonyms agree
            config = config.with_changes(key=core.key)
        #: What every process rebuilds its core from (and the fingerprint hashes).
        self.config = config
        self._cores: dict[str, CorePrivatizer] = {str(core.device): core}
        self._default_device = str(core.device)

    # ------------------------------------------------------------------ pickling / hashing
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the configuration only, deterministically.

        No model, index or generator is in the pickle (each process loads its own, and an
        unseeded generator never enters the ``datasets`` fingerprint). The last element is a
        stamp that only feeds the fingerprint: the textdp version and, for a table file or a
        contextual index folder, size and modification time, so an edited table or a rebuilt
        index is not served from an old cache.
        """
        return (_restore, (type(self), self.options(), _stamp(self.config)))

    def options(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this privatizer: every setting of its
        :class:`~textdp.config.PrivatizerConfig` and the column options."""
        return {**self.config.to_dict(), "nlp": self._nlp, "text_column": self.text_column,
                "output_column": self.output_column, "report_columns": self.report_columns,
                "scope_column": self.scope_column}

    # ------------------------------------------------------------------ the core per device
    @property
    def core(self) -> CorePrivatizer:
        """The :class:`textdp.privatizer.Privatizer` doing the work in this process."""
        return self._cores[self._default_device]

    def core_for(self, rank: int | None = None) -> CorePrivatizer:
        """The core for worker ``rank``: ``cuda:{rank % device_count}`` when CUDA is
        available and the device setting allows it, else the default device."""
        key = None if rank is None else gpu_for(self.device_spec, rank, wrap=True)
        if key is None:  # an explicit "cpu" or "cuda:N" is kept, as without CUDA
            return self.core
        if key not in self._cores:
            self._cores[key] = CorePrivatizer(self.config, nlp=self._nlp, device=key)
        return self._cores[key]

    # ------------------------------------------------------------------ map function
    def __call__(self, batch: Any, *extra: Any) -> dict[str, Any]:
        """Privatize ``batch[text_column]`` (a list for ``batched=True``, one string else).

        ``extra`` is what ``datasets`` appends: ``(indices,)`` for ``with_indices``,
        ``(rank,)`` for ``with_rank``, ``(indices, rank)`` for both. A lone integer is read as
        the rank (a batch's indices are a list); with ``batched=False`` and only
        ``with_indices=True`` pass ``with_rank=True`` too, or the index is taken as a rank.
        ``batch`` may also be the column itself (``input_columns=[text_column]``).

        A ``None`` (missing) text comes back ``None``, costs nothing, and its report columns
        are ``None`` too (as in Spark and the command line). Raises ``ValueError`` naming the
        row (the dataset index when ``with_indices`` is on, else the position in the batch) of
        a non-string text, before any text of the
        batch is processed. Empty strings come back empty. Raises ``ValueError``
        before reading the batch when a fixed ``seed`` runs in a worker process without
        ``with_indices`` or ``with_rank`` (class docstring, "Seeds").
        """
        indices, rank = _split_extra(extra)
        self._check_stream_key(indices, rank)
        if isinstance(batch, Mapping):
            if self.text_column not in batch:
                raise ValueError(f"column {self.text_column!r} is not in the batch; columns: "
                                 f"{sorted(batch)}")
            value = batch[self.text_column]
            scopes = batch.get(self.scope_column) if self.scope_column is not None else None
            if self.scope_column is not None and self.scope_column not in batch:
                raise ValueError(f"scope column {self.scope_column!r} is not in the batch; "
                                 f"columns: {sorted(batch)}")
        else:
            value = batch
            if self.scope_column is not None:
                raise ValueError("scope_column needs the whole batch: do not restrict "
                                 "input_columns to the text column")
            scopes = None
        single = not _is_column(value)
        texts = [value] if single else list(value)
        if single and isinstance(indices, int):
            indices = [indices]
        if scopes is not None and single:
            scopes = [scopes]
        for i, text in enumerate(texts):
            if text is not None and not isinstance(text, str):
                where = f"row {indices[i]} (dataset index)" if _has(indices, i) else \
                    ("the example" if single else f"row {i} of the batch")
                raise ValueError(f"{where} of column {self.text_column!r}: expected a string, "
                                 f"got {type(text).__name__}")
        core = self.core_for(rank)
        try:
            results = core.privatize(texts, scopes=scopes, stream=self._stream(indices, rank))
        except RowError as err:  # the row as datasets knows it
            i = err.row
            where = f"row {indices[i]} (dataset index)" if _has(indices, i) else \
                ("the example" if single else f"row {i} of the batch")
            raise err.named(f"{where} of column {self.text_column!r}") from None
        out: dict[str, Any] = {self.output_column or self.text_column:
                               [None if r is None else r.text for r in results]}
        if self.config.review:
            # Routing a record to a person: the reason codes and counts (never text); a
            # missing row has none (null), as in Spark and the command line.
            out[REVIEW_FIELD] = [None if r is None else review_record(r.report.review)
                                 for r in results]
        if self.report_columns:
            # A missing row's report is missing too (null), as in Spark and the command line:
            # nothing was released, and aggregations skip it.
            out[REPORT_COLUMNS[0]] = [None if r is None else r.report.tokens_replaced
                                      for r in results]
            out[REPORT_COLUMNS[1]] = [None if r is None else float(r.report.epsilon_total)
                                      for r in results]
        if single:
            out = {k: v[0] for k, v in out.items()}
        return out

    def _check_stream_key(self, indices: Sequence[int] | None, rank: int | None) -> None:
        """Refuse a fixed seed in a worker process that has neither indices nor a rank.

        Each ``datasets`` worker gets its own unpickled copy of this function, so without a
        key that differs per shard every copy would start the same seeded stream: shards of
        the same texts would be released identically and rows of different shards would
        share noise. OS entropy instead would silently drop the seed's reproducibility.
        """
        if self.config.seed is None or indices is not None or rank is not None:
            return
        if _in_worker_process():
            raise ValueError(
                "a fixed seed in a worker process (datasets.map with num_proc) needs "
                "with_indices=True (one stream per batch, keyed by its first index) or "
                "with_rank=True (one stream per worker); without either every worker would "
                "restart the same random stream and reuse the other shards' noise. Pass one "
                "of them, or drop the seed (OS entropy per process)")

    @staticmethod
    def _stream(indices: Sequence[int] | None, rank: int | None) -> tuple[Any, ...] | None:
        """The keyed stream of a batch (the core keys it, with a fixed seed only): by the
        batch's first index, else by the rank, so worker processes never repeat each other's
        draws and reruns are reproducible."""
        if indices is not None and len(indices) > 0:
            return ("index", int(indices[0]))
        if rank is not None:
            return ("worker", int(rank))
        return None

    # ------------------------------------------------------------------ reporting
    def describe(self) -> dict[str, Any]:
        """The configuration as plain values (mechanism, ε, targets, table, seed, columns)."""
        return {**self.core.describe(), "text_column": self.text_column,
                "output_column": self.output_column or self.text_column}

    def __repr__(self) -> str:
        return (f"hf_textdp.Privatizer(mechanism={self.core.mechanism!r}, "
                f"targets={self.core.targets!r}, text_column={self.text_column!r}, "
                f"device={self.device_spec!r})")


def _stamp(config: PrivatizerConfig) -> tuple[Any, ...]:
    """The textdp version and what identifies files the configuration names but does not
    contain: a table file (size, mtime), a contextual index folder (its ``meta.json``)."""
    import textdp

    stamp: list[Any] = [textdp.__version__]
    table = config.table
    if isinstance(table, str) and os.path.isfile(table):
        st = os.stat(table)
        stamp += [st.st_size, st.st_mtime_ns]
    elif isinstance(table, EmbeddingTable):
        stamp.append(table.fingerprint())
    index = config.contextual_index
    if isinstance(index, (str, os.PathLike)):
        meta = os.path.join(os.fspath(index), "meta.json")
        if os.path.isfile(meta):
            st = os.stat(meta)
            stamp += [st.st_size, st.st_mtime_ns]
    return tuple(stamp)


def _restore(cls: type[Privatizer], options: dict[str, Any], stamp: tuple[Any, ...]
             ) -> Privatizer:
    del stamp  # only there for the fingerprint
    return cls(**options)


def _in_worker_process() -> bool:
    """Whether this process was started by ``multiprocessing`` or by ``multiprocess`` (the
    pools of ``datasets.map(num_proc=...)``): a process that siblings may be running copies
    of the same map function in. Each library only knows its own children."""
    for name in ("multiprocessing", "multiprocess"):
        parent_process = getattr(sys.modules.get(name), "parent_process", None)
        if parent_process is not None and parent_process() is not None:
            return True
    return False


def _is(value: Any, name: str) -> bool:
    return isinstance(value, str) and value == name


def _is_column(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)


def _has(indices: Sequence[int] | None, i: int) -> bool:
    return indices is not None and i < len(indices)


def _split_extra(extra: tuple[Any, ...]) -> tuple[Any, int | None]:
    """``(indices, rank)`` from the extra positional arguments ``datasets`` passes."""
    if len(extra) == 0:
        return None, None
    if len(extra) == 2:
        return extra[0], extra[1]
    if len(extra) == 1:
        (arg,) = extra
        if _is_column(arg) or isinstance(arg, range):
            return list(arg), None
        if arg is None or isinstance(arg, (int, np.integer)):
            return None, None if arg is None else int(arg)
    raise ValueError("a map function gets at most (indices, rank) after the batch; got "
                     f"{len(extra)} extra arguments")


#: Ready-made map function with the embedded defaults (column ``"text"``, names only, the
#: default ε). Loads its models lazily, once in each process that calls it.
privatize = Privatizer()
