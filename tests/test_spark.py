"""textdp.spark.privatize_column on a local[2] SparkSession.

Skipped cleanly without pyspark or Java. One session for the module; each Python worker loads
the models once (the first action pays for it), so the tests share a few collected results.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs Java (no java on PATH, no JAVA_HOME)", allow_module_level=True)

from textdp.privatizer import Privatizer
from textdp.spark import REPORT_COLUMNS, privatize_column, worker_cache_info

pytestmark = pytest.mark.slow  # a JVM and two Python workers loading the models

NAMES = [("John", "Smith"), ("Angela", "Merkel"), ("Maria", "Garcia"), ("David", "Johnson"),
         ("Sarah", "Miller"), ("Peter", "Brown"), ("Laura", "Wilson"), ("Thomas", "Anderson")]
TEMPLATES = ["{} {} met the minister in Berlin on Tuesday .",
             "Yesterday {} {} said the plan would work .",
             "The report was written by {} {} last year .",
             "According to {} {} , the market will recover ."]
SCHEMA = "id long, text string, score double, tags array<string>"
SEED = 7
# The embedded spaCy NER, named explicitly: these tests are about the Spark plumbing.
DETECTOR = "spacy"


def _rows(n: int = 40) -> list[tuple]:
    rows = []
    for i in range(n):
        first, last = NAMES[i % len(NAMES)]
        text = TEMPLATES[i % len(TEMPLATES)].format(first, last)
        rows.append((i, text, i / 4, [f"t{i}", "x"]))
    return rows


def _name_positions(text: str) -> set[int]:
    """Word positions of the first and last name in a template sentence."""
    words = text.split(" ")
    return {k for k, w in enumerate(words) if any(w in pair for pair in NAMES)}


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers run this interpreter
    builder = (SparkSession.builder.master("local[2]").appName("textdp-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "1g")
               # Several Arrow batches per partition: exercises the per-batch streams.
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "8")
               .config("spark.python.worker.reuse", "true"))
    try:
        session = builder.getOrCreate()
    except Exception as err:  # no usable JVM
        pytest.skip(f"cannot start a local SparkSession: {type(err).__name__}")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def df(spark):
    return spark.createDataFrame(_rows(), SCHEMA)  # 2 partitions, 3 Arrow batches each


@pytest.fixture(scope="module")
def names_out(df):
    """Names mode (embedded spaCy NER), default ε, fixed seed, report columns: collected once."""
    out = privatize_column(df, "text", report_columns=True, seed=SEED, detector=DETECTOR)
    return out, out.collect()


def test_names_replaced_other_columns_and_order_kept(df, names_out):
    from pyspark.sql.types import DoubleType, LongType, StringType

    out, rows = names_out
    before = df.collect()
    assert len(rows) == len(before) == 40
    assert out.columns == [*df.columns, *REPORT_COLUMNS]
    types = {f.name: f.dataType for f in out.schema.fields}
    assert types["text"] == StringType()
    assert types["dp_tokens_replaced"] == LongType()
    assert types["dp_epsilon"] == DoubleType()
    epsilon = Privatizer(detector=DETECTOR).epsilon
    kept = replaced = 0
    for old, new in zip(before, rows):
        assert (new.id, new.score, new.tags) == (old.id, old.score, old.tags)  # same order
        old_words, new_words = old.text.split(" "), new.text.split(" ")
        assert len(new_words) == len(old_words)
        names = _name_positions(old.text)
        for k, (a, b) in enumerate(zip(old_words, new_words)):
            if k in names:
                replaced += a != b
            else:
                kept += a == b
        assert new.dp_tokens_replaced >= 1
        assert new.dp_epsilon == pytest.approx(new.dp_tokens_replaced * epsilon)
    n_names = sum(len(_name_positions(r.text)) for r in before)
    n_other = sum(len(r.text.split(" ")) for r in before) - n_names
    assert replaced >= 0.9 * n_names, (replaced, n_names)
    assert kept >= 0.95 * n_other, (kept, n_other)


def test_same_format_as_hf(df, names_out):
    """Column names, Arrow types and (deterministic) report values match hf_textdp."""
    datasets = pytest.importorskip("datasets")
    from pyspark.sql.pandas.types import to_arrow_schema

    from hf_textdp import Privatizer as HFPrivatizer

    out, rows = names_out
    before = df.collect()
    ds = datasets.Dataset.from_dict({"id": [r.id for r in before],
                                     "text": [r.text for r in before]})
    hf_privatizer = HFPrivatizer(report_columns=True, seed=SEED, device="cpu", detector=DETECTOR)
    hf = ds.map(hf_privatizer, batched=True, load_from_cache_file=False)
    hf_schema = hf.data.schema.remove_metadata()
    spark_schema = to_arrow_schema(out.select(*hf.column_names).schema)
    assert [f.name for f in spark_schema] == [f.name for f in hf_schema]
    assert [f.type for f in spark_schema] == [f.type for f in hf_schema]
    # The detector is deterministic, so both front ends replace the same number of tokens.
    assert [r.dp_tokens_replaced for r in rows] == hf["dp_tokens_replaced"]
    assert [r.dp_epsilon for r in rows] == pytest.approx(hf["dp_epsilon"])


def test_targets_all_output_column_and_seed_reproducible(df):
    before = df.collect()
    kept = privatize_column(df, "text", output_column="private", targets="all", seed=3,
                            keep_original=True)
    assert kept.columns == [*df.columns, "private"]
    first = kept.collect()
    again = privatize_column(df, "text", targets="all", seed=3)
    assert again.schema == df.schema  # text replaced in place, nothing added
    second = again.collect()
    changed = 0
    for old, a, b in zip(before, first, second):
        assert a.text == old.text  # the original stays where keep_original asked for it
        assert (a.id, a.score, a.tags) == (old.id, old.score, old.tags)
        assert b.text == a.private  # same seed, same partitioning: the same release
        changed += sum(x != y for x, y in zip(old.text.split(" "), a.private.split(" ")))
    words = sum(sum(w.isalpha() for w in r.text.split(" ")) for r in before)
    assert changed >= 0.8 * words
    # Another seed is another release.
    other = privatize_column(df, "text", targets="all", seed=4).collect()
    assert [r.text for r in other] != [r.text for r in second]


def test_null_texts_kept_as_null(spark):
    rows = _rows(12)
    rows[3] = (3, None, 0.75, ["t3"])
    rows[10] = (10, None, 2.5, None)
    df = spark.createDataFrame(rows, SCHEMA)
    out = privatize_column(df, "text", report_columns=True, targets="all", seed=1).collect()
    assert [r.id for r in out] == list(range(12))
    for r in out:
        if r.id in (3, 10):
            assert (r.text, r.dp_tokens_replaced, r.dp_epsilon) == (None, None, None)
        else:
            assert isinstance(r.text, str) and r.dp_tokens_replaced > 0
    assert out[10].tags is None and out[3].tags == ["t3"]


def test_config_validated_on_driver_before_any_job(spark, df):
    sc = spark.sparkContext
    group = "textdp-validation"
    sc.setJobGroup(group, "privatize_column validation")
    try:
        with pytest.raises(ValueError, match="epsilon"):
            privatize_column(df, "text", epsilon=0)
        with pytest.raises(ValueError, match="epsilon"):
            privatize_column(df, "text", epsilon=float("inf"))
        with pytest.raises(ValueError, match="targets"):
            privatize_column(df, "text", targets=[])
        with pytest.raises(ValueError, match="'missing' is not in the DataFrame"):
            privatize_column(df, "missing")
        with pytest.raises(ValueError, match="must be a string column"):
            privatize_column(df, "score")
        with pytest.raises(ValueError, match="keep_original=True"):
            privatize_column(df, "text", output_column="private")
        with pytest.raises(ValueError, match="nulls"):
            privatize_column(df, "text", nulls="drop")
        with pytest.raises(ValueError, match="seed"):
            privatize_column(df, "text", seed=-1)
        with pytest.raises(TypeError):
            privatize_column(df, "text", epsilonn=1.0)
        reported = privatize_column(df, "text", report_columns=True, targets="all")
        with pytest.raises(ValueError, match="dp_epsilon"):
            privatize_column(reported, "text", report_columns=True)
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    assert list(sc.statusTracker().getJobIdsForGroup(group)) == []


def test_model_loaded_once_per_worker(spark):
    """8 partitions on 2 slots: each reused worker builds the privatizer once and serves
    several batches with it."""
    import ast

    import pandas as pd

    rows = _rows(40)
    df = spark.createDataFrame(rows, SCHEMA).repartition(8)
    assert len(privatize_column(df, "text", targets="all", seed=11).collect()) == 40

    def probe(batches):
        for _ in batches:
            pass
        yield pd.DataFrame({"entries": [repr(worker_cache_info())]})

    seen = [ast.literal_eval(r.entries)
            for r in spark.range(8, numPartitions=8).mapInPandas(probe, "entries string")
            .collect()]
    entries = {(e["pid"], e["config"]): e for worker in seen for e in worker}
    assert entries, "no reused Python worker held a privatizer"
    assert all(e["built"] == 1 for e in entries.values())
    assert max(e["batches"] for e in entries.values()) >= 2


def test_null_texts_error_names_the_row_not_the_text(spark):
    # Last in the module: the Python worker that raises exits, and its successor reloads.
    rows = _rows(12)
    rows[5] = (5, None, 1.25, ["t5"])
    df = spark.createDataFrame(rows, SCHEMA)
    out = privatize_column(df, "text", targets="all", seed=1, nulls="error")
    with pytest.raises(Exception) as info:
        out.collect()
    message = str(info.value)
    assert "null text" in message and "'text'" in message and "partition" in message
    assert not any(r[1] and r[1] in message for r in rows)
    assert not any(name in message for pair in NAMES for name in pair)  # not even a name


def test_keyed_pseudonyms_agree_across_partitions_and_workers(spark):
    """consistency='dataset': one key (drawn on the driver when not given) serves every
    executor, so a name gets one pseudonym in all partitions and per scope value."""
    rows = [(i, t, p) for i, (t, p) in enumerate(
        [("Angela Merkel met David Brown.", "a"), ("Merkel left early.", "a"),
         ("Merkel left early.", "b"), ("Brown stayed.", "a")] * 3)]
    df = spark.createDataFrame(rows, "id long, text string, pid string").repartition(4, "id")
    assert df.rdd.getNumPartitions() == 4
    out = {r.id: r.text for r in privatize_column(
        df, "text", consistency="dataset", scope_column="pid").collect()}
    merkel_a = {out[i].split(" ")[1] for i in (0, 4, 8)} | \
        {out[i].split(" ")[0] for i in (1, 5, 9)}
    assert len(merkel_a) == 1  # every partition, scope "a"
    assert len({out[i].split(" ")[0] for i in (2, 6, 10)}) == 1  # every partition, scope "b"
    brown = {out[i].split(" ")[4].rstrip(".") for i in (0, 4, 8)} | \
        {out[i].split(" ")[0] for i in (3, 7, 11)}
    assert len(brown) == 1
    # Other scopes draw other pseudonyms. Two scopes may draw one name by chance (~2.5 % of
    # keys), so eight scopes under a fixed key must give more than one: deterministic, and
    # false if executors ignored the scope.
    scoped = spark.createDataFrame([(i, "Merkel left early.", str(i)) for i in range(8)],
                                   "id long, text string, pid string").repartition(4, "id")
    texts = [r.text for r in privatize_column(scoped, "text", consistency="dataset",
                                               scope_column="pid",
                                               key=b"textdp-test-key-16").collect()]
    assert len({text.split(" ")[0] for text in texts}) > 1
    with pytest.raises(ValueError, match="scope_column"):
        privatize_column(df, "text", scope_column="pid")  # without consistency='dataset'


def test_budget_refusal_names_the_partition_row(spark):
    """The core names the row of what it was given (the non-null texts of one Arrow batch);
    Spark names the row of the partition (a null before it used to shift the number)."""
    rows = [(0, "fine", 0.0, ["a"]), (1, None, 0.0, ["b"]), (2, "far too many words", 0.0, ["c"])]
    df = spark.createDataFrame(rows, SCHEMA).coalesce(1)
    out = privatize_column(df, "text", targets="all", epsilon=1.0, max_epsilon_per_text=1.0,
                           budget_policy="refuse", seed=1)
    with pytest.raises(Exception) as info:
        out.collect()
    message = str(info.value)
    assert "partition 0, row 2 of the partition: its targets need more" in message
    assert "far too many" not in message


@pytest.mark.parametrize("options", [
    {"keep_original": "false", "output_column": "private"}, {"report_columns": "no"}])
def test_switches_must_be_real_bools(df, options):
    """Issue 37: keep_original="false" is truthy and kept the original beside the output."""
    (name,) = [k for k in options if k != "output_column"]
    with pytest.raises(ValueError, match=f"{name} must be True or False"):
        privatize_column(df, "text", **options)


# Issue 33: one detection for every mention, and the review column (the core's tests are
# tests/pipeline/test_selection_mentions.py).
def test_review_column_and_every_mention(spark):
    from review_texts import EVERY_MENTION, PARTIAL, PLAIN

    texts = [PARTIAL, PLAIN, None, *(t for t, _ in EVERY_MENTION)]
    df = spark.createDataFrame(list(enumerate(texts)), "id long, text string")
    out = privatize_column(df, "text", review=True, seed=SEED, allow=["Hunter Price"])
    field = out.schema["dp_review"].dataType
    assert [f.name for f in field.fields] == ["needs_review", "partial_mention",
                                              "near_threshold"]
    rows = sorted(out.collect(), key=lambda r: r.id)
    assert rows[0].dp_review.asDict() == {"needs_review": True, "partial_mention": 1,
                                          "near_threshold": 0}
    assert rows[1].dp_review.needs_review is False
    assert rows[2].dp_review is None and rows[2].text is None  # null text: null review
    for row, (_, names) in zip(rows[3:], EVERY_MENTION):
        assert not [n for n in names if n in row.text.casefold()], names
    with pytest.raises(ValueError, match="already has"):
        privatize_column(out, "text", review=True)
