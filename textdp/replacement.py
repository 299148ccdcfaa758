"""The ``replace`` and ``consistency`` settings: their choices and the effective ``replace``.

* **What replaces a target** (``replace``): ``"name"`` decodes person targets to the public
  name vocabulary (:mod:`textdp.name_vocabulary`); ``"word"`` decodes to the whole table;
  ``"tag"`` writes a placeholder (``[PERSON]``) and draws nothing. The noise (or the
  exponential-mechanism draw) is the same whatever the candidate set: decoding to a public
  subset is post-processing, so the guarantee is unchanged.
* **Which mentions share a draw** (``consistency``): ``"document"`` draws once per distinct
  name per text, ``"dataset"`` from a keyed source per name (:mod:`textdp.keyed_sources`),
  ``"mention"`` for every mention (:mod:`textdp.pipeline.draw_plan`).
"""

from __future__ import annotations

REPLACEMENTS = ("name", "word", "tag")
CONSISTENCY = ("document", "dataset", "mention")
#: ``name_origin``: draw across all origins, or keep the name's origin group.
NAME_ORIGINS = ("any", "keep")


def check_replace(replace: str | None, decodes_subsets: bool, mechanism: str) -> str:
    """The effective ``replace``: ``None`` is ``"name"`` where the mechanism can decode to a
    subset of its candidates, else ``"word"`` (and the privatizer falls back to ``"word"``
    when its table turns out to have no name vocabulary); an explicit ``"name"`` the
    mechanism cannot serve fails."""
    if replace is None:
        return "name" if decodes_subsets else "word"
    if replace not in REPLACEMENTS:
        raise ValueError(f"replace must be one of {', '.join(REPLACEMENTS)}, got {replace!r}")
    if replace == "name" and not decodes_subsets:
        raise ValueError(f"replace='name' decodes to the public name vocabulary, which mechanism "
                         f"{mechanism!r} cannot do (it draws from its own vocabulary); use "
                         "replace='word' or 'tag'")
    return replace
