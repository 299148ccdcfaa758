"""Spark front end: privatize one text column of a Spark DataFrame.

    from textdp.spark import privatize_column
    out = privatize_column(df, "text", report_columns=True, epsilon=10.0)
    out.write.parquet("private/")

The output has the format of the Hugging Face front end (``hf_textdp.Privatizer``): the
privatized text in ``column`` (or in ``output_column``), and with ``report_columns=True`` the
columns ``dp_tokens_replaced`` (int64) and ``dp_epsilon`` (double) appended.

How it runs. The text column alone goes through an iterator pandas UDF (Arrow batches); every
other column stays in the JVM, untouched, and Spark keeps the row order within each partition.
The configuration is validated on the driver, by constructing a
:class:`textdp.privatizer.Privatizer` there (it checks every parameter and loads nothing), before
any Spark job can run. What travels to the executors is the configuration only (a few hundred
bytes, pickled once on the driver and shipped with the UDF; a larger one, e.g. an in-memory
:class:`~textdp.tables.EmbeddingTable` or a spaCy pipeline, as a broadcast variable). Each
executor Python worker builds its privatizer on its first batch, keeps it in a module-level
cache keyed by a digest of the configuration, and loads the spaCy pipeline, the table and the
neighbour index once: later batches, partitions and jobs with the same configuration in that
worker reuse them.

Privacy notes (docs/architecture.md):

* A Spark action recomputes what is not cached. Without a ``seed`` every recomputation (a
  second action, an evicted cache, a retried task, speculative execution) is a fresh draw of
  the same texts and costs ε again; the draws can also disagree. Release once: write the
  result out, or ``persist()`` it before using it twice.
* With a fixed ``seed`` each Arrow batch draws from its own stream keyed by the seed, the
  partition id and the batch's first row within the partition, so partitions never repeat each
  other's noise and a retried task reproduces its output. Reproducible for the same
  partitioning and ``spark.sql.execution.arrow.maxRecordsPerBatch``; NOT private against anyone
  who knows the seed.
* No text is logged, raised or printed: errors name the column, the partition and the row.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Tuple  # noqa: UP035 (pyspark reads Tuple hints)

from textdp.devices import chooses_gpu, gpu_for, parse_device
from textdp.report import REPORT_COLUMNS, REVIEW_FIELD, REVIEW_REASONS, review_record
from textdp.settings import FRONT_END_DEFAULTS
from textdp.validation import check_bool, resolve_output_column

if TYPE_CHECKING:  # pyspark is an optional dependency (pip install "textdp[spark]")
    from pyspark.sql import DataFrame

    from textdp.config import PrivatizerConfig

#: What to do with a null text: keep it null (default), or fail the job naming the row.
NULL_POLICIES = ("keep", "error")
#: Configurations pickled larger than this go to the executors as a broadcast variable.
BROADCAST_BYTES = 1 << 20
#: Privatizers kept per Python worker (least recently used evicted): one per configuration.
WORKER_CACHE_SIZE = 4
# Struct field that carries the text out of the UDF when report columns come with it.
_TEXT_FIELD = "text"
# Struct fields that carry the review signal out of the UDF (assembled into dp_review).
_REVIEW_FLAG = "review_needs_review"
_REVIEW_PREFIX = "review_"
# Where executors compute by default: Spark's entry in the one table of front-end defaults.
_DEFAULT_DEVICE = FRONT_END_DEFAULTS["spark"]["device"][0]


def privatize_column(
    df: "DataFrame",
    column: str = "text",
    output_column: str | None = None,
    report_columns: bool = False,
    *,
    nulls: str = "keep",
    scope_column: str | None = None,
    **config: Any,
) -> "DataFrame":
    """Privatize the string column ``column`` of a Spark DataFrame (lazily: no job runs here).

    Args:
        df: any Spark DataFrame (classic or Spark Connect) with a string column ``column``.
        column: the column to privatize (a top-level string column).
        output_column: where the privatized text goes; ``None`` (default) overwrites
            ``column`` in place. Another name needs ``keep_original=True``: the original text
            then stays in ``column`` (docs/architecture.md rule 7). A new name is appended at the
            end; an existing column of that name is replaced in place.
        report_columns: also append ``dp_tokens_replaced`` (int64: target tokens replaced)
            and ``dp_epsilon`` (double: the row's composed bound, draws × ε),
            as ``hf_textdp.Privatizer(report_columns=True)`` does.

        With ``review=True`` (a key of ``config``) the column ``dp_review`` is appended: a
        struct of ``needs_review`` (boolean) and the count of each reason
        (``partial_mention``, ``near_threshold``: int64; :func:`textdp.report.review_record`),
        null for a null text, as ``hf_textdp.Privatizer(review=True)`` writes it.
        nulls: ``"keep"`` (default): a null text stays null, and so do its report columns
            (nothing was released, nothing spent; Spark's ``sum``/``max`` skip nulls).
            ``"error"``: the job fails with a ``ValueError`` naming the column, the partition
            and the row within it (never any text).
        scope_column: with ``consistency="dataset"``, a column (e.g. a person or case id)
            whose rows with equal values share pseudonyms (cast to string); without it the
            scope is the whole DataFrame. Every executor derives the same pseudonym from the
            one key (given as ``key``, or drawn on the driver and shipped with the options).
        **config: the keys every front end shares, passed to
            :class:`textdp.privatizer.Privatizer`: ``epsilon``, ``mechanism``, ``targets``,
            ``representation``, ``table``, ``detector``, ``seed``, ``secure``, ``device``,
            ``keep_original``, ``index``, ``batch_size``, ``nlp``, ``clip_norm`` (and any other
            keyword of that constructor, e.g. ``max_epsilon_per_text``). ``device``
            defaults to ``"auto"``, resolved on each executor (CUDA where it has one); with
            ``"auto"``/``"cuda"`` and Spark GPU scheduling (``spark.task.resource.gpu.amount``)
            a task runs on the GPU Spark assigned to it. ``table``, ``detector`` and ``nlp``
            given as paths or package names must resolve on every executor.

    Returns:
        ``df`` with ``column`` replaced (or ``output_column`` added) and, with
        ``report_columns``, the two report columns appended; every other column and the row
        order within each partition are kept.

    Raises:
        ValueError: on the driver, before any Spark job, for an invalid parameter (naming it),
            a missing or non-string ``column``, ``output_column`` without ``keep_original``,
            report columns that already exist (an earlier release's accounting would be
            overwritten), or an unknown ``nulls`` policy.
        TypeError: for an unknown configuration key.

    Cluster settings:
        * ``spark.python.worker.reuse=true`` (Spark's default; keep it): the privatizer and its
          models live in the executor's Python workers, so a reused worker loads them once
          (seconds, a few hundred MB) and serves every later task. With reuse off, every task
          forks a fresh worker and reloads the models.
        * Each executor core runs its own Python worker with its own copy of the models: size
          ``spark.executor.pyspark.memory`` (or the executor memory overhead) for
          ``spark.executor.cores`` copies. In each worker torch (and faiss) compute with
          ``spark.task.cpus`` threads.
        * Prefer fewer, larger partitions (the first batch in every new worker pays the model
          load); ``spark.sql.execution.arrow.maxRecordsPerBatch`` (default 10,000) sets the
          rows per Arrow batch.
        * Install textdp (``pip install "textdp[spark]"``) on every executor, or ship an
          environment with ``--archives``.
    """
    try:
        from pyspark.sql import functions as F
        from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError('textdp.spark needs pyspark: pip install "textdp[spark]"') from err

    schema = df.schema
    names = [field.name for field in schema.fields]
    output_column = resolve_output_column(  # "false" is truthy: a real bool (issue 37)
        column, output_column, check_bool("keep_original", config.get("keep_original", False)))
    if names.count(column) != 1:
        found = "is not" if column not in names else "appears more than once"
        raise ValueError(f"column {column!r} {found} in the DataFrame; columns: {names}")
    dtype = schema[column].dataType
    if not isinstance(dtype, StringType):
        raise ValueError(f"column {column!r} must be a string column, got {dtype.simpleString()}")
    if nulls not in NULL_POLICIES:
        raise ValueError(f"nulls must be one of {list(NULL_POLICIES)}, got {nulls!r}")
    report_columns = check_bool("report_columns", report_columns)
    review = check_bool("review", config.get("review", False))
    added = (REPORT_COLUMNS if report_columns else ()) + ((REVIEW_FIELD,) if review else ())
    if added:
        taken = [c for c in added if c in names or c == output_column]
        if taken:
            raise ValueError(
                f"the DataFrame already has {taken}: an earlier release's accounting would be "
                f"overwritten; rename or drop them first")

    if scope_column is not None and (config.get("consistency") != "dataset" or
                                     names.count(scope_column) != 1):
        raise ValueError(f"scope_column {scope_column!r} must be one column of the DataFrame, "
                         "with consistency='dataset'")
    settings = _validated_config(config)
    payload = _dumps(settings)
    key = hashlib.sha256(payload).hexdigest()
    source: Any = payload
    if len(payload) > BROADCAST_BYTES:
        sc = _spark_context(df)
        if sc is not None:  # classic Spark; Spark Connect ships it with the UDF
            source = sc.broadcast(payload)

    device = _DEFAULT_DEVICE if settings.device is None else str(settings.device)
    from pyspark.sql.types import BooleanType

    review_fields = [StructField(_REVIEW_FLAG, BooleanType(), True)] + [
        StructField(f"{_REVIEW_PREFIX}{r}", LongType(), True) for r in REVIEW_REASONS]
    if report_columns or review:
        out_type: Any = StructType(
            [StructField(_TEXT_FIELD, StringType(), True)]
            + ([StructField(REPORT_COLUMNS[0], LongType(), True),
                StructField(REPORT_COLUMNS[1], DoubleType(), True)] if report_columns else [])
            + (review_fields if review else []))
    else:
        out_type = StringType()

    import pandas as pd

    # No `from __future__ import annotations` in this module: pyspark reads these hints at
    # definition time to pick the iterator-of-Series UDF type.
    def privatize_batches(batches: Iterator[pd.Series]) -> Iterator[pd.Series]:
        return _privatize_partition(((b, None) for b in batches), key=key, source=source,
                                    device=device, column=column, nulls=nulls,
                                    report_columns=report_columns, review=review)

    def privatize_scoped(batches: Iterator[Tuple[pd.Series, pd.Series]]  # noqa: UP006
                         ) -> Iterator[pd.Series]:
        return _privatize_partition(batches, key=key, source=source, device=device,
                                    column=column, nulls=nulls,
                                    report_columns=report_columns, review=review)

    # Non-deterministic (it draws noise): Spark must neither duplicate nor re-order the call.
    udf = F.pandas_udf(privatize_batches if scope_column is None else privatize_scoped,
                       out_type).asNondeterministic()
    target = output_column or column
    inputs = [F.col(_quote(column))]
    if scope_column is not None:
        inputs.append(F.col(_quote(scope_column)).cast("string"))
    if not (report_columns or review):
        return df.withColumn(target, udf(*inputs))
    tmp = _fresh_name(names, "__textdp_private")
    staged = df.withColumn(tmp, udf(*inputs))
    columns = {target: F.col(f"{_quote(tmp)}.{_TEXT_FIELD}")}
    if report_columns:
        columns.update({c: F.col(f"{_quote(tmp)}.{c}") for c in REPORT_COLUMNS})
    if review:
        # One struct per row (the shape hf_textdp writes), null where the text was null.
        flag = F.col(f"{_quote(tmp)}.{_REVIEW_FLAG}")
        columns[REVIEW_FIELD] = F.when(flag.isNull(), F.lit(None)).otherwise(F.struct(
            flag.alias("needs_review"),
            *(F.col(f"{_quote(tmp)}.{_REVIEW_PREFIX}{r}").alias(r) for r in REVIEW_REASONS)))
    return staged.withColumns(columns).drop(tmp)


# ---------------------------------------------------------------------------- executor side
# One privatizer per configuration (and device) per Python worker. Spark reuses workers across
# tasks (spark.python.worker.reuse), so the models load once per worker, not once per batch.
_WORKER_PRIVATIZERS: "OrderedDict[tuple[str, str], Any]" = OrderedDict()
# Per key: how many privatizers this worker built (1 unless evicted) and batches it served.
_WORKER_STATS: dict[tuple[str, str], dict[str, int]] = {}


def worker_cache_info() -> list[dict[str, Any]]:
    """What this process has cached: one entry per (configuration digest, device) with the
    privatizers built for it and the batches served (diagnostics; no configuration values)."""
    return [{"config": key[0][:16], "device": key[1], "pid": os.getpid(), **stats,
             "cached": key in _WORKER_PRIVATIZERS}
            for key, stats in _WORKER_STATS.items()]


def _worker_privatizer(key: str, source: Any, device: str) -> Any:
    """The cached privatizer for ``key`` on ``device``, built from ``source`` on a miss."""
    cache_key = (key, device)
    core = _WORKER_PRIVATIZERS.get(cache_key)
    if core is not None:
        _WORKER_PRIVATIZERS.move_to_end(cache_key)
        return core
    import pickle

    from textdp.privatizer import Privatizer

    payload = source if isinstance(source, bytes) else source.value
    core = Privatizer(pickle.loads(payload), device=device)
    # Load the pipeline, table and index now, once, and prepare the mechanism with the
    # configuration's own generator: with a fixed seed every worker then prepares it alike
    # (e.g. the same random projection), whichever partition it happens to see first.
    core.load()
    _WORKER_PRIVATIZERS[cache_key] = core
    while len(_WORKER_PRIVATIZERS) > WORKER_CACHE_SIZE:
        _WORKER_PRIVATIZERS.popitem(last=False)
    stats = _WORKER_STATS.setdefault(cache_key, {"built": 0, "batches": 0})
    stats["built"] += 1
    return core


def _privatize_partition(batches: Iterator[Any], *, key: str, source: Any, device: str,
                         column: str, nulls: str, report_columns: bool,
                         review: bool = False) -> Iterator[Any]:
    """Privatize every Arrow batch of one partition (runs in an executor Python worker)."""
    import numpy as np
    import pandas as pd
    from pyspark import TaskContext

    from textdp.errors import RowError

    ctx = TaskContext.get()
    partition = ctx.partitionId() if ctx is not None else 0
    device = _task_device(ctx, device)
    core = None
    offset = 0  # row of the partition the batch starts at
    for series, scopes in batches:
        n = len(series)
        missing = series.isna().to_numpy(dtype=bool)
        if nulls == "error" and missing.any():
            row = offset + int(np.flatnonzero(missing)[0])
            raise ValueError(f"column {column!r}: null text in partition {partition}, row {row} "
                             f"of the partition; pass nulls='keep' to keep nulls as nulls")
        if core is None:
            core = _worker_privatizer(key, source, device)
            _limit_threads(ctx)
        live = np.flatnonzero(~missing)
        values = series.to_numpy(dtype=object)
        scope_values = None if scopes is None else scopes.to_numpy(dtype=object)
        try:
            # With a fixed seed, each Arrow batch draws from its own stream (the core keys it).
            results = core.privatize(
                [values[i] for i in live], scopes=None if scope_values is None
                else [scope_values[i] for i in live],
                stream=("partition", partition, offset)) if live.size else []
        except RowError as err:  # the core's row is the err.row-th non-null of the batch
            row = offset + int(live[err.row]) if 0 <= err.row < live.size else err.row
            raise err.named(f"column {column!r}, partition {partition}, row {row} of the "
                            "partition") from None
        texts: list[str | None] = [None] * n
        tokens: list[int | None] = [None] * n
        epsilons: list[float | None] = [None] * n
        reviews: list[dict[str, Any] | None] = [None] * n
        for i, result in zip(live.tolist(), results):
            texts[i] = result.text
            tokens[i] = result.report.tokens_replaced
            epsilons[i] = float(result.report.epsilon_total)
            reviews[i] = review_record(result.report.review)
        _WORKER_STATS[(key, device)]["batches"] += 1
        offset += n
        if report_columns or review:
            frame: dict[str, Any] = {_TEXT_FIELD: pd.Series(texts, dtype=object)}
            if report_columns:
                frame[REPORT_COLUMNS[0]] = pd.array(tokens, dtype="Int64")
                frame[REPORT_COLUMNS[1]] = pd.array(epsilons, dtype="Float64")
            if review:
                frame[_REVIEW_FLAG] = pd.array(
                    [None if r is None else r["needs_review"] for r in reviews],
                    dtype="boolean")
                for reason in REVIEW_REASONS:
                    frame[f"{_REVIEW_PREFIX}{reason}"] = pd.array(
                        [None if r is None else r[reason] for r in reviews], dtype="Int64")
            yield pd.DataFrame(frame)
        else:
            yield pd.Series(texts, dtype=object)


def _task_device(ctx: Any, device: str) -> str:
    """``cuda:<address>`` for a task Spark gave a GPU (device ``auto``/``cuda``), else
    ``device`` as configured."""
    if ctx is None or not chooses_gpu(device):
        return device
    try:
        gpus = ctx.resources().get("gpu")
    except Exception:  # resources() is unavailable in some local modes
        gpus = None
    if gpus is not None and gpus.addresses:
        return gpu_for(device, int(gpus.addresses[0])) or device
    return device


def _limit_threads(ctx: Any) -> None:
    """Compute with the task's CPU share (``spark.task.cpus``): an executor runs one Python
    worker per core, and torch/faiss default to every core of the machine each."""
    if ctx is None:
        return
    try:
        cpus = max(1, int(ctx.cpus()))
    except Exception:
        cpus = 1
    import torch

    if torch.get_num_threads() != cpus:
        torch.set_num_threads(cpus)
    faiss = sys.modules.get("faiss")
    if faiss is not None:
        faiss.omp_set_num_threads(cpus)


# ---------------------------------------------------------------------------- helpers
def _validated_config(config: Mapping[str, Any]) -> "PrivatizerConfig":
    """The configuration every executor builds its privatizer from, validated on the driver
    by building a privatizer (docs/architecture.md rule 5; this loads no model and reads no
    text), with the driver's key of ``consistency="dataset"``: one key for every executor, so keyed
    pseudonyms agree."""
    # The original text stays in the DataFrame's own column, so the executors' privatizers
    # never keep a copy (keep_original is a front-end decision here).
    from textdp.config import from_mapping
    from textdp.privatizer import Privatizer

    settings = from_mapping({"device": _DEFAULT_DEVICE, **config, "keep_original": False})
    driver = Privatizer(settings, device=_driver_device(settings.device))
    return settings if driver.key is None else settings.with_changes(key=driver.key)


def _driver_device(device: Any) -> Any:
    """The device to validate on the driver: a CUDA device is checked for its form only,
    since executors may have GPUs the driver lacks."""
    if isinstance(device, str) and device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            parse_device(device)
            return "cpu"
    return device


def _dumps(config: "PrivatizerConfig") -> bytes:
    """Pickle the configuration (cloudpickle: a detector or mechanism defined in ``__main__``
    travels by value)."""
    from pyspark import cloudpickle

    return cloudpickle.dumps(config)


def _spark_context(df: "DataFrame") -> Any:
    try:
        return df.sparkSession.sparkContext
    except Exception:  # Spark Connect has no SparkContext
        return None


def _quote(name: str) -> str:
    """A column name as a Spark identifier (dots and backticks taken literally)."""
    return "`" + name.replace("`", "``") + "`"


def _fresh_name(taken: list[str], base: str) -> str:
    name, k = base, 0
    lowered = {t.lower() for t in taken}
    while name.lower() in lowered:
        k += 1
        name = f"{base}_{k}"
    return name


#: The oldest Java the supported pyspark releases run on (pyspark 4 needs 17).
MIN_JAVA = 17
_JAVA_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


def java_version(java: str | None = None) -> int | None:
    """The major version of the Java that Spark would start (``$JAVA_HOME/bin/java``, else
    ``java`` on the PATH), or ``None`` when there is none."""
    if java is None:
        home = os.environ.get("JAVA_HOME")
        candidate = os.path.join(home, "bin", "java") if home else None
        java = candidate if candidate and os.access(candidate, os.X_OK) else shutil.which("java")
    if java is None:
        return None
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    match = _JAVA_VERSION.search(out.stderr + out.stdout)
    if match is None:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


def require_java(minimum: int = MIN_JAVA) -> int:
    """Check that Spark can start its JVM here, with a message that says what to install;
    pyspark's own failure is a ``JAVA_GATEWAY_EXITED`` error that names neither."""
    found = java_version()
    if found is None:
        raise RuntimeError(
            f"Spark needs Java {minimum} or newer, and none was found (no $JAVA_HOME/bin/java, "
            "no java on the PATH): install a JDK or JRE (e.g. apt-get install "
            f"openjdk-{minimum}-jre-headless) and set JAVA_HOME")
    if found < minimum:
        raise RuntimeError(f"Spark needs Java {minimum} or newer, found Java {found}: install a "
                           "newer one and point JAVA_HOME at it")
    return found


def session(master: str | None = None, app_name: str = "textdp", **conf: str) -> Any:
    """A Spark session set up for textdp, after checking Java (:func:`require_java`).

    Python workers are reused (``spark.python.worker.reuse``), so each executor loads the
    models once; ``conf`` adds or overrides Spark settings (dots written as ``__``:
    ``sql__shuffle__partitions="8"`` is ``spark.sql.shuffle.partitions``).
    """
    require_java()
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name).config("spark.python.worker.reuse", "true")
    if master is not None:
        builder = builder.master(master)
    for key, value in conf.items():
        builder = builder.config("spark." + key.replace("__", "."), value)
    return builder.getOrCreate()


__all__ = ["MIN_JAVA", "NULL_POLICIES", "REPORT_COLUMNS", "java_version", "privatize_column",
           "require_java", "session", "worker_cache_info"]
