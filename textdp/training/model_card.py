"""Model cards: the ``README.md`` written beside a trained detector's weights.

A card says what the model is, what it was trained and chosen on (and that no test set was
read), its dev figures per domain, its size on disk and its measured speed. It is written by
the training commands from what they measured, never by hand, so it stays true to the
weights next to it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DATA_LICENCES = (
    "CoNLL-2003 (Reuters newswire annotations; research use), WNUT-17 (CC-BY 4.0), "
    "Broad Twitter Corpus (CC-BY 4.0). The weights are derived from these corpora and from "
    "the base model named above; no text of the corpora is shipped.")


def folder_size(folder: str | os.PathLike[str]) -> int:
    """Bytes of the files in ``folder`` (not recursive)."""
    return sum(p.stat().st_size for p in Path(folder).iterdir() if p.is_file())


def dev_table(rows: Mapping[str, Mapping[str, Any]], columns: Sequence[tuple[str, str]]
              ) -> str:
    """A markdown table, one row per domain; ``columns`` are ``(key, header)`` pairs."""
    head = "| domain | " + " | ".join(h for _, h in columns) + " |"
    rule = "|---|" + "---|" * len(columns)
    lines = [head, rule]
    for domain, values in rows.items():
        cells = [_fmt(values.get(k)) for k, _ in columns]
        lines.append(f"| {domain} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "" if value is None else str(value)


def write_card(folder: str | os.PathLike[str], *, title: str, summary: str,
               data: Mapping[str, Any], table: str, speed: str, command: str,
               notes: Sequence[str] = ()) -> Path:
    """Write ``folder/README.md`` and return its path."""
    from textdp.files import atomic_output

    size = folder_size(folder)
    lines = [f"# {title}", "", summary, "",
             "## Data", "",
             *[f"- {k}: {v}" for k, v in data.items()],
             "", f"Licences of the data: {DATA_LICENCES}", "",
             "## Dev figures per domain", "", table, "",
             "## Size and speed", "",
             f"- size on disk: {size / 1e6:.1f} MB (this folder)",
             f"- speed: {speed}", "",
             "## Rebuild", "", "```", command, "```", ""]
    if notes:
        lines += ["## Notes", "", *[f"- {n}" for n in notes], ""]
    path = Path(folder) / "README.md"
    with atomic_output(path) as f:
        f.write("\n".join(lines))
    return path
