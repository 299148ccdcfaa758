"""The ``dp_privatizer`` component: replaces target tokens of each Doc with DP substitutes.

It returns a *new* Doc whose words are the privatized words (same token count, same
whitespace), with entity spans kept and their labels, and the report in ``doc._.dp``. The
original text is kept nowhere on the returned Doc unless ``keep_original=True`` (then in
``doc._.dp_original``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import minibatch

from textdp.defaults import DEFAULT_EPSILON
from textdp.privatizer import DEFAULT_TARGETS, Privatizer

DEFAULT_CONFIG: dict[str, Any] = {
    "epsilon": DEFAULT_EPSILON,
    "mechanism": "mlaplace",
    "targets": list(DEFAULT_TARGETS),
    "representation": "static",
    "table": None,
    "seed": None,
    "device": "cpu",
    "keep_original": False,
    "batch_size": 256,
}

if not Doc.has_extension("dp"):
    Doc.set_extension("dp", default=None)
if not Doc.has_extension("dp_original"):
    Doc.set_extension("dp_original", default=None)


@Language.factory(
    "dp_privatizer",
    assigns=["doc._.dp", "doc.ents", "token.text"],
    requires=[],
    default_config=DEFAULT_CONFIG,
)
def make_dp_privatizer(
    nlp: Language,
    name: str,
    epsilon: float,
    mechanism: Any,
    targets: Any,
    representation: str,
    table: Any,
    seed: int | None,
    device: str,
    keep_original: bool,
    batch_size: int,
) -> DPPrivatizer:
    """Build the component from its config (see :class:`DPPrivatizer`)."""
    return DPPrivatizer(nlp, name, epsilon=epsilon, mechanism=mechanism, targets=targets,
                        representation=representation, table=table, seed=seed, device=device,
                        keep_original=keep_original, batch_size=batch_size)


class DPPrivatizer:
    """Replace person names (or other targets) with differentially private substitutes.

    Args:
        nlp: the pipeline; its vectors are the candidate table when it has any.
        name: component name.
        epsilon: ε per token.
        mechanism: registered mechanism name or ``{"name": ..., **args}``.
        targets: entity labels (``["PERSON"]``) or ``"all"``.
        representation: ``"static"``.
        table: ``None`` (the pipeline's vectors, else the embedded table) or a table file.
        seed: fixed seed (reproducible, not private against anyone who knows it).
        device: torch device for noise and decode.
        keep_original: store the input text in ``doc._.dp_original``.
        batch_size: docs per vectorised call in :meth:`pipe`.
    """

    def __init__(self, nlp: Language, name: str = "dp_privatizer", *,
                 epsilon: float = DEFAULT_EPSILON, mechanism: Any = "mlaplace",
                 targets: Any = DEFAULT_TARGETS, representation: str = "static",
                 table: Any = None, seed: int | None = None, device: str = "cpu",
                 keep_original: bool = False, batch_size: int = 256) -> None:
        self.name = name
        self.nlp = nlp
        self.cfg = {"epsilon": epsilon, "mechanism": mechanism, "targets": targets,
                    "representation": representation, "table": table, "seed": seed,
                    "device": device, "keep_original": keep_original, "batch_size": batch_size}
        use_own_vectors = table is None and nlp.vocab.vectors.shape[0] > 0
        own_table = None
        if use_own_vectors:
            from textdp.tables import EmbeddingTable

            own_table = EmbeddingTable.from_spacy_vectors(nlp.vocab, name=nlp.meta.get("name",
                                                                                        "spacy"))
        self.privatizer = Privatizer(
            epsilon=epsilon, mechanism=mechanism, targets=targets, representation=representation,
            table=own_table if own_table is not None else table, seed=seed, device=device,
            keep_original=keep_original, batch_size=batch_size, nlp=nlp,
        )

    def __call__(self, doc: Doc) -> Doc:
        return self._process([doc])[0]

    def pipe(self, stream: Iterable[Doc], *, batch_size: int | None = None) -> Iterator[Doc]:
        """Privatize docs a minibatch at a time (one vectorised call per minibatch)."""
        for batch in minibatch(stream, size=batch_size or self.cfg["batch_size"]):
            yield from self._process(list(batch))

    def _process(self, docs: list[Doc]) -> list[Doc]:
        has_ner = "ner" in self.nlp.pipe_names
        spans = None
        if self.privatizer.targets != "all" and (has_ner or any(d.has_annotation("ENT_IOB")
                                                               for d in docs)):
            from textdp.detect import normalise_label

            spans = [[(e.start, e.end, normalise_label(e.label_)) for e in d.ents]
                     for d in docs]
        results = self.privatizer.privatize_docs(docs, spans)
        return [self._rebuild(doc, words, report) for doc, (words, report) in
                zip(docs, results)]

    def _rebuild(self, doc: Doc, words: list[str], report: Any) -> Doc:
        """A new Doc with the private words, the same whitespace and the entity spans."""
        new = Doc(doc.vocab, words=words, spaces=[bool(t.whitespace_) for t in doc])
        new.ents = [Span(new, e.start, e.end, label=e.label_) for e in doc.ents]
        for attr in ("is_sent_start",):
            for t_old, t_new in zip(doc, new):
                if doc.has_annotation("SENT_START"):
                    setattr(t_new, attr, getattr(t_old, attr))
        new._.dp = report.to_dict()
        if self.cfg["keep_original"]:
            new._.dp_original = doc.text
        return new

    # ------------------------------------------------------------------ serialization
    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        """Deterministic bytes of the config (what ``datasets`` hashes)."""
        return srsly.msgpack_dumps({"cfg": self.cfg})

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> DPPrivatizer:
        cfg = srsly.msgpack_loads(data)["cfg"]
        self.__init__(self.nlp, self.name, **cfg)  # type: ignore[misc]
        return self

    def to_disk(self, path: Any, *, exclude: Iterable[str] = ()) -> None:
        from pathlib import Path

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "cfg.json", self.cfg)

    def from_disk(self, path: Any, *, exclude: Iterable[str] = ()) -> DPPrivatizer:
        from pathlib import Path

        cfg = srsly.read_json(Path(path) / "cfg.json")
        self.__init__(self.nlp, self.name, **cfg)  # type: ignore[misc]
        return self
