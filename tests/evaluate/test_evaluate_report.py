"""The evaluation report folder: sections, index, atomic files."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from textdp.evaluate.report import (
    command_line,
    markdown_table,
    save_figure,
    write_section,
)


def test_markdown_table_formats_and_escapes() -> None:
    table = markdown_table([{"a": 0.12345, "b": "x|y"}, {"a": None, "b": 3}],
                           {"a": "A", "b": "B"}, digits=2)
    assert table.splitlines() == ["| A | B |", "|---|---|", "| 0.12 | x\\|y |", "|  | 3 |"]
    with pytest.raises(ValueError, match="columns"):
        markdown_table([], [])


def test_sections_share_one_index(tmp_path) -> None:
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    png = save_figure(fig, tmp_path, "curve.png")
    assert (tmp_path / png).read_bytes()[:4] == b"\x89PNG"
    write_section(tmp_path, "privacy", title="Privacy", command="textdp evaluate privacy",
                  body_markdown="| a |\n|---|\n| 1 |", figures=[png], data={"rows": [1, 2]})
    write_section(tmp_path, "utility", title="Utility", command="textdp evaluate utility",
                  body_markdown="body", data=[{"x": 1.5}])
    index = (tmp_path / "index.md").read_text()
    assert "[Privacy](privacy.md)" in index and "[Utility](utility.md)" in index
    assert "![curve](curve.png)" in (tmp_path / "privacy.md").read_text()
    meta = json.loads((tmp_path / "utility.json").read_text())
    assert meta["command"] == "textdp evaluate utility" and meta["data"] == [{"x": 1.5}]
    assert "numpy" in meta["versions"]
    # Rewriting one section keeps the other.
    write_section(tmp_path, "privacy", title="Privacy 2", command="c", body_markdown="b")
    index = (tmp_path / "index.md").read_text()
    assert "[Privacy 2](privacy.md)" in index and "[Utility](utility.md)" in index
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_bad_section_arguments(tmp_path) -> None:
    with pytest.raises(ValueError, match="name"):
        write_section(tmp_path, "../x", title="t", command="c", body_markdown="b")
    with pytest.raises(ValueError, match=r"missing\.png"):
        write_section(tmp_path, "s", title="t", command="c", body_markdown="b",
                      figures=["missing.png"])
    with pytest.raises(ValueError, match=r"\.png"):
        save_figure(plt.figure(), tmp_path, "x.svg")


def test_command_line_quotes() -> None:
    assert command_line(["evaluate", "privacy", "--epsilon", "1 2"]) == \
        "textdp evaluate privacy --epsilon '1 2'"
