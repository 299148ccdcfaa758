"""Detector from any spaCy pipeline's named-entity recognizer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textdp.detect.base import Span, normalise_label
from textdp.detect.registry import register_detector
from textdp.tokenization import transient_strings

# Components that never feed the entity recognizer; skipped for speed.
_NOT_FOR_NER = ("tagger", "parser", "attribute_ruler", "lemmatizer", "morphologizer", "senter",
                "textcat", "textcat_multilabel", "dp_privatizer")


class SpacyNERDetector:
    """Runs a spaCy pipeline's ``ner`` (and whatever it listens to) on tokenized docs.

    Args:
        nlp: a loaded ``Language`` or a package name; ``None`` for the embedded default.
        batch_size: docs per ``nlp.pipe`` batch.
    """

    name = "spacy"

    def __init__(self, nlp: Any = None, *, batch_size: int = 256) -> None:
        self._nlp = nlp
        self.batch_size = batch_size

    @property
    def nlp(self) -> Any:
        if self._nlp is None or isinstance(self._nlp, str):
            if self._nlp is None:
                from textdp.defaults import load_pipeline

                self._nlp = load_pipeline()
            else:
                import spacy

                self._nlp = spacy.load(self._nlp)
            if "ner" not in self._nlp.pipe_names:
                raise ValueError("detector pipeline has no 'ner' component")
        return self._nlp

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        # The embedded default reloads in the receiving process; any other pipeline pickles.
        if _is_default(state["_nlp"]):
            state["_nlp"] = None
        return state

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        from spacy.tokens import Doc

        nlp = self.nlp
        disable = not_for_ner(nlp)
        out: list[list[Span]] = []
        # Docs of another tokenizer are re-created in this pipeline's vocab, in a memory zone
        # of its own: the words of the texts must not stay in its string store.
        with transient_strings(nlp):
            own = [d if d.vocab is nlp.vocab else
                   Doc(nlp.vocab, words=[t.text for t in d],
                       spaces=[bool(t.whitespace_) for t in d])
                   for d in docs]
            for doc in nlp.pipe(own, disable=disable, batch_size=self.batch_size):
                out.append([(e.start, e.end, normalise_label(e.label_)) for e in doc.ents])
        return out


def not_for_ner(nlp: Any) -> list[str]:
    """The components of ``nlp`` that its entity recognizer does not need, to skip: those of
    :data:`_NOT_FOR_NER`, and a shared embedding layer (``tok2vec``, ``transformer``) that
    only skipped components listen to.

    Why: en_core_web_md's ``ner`` has a ``tok2vec`` of its own; the shared one feeds only its
    tagger and parser, and ran for nothing (0.7 s of 1.8 s for 600 short texts). The
    entities are the same either way."""
    disable = [name for name in nlp.pipe_names if name in _NOT_FOR_NER]
    for name, pipe in nlp.pipeline:
        listeners = getattr(pipe, "listening_components", None)
        if listeners and all(listener in disable for listener in listeners):
            disable.append(name)
    return disable


@register_detector("spacy")
def spacy_ner(model: str | None = None) -> SpacyNERDetector:
    """The detector named ``"spacy"``: the NER of the embedded spaCy pipeline, or of the
    installed package or pipeline folder ``model`` (``"spacy:<package>"``, or the package
    name alone). Loaded on first use."""
    return SpacyNERDetector() if model is None else SpacyNERDetector(model)


def _is_default(nlp: Any) -> bool:
    from textdp import defaults

    return defaults.load_pipeline.cache_info().currsize > 0 and nlp is defaults.load_pipeline()
