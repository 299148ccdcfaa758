"""Catalogue registries with versioned names and short aliases (mechanisms, detectors).

Every built-in entry is registered under a versioned name, spacy-llm style
(``textdp.mlaplace.v1``), and under its short name (``mlaplace``) as an alias that resolves to
the same object, so existing configs, command lines and entry points keep working. A later,
incompatible version is a new name (``textdp.mlaplace.v2``) and the old one stays.

Third-party packages add entries through the registry's entry-point group
(``textdp_mechanisms``, ``textdp_detectors``) under any name they choose.
"""

from __future__ import annotations

from typing import TypeVar

import catalogue

T = TypeVar("T")


def builtin_name(short: str, version: int = 1) -> str:
    """The versioned registry name of a built-in: ``textdp.<short>.v<version>``."""
    if not short or version < 1:
        raise ValueError(f"a versioned name needs a short name and a version >= 1, got "
                         f"{short!r}, {version!r}")
    return f"textdp.{short}.v{version}"


class VersionedRegistry(catalogue.Registry):
    """A :mod:`catalogue` registry (entry points included) whose entries may have a short alias.

    It is a plain ``catalogue.Registry`` for ``register``, ``get``, ``in`` and ``get_all``
    (which list aliases and versioned names alike); :meth:`names` lists each entry once, by its
    alias where it has one.

    Args:
        namespace: the catalogue namespace, e.g. ``("textdp", "mechanisms")``; the entry-point
            group is its parts joined by ``_`` (``textdp_mechanisms``).
    """

    def __init__(self, *namespace: str) -> None:
        if catalogue.check_exists(*namespace):
            raise catalogue.RegistryError(f"Namespace already exists: {namespace}")
        super().__init__(namespace, entry_points=True)
        #: Short alias → the versioned name it stands for.
        self.aliases: dict[str, str] = {}

    def register_versioned(self, name: str, func: T, *, alias: str | None = None) -> T:
        """Register ``func`` under ``name`` (versioned) and ``alias`` (short), both resolving
        to ``func``; returns ``func``. Re-registering a name replaces its entry."""
        self.register(name, func=func)
        if alias is not None and alias != name:
            self.register(alias, func=func)
            self.aliases[alias] = name
        return func

    def unregister(self, name: str) -> None:
        """Remove ``name`` and, for an alias or the name an alias stands for, the other one
        too (for tests that register an entry for a while). Entry points are not removed."""
        versioned = self.aliases.get(name, name)
        names = {name, versioned, *(a for a, v in self.aliases.items() if v == versioned)}
        for n in names:
            self.aliases.pop(n, None)
            if self._has(n):
                catalogue._remove((*self.namespace, n))

    def versioned(self, name: str) -> str:
        """The versioned name ``name`` stands for (``name`` itself when it is not an alias)."""
        return self.aliases.get(name, name)

    def short(self, name: str) -> str:
        """The short alias of the versioned name ``name`` (``name`` itself when it has none,
        or when it already is an alias)."""
        for alias, versioned in self.aliases.items():
            if versioned == name:
                return alias
        return name

    def names(self) -> list[str]:
        """Every entry once, sorted: its short alias where it has one, else the name it was
        registered under (a third-party entry point's own name)."""
        hidden = {v for a, v in self.aliases.items() if self._has(a)}
        return sorted(n for n in self.get_all() if n not in hidden)

    def _has(self, name: str) -> bool:
        return catalogue.check_exists(*self.namespace, name)


__all__ = ["VersionedRegistry", "builtin_name"]
