"""The evaluation report folder: one Markdown section per command, an index linking them.

``textdp evaluate privacy ... -o report/`` and ``textdp evaluate utility ... -o report/`` each
write their own section (``privacy.md`` + ``privacy.json``, ``utility.md`` + ``utility.json``,
PNG figures beside them) and regenerate ``index.md``, which links every section present with the
command that produced it and the versions it ran with. Running one command again replaces its
section only, so the two commands can run in either order (or on different machines) into the
same folder.

Every file is written atomically (a temporary file renamed into place): an interrupted run
leaves the previous report intact, never a half-written page.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from textdp.files import atomic_output

INDEX = "index.md"
# Packages whose versions decide the figures; missing ones are left out of the list.
VERSIONED = ("textdp", "numpy", "torch", "faiss-cpu", "faiss-gpu", "spacy", "transformers",
             "scikit-learn", "scipy", "matplotlib")


def versions() -> dict[str, str]:
    """Python, platform and the installed versions of the packages behind the figures."""
    found = {"python": platform.python_version(), "platform": platform.platform()}
    for name in VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command that is running, as one shell-quoted line (``textdp evaluate ...``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["textdp", *(shlex.quote(a) for a in args)])


def markdown_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | Mapping[str, str],
                   *, digits: int = 3) -> str:
    """A GitHub Markdown table of ``rows``.

    ``columns`` lists the keys to show, or maps each key to its header. Floats are rounded to
    ``digits`` significant decimals; missing values print as an empty cell.
    """
    heads = dict(columns) if isinstance(columns, Mapping) else {c: c for c in columns}
    if not heads:
        raise ValueError("columns must name at least one column")

    def cell(value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, float):
            return f"{value:.{digits}f}" if abs(value) < 1e6 else f"{value:.3g}"
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(heads.values()) + " |",
             "|" + "|".join("---" for _ in heads) + "|"]
    lines += ["| " + " | ".join(cell(row.get(k)) for k in heads) + " |" for row in rows]
    return "\n".join(lines)


def save_figure(fig: Any, out_dir: str | os.PathLike[str], filename: str) -> str:
    """Save a matplotlib figure as PNG into ``out_dir``; returns its path relative to it.

    The figure is closed afterwards (reports draw dozens; open figures hold memory).
    """
    if not filename.endswith(".png"):
        raise ValueError(f"filename must end with .png, got {filename!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_output(out / filename, binary=True) as f:
            fig.savefig(f, dpi=120, bbox_inches="tight", format="png")
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return filename


def write_section(
    out_dir: str | os.PathLike[str],
    name: str,
    *,
    title: str,
    command: str,
    body_markdown: str,
    figures: Iterable[str] = (),
    data: Any = None,
) -> Path:
    """Write ``<out_dir>/<name>.md`` and ``<name>.json`` and regenerate ``index.md``.

    Args:
        out_dir: the report folder (created if missing).
        name: the section's file stem, e.g. ``"privacy"`` (letters, digits, ``-`` and ``_``).
        title: the section's heading.
        command: the exact command line that produced it (see :func:`command_line`).
        body_markdown: the section's tables and text.
        figures: PNG paths relative to ``out_dir`` (from :func:`save_figure`), shown in order.
        data: the figures as JSON-able values, written to ``<name>.json`` with the command,
            the versions and the time.

    Returns:
        The path of the section's Markdown file.
    """
    if not name or not all(c.isalnum() or c in "-_" for c in name) or name == "index":
        raise ValueError(f"name must be a file stem of letters, digits, - or _ (not 'index'), "
                         f"got {name!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures = list(figures)
    for fig in figures:
        if not (out / fig).is_file():
            raise ValueError(f"figure {fig!r} is not a file in {str(out)!r}; save it with "
                             "save_figure() first")
    meta = {"title": title, "command": command, "versions": versions(),
            "written": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    page = [f"# {title}", "", "Produced by:", "", "```", command, "```", "", body_markdown.strip(),
            ""]
    for fig in figures:
        page += [f"![{Path(fig).stem}]({fig})", ""]
    page += ["Versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()), ""]
    md = out / f"{name}.md"
    _atomic_write(md, "\n".join(page))
    _atomic_write(out / f"{name}.json",
                  json.dumps({**meta, "figures": figures, "data": data}, indent=2, default=_plain))
    write_index(out)
    return md


def write_index(out_dir: str | os.PathLike[str]) -> Path:
    """Regenerate ``index.md`` from the sections present (their ``.json`` metadata)."""
    out = Path(out_dir)
    lines = ["# textdp evaluation report", "",
             "Each section was produced by the command shown under it; rerunning a command "
             "replaces its section.", ""]
    for meta_file in sorted(out.glob("*.json")):
        md = meta_file.with_suffix(".md")
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue  # not a section of ours
        if not md.is_file() or not isinstance(meta, dict) or "command" not in meta:
            continue
        lines += [f"## [{meta.get('title', md.stem)}]({md.name})", "",
                  f"`{meta['command']}` — {meta.get('written', '')}", ""]
        lines += [f"![{Path(f).stem}]({f})" for f in meta.get("figures", [])[:1]]
        lines.append("")
    index = out / INDEX
    _atomic_write(index, "\n".join(lines))
    return index


def _atomic_write(path: Path, text: str) -> None:
    with atomic_output(path) as f:
        f.write(text)


def _plain(value: Any) -> Any:
    """JSON fallback for numpy scalars and arrays."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")
