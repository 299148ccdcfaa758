"""The import graph of textdp, hf_textdp and spacy_textdp: no circle, no upward import.

Every ``import`` of a first-party module counts, at module level and inside functions (a lazy
import is still a dependency, and two lazy imports can still form a circle). An import names
the module it reads from: ``from textdp import defaults`` reads ``textdp.defaults``,
``from textdp.detect import Span`` reads the package ``textdp.detect``. The packages Python
runs implicitly before a submodule (``textdp/__init__.py`` before ``textdp.tables``) are not
counted, as in import-linter: every module would otherwise depend on every re-export.

The layers below are docs/architecture.md's layers, lowest first. A module may import its own
layer and the ones below it; the intended direction is "integrations depend on the core, never
the other way" inside the core too.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("textdp", "hf_textdp", "spacy_textdp")

# Lowest first. A pattern is a module name, or ``pkg.*`` for every module below ``pkg``; the
# longest matching pattern decides. No module inside a package gets a layer other than its
# package's (test_no_module_has_a_layer_apart_from_its_package).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Small utilities with no first-party dependency but each other.
    ("foundation", ("textdp._version", "textdp.errors", "textdp.threads", "textdp.validation",
                    "textdp.rng", "textdp.files", "textdp.records",
                    "textdp.report", "textdp.tokenization", "textdp.memory",
                    "textdp.model_packages", "textdp.budget", "textdp.surface",
                    "textdp.profile_urls",
                    # Device settings resolved in one place (torch, no first-party import).
                    "textdp.devices",
                    # The ε-grid grammar of the evaluations (command line and Python).
                    "textdp.grid",
                    # The versioned catalogue registries of mechanisms and detectors.
                    "textdp.registries",
                    # What each config setting is (help, choices, flag, front ends), declared
                    # on its field; the front-end default differences.
                    "textdp.settings")),
    # The public candidates and the nearest-neighbour decode over them; the encoders'
    # forward-pass precision (bfloat16 where the index's measurement finds it faster).
    ("tables and index", ("textdp.tables", "textdp.index", "textdp.precision")),
    # The embedded defaults (pipeline, table, default ε): built from tables, used by stages.
    ("defaults", ("textdp.defaults",)),
    # Private subword embeddings trained on the user's documents (and their training): the
    # similarity detector scores with them; they never reach the candidates.
    ("private embeddings", ("textdp.embeddings", "textdp.embeddings.*")),
    # Stage: which tokens are targets (the detectors, PII patterns, lists, normalised view).
    ("detect", ("textdp.detect", "textdp.detect.*", "textdp.targets")),
    # The person-annotated corpora the detectors are trained and evaluated on (readers of the
    # CoNLL files and the domains' splits); they read detect's span type and name lexicon, and
    # no detector imports them.
    ("corpora", ("textdp.corpora", "textdp.corpora.*")),
    # Stage: contextual vectors (transformer hidden states pooled to words) and their index.
    ("representation", ("textdp.contextual", "textdp.contextual_index")),
    # Stage: the mechanisms (a context mechanism such as dpmlm encodes with the contextual
    # helpers), and DPNR's torch module over the DPNR mechanism.
    ("mechanisms", ("textdp.mechanisms", "textdp.mechanisms.*", "textdp.dpnr")),
    # What replaces a target, below the configuration that checks it: the public name
    # vocabulary (from detect's name lexicon), the keyed sources of consistency="dataset",
    # the replace and consistency choices, addresses spelt from a text's names,
    # the DP releases of dates and ages (textdp.quasi), and the public place vocabulary
    # (from the shipped gazetteer).
    ("substitution", ("textdp.name_vocabulary", "textdp.keyed_sources", "textdp.replacement",
                      "textdp.addresses", "textdp.quasi", "textdp.place_vocabulary")),
    # What ε means on a space: automatic ε (the Privatizer's epsilon="auto") and the scale
    # figures of a report (common census names from detect's lexicon).
    ("calibration", ("textdp.calibration", "textdp.scale")),
    # One validated configuration of every setting (it checks mechanism, targets, tables).
    ("configuration", ("textdp.config",)),
    # The stages the privatizer wires, in their package: chunking and batching, target
    # selection, the contexts an encoder reads, the vectors draws start from, the candidate
    # space, and the substitution that draws, keeps names consistent and writes the surface.
    ("stages", ("textdp.pipeline", "textdp.pipeline.*")),
    # The wiring of the stages, and the package root that re-exports it.
    ("privatizer", ("textdp.privatizer", "textdp")),
    # Measurements and table releases built on the Privatizer.
    ("evaluation and release", ("textdp.evaluate", "textdp.evaluate.*", "textdp.release",
                                "textdp.audit")),
    # The training of detectors: it scores them on the dev splits with evaluate's scorer and
    # measures names surviving the whole Privatizer, so it sits above both. No detector
    # imports it.
    ("detector training", ("textdp.training", "textdp.training.*")),
    # One module per command; they read options and call the library, which never imports
    # them (nor argparse: test_argparse_only_in_the_command_line).
    ("command line", ("textdp.cli", "textdp.cli.*", "textdp.__main__")),
    # Integrations: they depend on the core, never the other way.
    ("front ends", ("textdp.spark", "hf_textdp", "hf_textdp.*", "spacy_textdp",
                    "spacy_textdp.*")),
)

# (importer, imported) pairs allowed to go upward, each with the reason. Keep this empty unless
# an import truly cannot point down; an entry that is no longer needed fails the test.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every first-party module: name → (file, is a package ``__init__``)."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            out[".".join(parts)] = (path, is_package)
    return out


MODULES = _modules()


def _known(name: str) -> str | None:
    """The first-party module ``name`` or its nearest first-party parent (an attribute)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] in PACKAGES and (found := _known(alias.name)):
                yield found
        return
    if node.level:  # relative: resolve against the importing package
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source.split(".")[0] not in PACKAGES:
        return
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        found = submodule if submodule in MODULES else _known(source)
        if found:
            yield found


