"""README.md's and the docs' examples run as written, offline, each in a fresh process.

Collected: every fenced ```python and shell block of README.md and of the pages under docs/.
A block that cannot run here (it installs packages, runs this suite, reads ../shared/data or
takes minutes) carries a marker that says why, as an HTML comment on the line right before its
fence::

    <!-- readme-test: skip (needs a GPU) -->

and a marker without a reason fails. Each block runs in a fresh interpreter (``bash -e -o
pipefail`` for shell blocks) in its own temporary folder, two blocks at a time, with
TEXTDP_CACHE and HF_HOME under the session's temporary folder (nothing read from or written to
~/.cache) and the Hugging Face hub switched off. The command-line examples name a user's input
files (``reviews.jsonl``, ``notes.txt``, ...): the small files of those names that ship in
``examples/data/`` are copied into the shell block's folder first, as a user who runs the
examples from that folder has them.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every README and docs example in a fresh process: minutes

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLE_DATA = ROOT / "examples" / "data"  # the input files the command-line examples name
FENCE = re.compile(r"^```(\S*)\s*$")
MARKER = re.compile(r"^<!--\s*readme-test:(.*)-->\s*$")
SKIP = re.compile(r"^\s*skip\s*\((.*)\)\s*$")
SHELLS = ("bash", "sh", "shell", "console")
TIMEOUT_S = {"python": 300, "bash": 600}
PARALLEL = 2  # blocks run at once
STDERR_TAIL = 8000


@dataclass(frozen=True)
class Block:
    """One fenced code block of README.md or a docs page."""

    path: Path
    lang: str
    line: int  # 1-based line of the opening fence
    section: str  # the nearest heading above it
    code: str
    marker: str | None  # text of a readme-test comment on the line right before the fence

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)} line {self.line}"

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.section.lower()).strip("-")
        return f"{self.path.stem}-L{self.line}-{self.lang}-{slug}"


def parse_blocks(text: str, path: Path = README) -> list[Block]:
    """Every fenced block of a Markdown text, with its section and marker."""
    blocks: list[Block] = []
    lines = text.splitlines()
    section = ""
    start: int | None = None
    lang = ""
    for i, line in enumerate(lines):
        fence = FENCE.match(line)
        if start is None:
            if fence:
                start, lang = i, fence.group(1).lower()
            elif line.startswith("#"):
                section = line.lstrip("#").strip()
        elif fence and not fence.group(1):
            marker = MARKER.match(lines[start - 1]) if start > 0 else None
            blocks.append(Block(path, lang, start + 1, section,
                                "\n".join(lines[start + 1:i]) + "\n",
                                marker.group(1).strip() if marker else None))
            start = None
    return blocks


def runnable(block: Block) -> bool:
    """Python and shell blocks are code a user runs; other fences (toml, text) are not."""
    return block.lang == "python" or block.lang in SHELLS


def skip_reason(marker: str) -> str | None:
    """The reason of ``skip (reason)``; None when the marker is malformed or gives none."""
    match = SKIP.match(marker)
    reason = match.group(1).strip() if match else ""
    return reason or None


BLOCKS = [b for page in PAGES for b in parse_blocks(page.read_text(encoding="utf-8"), page)]
RUNNABLE = [b for b in BLOCKS if runnable(b)]


@pytest.fixture(scope="module")
def block_env(tmp_path_factory) -> dict[str, str]:
    """The environment of every block: private caches, no hub, this interpreter's scripts."""
    root = tmp_path_factory.mktemp("readme-env")
    env = dict(os.environ)
    env.update(
        TEXTDP_CACHE=str(root / "textdp-cache"),  # shared by the blocks: calibrations, indexes
        HF_HOME=str(root / "hf-home"),
        HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    return env


@dataclass(frozen=True)
class Outcome:
    returncode: int
    what: str  # "exited N" or "ran past N s"
    stdout: str
    stderr: str


def run_block(block: Block, cwd: Path, env: dict[str, str]) -> Outcome:
    """Run one block in ``cwd`` (killing it and its children past its timeout)."""
    if block.lang == "python":
        script = cwd / f"{block.path.stem}_L{block.line}.py"
        argv = [sys.executable, str(script)]
    else:
        script = cwd / f"{block.path.stem}_L{block.line}.sh"
        argv = ["bash", "-e", "-o", "pipefail", str(script)]
        shutil.copytree(EXAMPLE_DATA, cwd / "examples" / "data")
    script.write_text(block.code, encoding="utf-8")
    timeout = TIMEOUT_S["python" if block.lang == "python" else "bash"]
    # A session of its own, so a timeout kills the block's children too (textdp, Spark's JVM).
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return Outcome(proc.returncode, f"exited {proc.returncode}", out, err)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Outcome(-1, f"ran past {timeout} s", out, err)


@pytest.fixture(scope="module")
def outcomes(request, tmp_path_factory, block_env) -> Iterator[dict[str, Future[Outcome]]]:
    """The selected blocks without a marker, started at once, two at a time (2 cores), the
    shell blocks first: they are the longest (one process per command)."""
    selected = {item.callspec.params["block"].id for item in request.session.items
                if "block" in getattr(getattr(item, "callspec", None), "params", {})}
    todo = [b for b in RUNNABLE if b.marker is None and b.id in selected]
    todo.sort(key=lambda b: b.lang != "bash")
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        yield {b.id: pool.submit(run_block, b, tmp_path_factory.mktemp(b.id), block_env)
               for b in todo}


def test_readme_has_runnable_blocks():
    langs = {b.lang for b in RUNNABLE if b.path == README and b.marker is None}
    assert "python" in langs and "bash" in langs, [b.id for b in RUNNABLE]


def test_docs_pages_have_runnable_blocks():
    """The guides are collected too (a docs folder that moved would leave only README)."""
    pages = {b.path.name for b in RUNNABLE if b.path != README and b.marker is None}
    assert {"python.md", "spacy.md", "cli.md"} <= pages, sorted(pages)


def test_markers_give_a_reason():
    """Every readme-test comment is ``skip (reason)`` right before a fence."""
    bad = []
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if "readme-test" not in line:
                continue
            marker = MARKER.match(line)
            where = f"{page.relative_to(ROOT)} line {i + 1}"
            if not marker or skip_reason(marker.group(1)) is None:
                bad.append(f"{where}: {line.strip()!r} gives no reason: "
                           "write <!-- readme-test: skip (needs ...) -->")
            elif i + 1 >= len(lines) or not FENCE.match(lines[i + 1]):
                bad.append(f"{where}: the marker is not on the line right before a fence")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_readme_block_runs(block: Block, outcomes: dict[str, Future[Outcome]]):
    if block.marker is not None:
        reason = skip_reason(block.marker)
        if reason is None:
            pytest.fail(f"{block.where}: readme-test marker without a reason; write "
                        "<!-- readme-test: skip (needs ...) -->", pytrace=False)
        pytest.skip(f"{block.where}: {reason}")
    outcome = outcomes[block.id].result()
    if outcome.returncode != 0:
        pytest.fail(f"{block.where} ({block.lang}, {block.section}) "
                    f"{outcome.what}\n--- stderr (tail) ---\n{outcome.stderr[-STDERR_TAIL:]}\n"
                    f"--- stdout (tail) ---\n{outcome.stdout[-2000:]}", pytrace=False)