def _graph() -> dict[str, dict[str, str]]:
    """importer → {imported: "file:line" of its first import}."""
    graph: dict[str, dict[str, str]] = {m: {} for m in MODULES}
    for module, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = path.relative_to(ROOT).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, is_package, node):
                    if target != module:
                        graph[module].setdefault(target, f"{where}:{node.lineno}")
    return graph


def _layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None  # (pattern length, layer)
    for rank, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            hit = module.startswith(pattern[:-1]) if pattern.endswith(".*") else \
                module == pattern
            if hit and (best is None or len(pattern) > best[0]):
                best = (len(pattern), rank)
    return None if best is None else best[1]


def _cycles(graph: dict[str, dict[str, str]]) -> list[tuple[list[str], set[str]]]:
    """Each strongly connected component of more than one module, with a shortest circle
    through its first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan; the graph has ~100 nodes, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)

    cycles = []
    for component in components:
        start = min(component)
        # Shortest path back to start inside the component (breadth first).
        previous: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in previous:
            following = []
            for v in frontier:
                for w in sorted(graph[v]):
                    if w in component and w not in previous:
                        previous[w] = v
                        following.append(w)
            frontier = following
        path = [start]
        while True:
            path.append(previous[path[-1]])
            if path[-1] == start:
                break
        cycles.append((path[::-1], component))
    return cycles


def test_every_module_has_a_layer() -> None:
    missing = sorted(m for m in MODULES if _layer_of(m) is None)
    assert not missing, f"add these modules to a layer of LAYERS in {__file__}: {missing}"
    stale = [pattern for _, patterns in LAYERS for pattern in patterns
             if not any(m == pattern or (pattern.endswith(".*") and m.startswith(pattern[:-1]))
                        for m in MODULES)]
    assert not stale, f"LAYERS names modules that do not exist (remove them): {stale}"


def test_no_import_circle() -> None:
    graph = _graph()
    found = []
    for cycle, component in _cycles(graph):
        steps = [f"{a} imports {b} ({graph[a][b]})" for a, b in itertools.pairwise(cycle)]
        found.append("\n    ".join(steps) + f"\n    (one circle of {len(component)} modules "
                     f"that reach each other: {', '.join(sorted(component))})")
    assert not found, "import circles:\n  " + "\n  ".join(found)


def test_no_upward_import() -> None:
    graph = _graph()
    upward = []
    used = set()
    for importer in sorted(graph):
        low = _layer_of(importer)
        for imported, where in sorted(graph[importer].items()):
            high = _layer_of(imported)
            if low is None or high is None or high <= low:
                continue
            if (importer, imported) in ALLOWED_UPWARD:
                used.add((importer, imported))
                continue
            upward.append(f"{where}: {importer} ({LAYERS[low][0]}) imports {imported} "
                          f"({LAYERS[high][0]})")
    assert not upward, "imports from a lower layer to a higher one:\n  " + "\n  ".join(upward)
    stale = sorted(set(ALLOWED_UPWARD) - used)
    assert not stale, f"ALLOWED_UPWARD entries no longer needed (remove them): {stale}"


def test_the_graph_is_read() -> None:
    """Guards the reader itself: known imports, lazy ones included, are found."""
    graph = _graph()
    assert "textdp.privatizer" in graph["spacy_textdp.component"]
    assert "textdp.pipeline.substitution" in graph["textdp.privatizer"]
    assert "textdp.calibration" in graph["textdp.privatizer"]  # a function-level import
    assert _layer_of("textdp.training.spacy_tagger") > _layer_of("textdp.detect.base")


def test_no_module_has_a_layer_apart_from_its_package() -> None:
    """A layer is a package or top-level modules: a module that must sit above its own
    package's layer belongs in another package (training code left ``detect/`` for
    ``textdp/training/``), not in a special layer of its own."""
    patterns = [(name, p) for name, group in LAYERS for p in group]
    nested = [(p, q, name) for name, p in patterns if not p.endswith(".*")
              for other, q in patterns if q.endswith(".*") and other != name
              and p.startswith(q[:-1])]
    assert nested == []


# Argparse belongs to the command line: the library takes plain Python arguments, so every
# command's work can be called without a parsed Namespace (and without the command line).
ARGPARSE_PACKAGE = "textdp.cli"


def _argparse_imports(path: Path) -> list[int]:
    """Lines of ``path`` that import argparse, in any form, at any depth (a lazy import, an
    ``if TYPE_CHECKING`` one or ``from argparse import Namespace`` count too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        if any(n == "argparse" or n.startswith("argparse.") for n in names):
            lines.append(node.lineno)
    return lines


def test_argparse_only_in_the_command_line() -> None:
    outside = []
    for module, (path, _) in sorted(MODULES.items()):
        if module == ARGPARSE_PACKAGE or module.startswith(ARGPARSE_PACKAGE + "."):
            continue
        outside += [f"{path.relative_to(ROOT).as_posix()}:{line} ({module})"
                    for line in _argparse_imports(path)]
    assert not outside, ("argparse imported outside textdp/cli (move the options and the "
                         "handler into a command module of textdp/cli):\n  "
                         + "\n  ".join(outside))
    # The check reads what it should: the command line's own imports are found.
    assert _argparse_imports(ROOT / "textdp" / "cli" / "args.py")
