"""The ``dp_privatizer`` pipeline component: replaces target tokens with DP substitutes.

Declared through the ``spacy_factories`` entry point, so ``nlp.add_pipe("dp_privatizer")``
works in a process that never imported textdp.

It returns a *new* ``Doc`` whose words are the privatized words: the input's tokens, except
that a name glued to its neighbours in one token (``C:\\Users\\John.Smith\\Desktop``,
``John<john@acme.com>``) is cut into a token of its own, so only its characters are replaced
(:func:`textdp.detect.glued.split_glued`, as in the core), and a PII value over several tokens
is one token; the same whitespace, the entity spans with their labels, the sentence boundaries,
and the tags, POS, morphology and lemmas of the tokens it left alone. The report is in ``doc._.dp``
(JSON-serialisable, so ``DocBin`` and ``nlp.pipe(n_process=...)`` carry it). The original text is
kept nowhere on the returned Doc (docs/architecture.md rule 7) unless ``keep_original=true``,
which puts it in ``doc._.dp_original``. Extension values and ``doc.user_data`` set by earlier
components are carried over, moved to the new tokens' offsets and screened for the original text
(see :class:`DPPrivatizer`).
"""

from __future__ import annotations

import copy
import copyreg
import inspect
import json
import math
import numbers
import os
import re
import unicodedata
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Optional

import numpy as np
from spacy import util
from spacy.attrs import (
    ENT_IOB,
    ENT_TYPE,
    IDX,
    LEMMA,
    LENGTH,
    MORPH,
    NORM,
    POS,
    SENT_START,
    SPACY,
    TAG,
)
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc, Span
from spacy.util import SimpleFrozenList, minibatch
from spacy.vocab import Vocab

from spacy_textdp.vectors import pipeline_table
from textdp.config import PrivatizerConfig, front_end_defaults
from textdp.defaults import carried_epsilon
from textdp.detect import Detector, normalise_label
from textdp.detect.normalise import is_normal, normalise_text
from textdp.mechanisms import Mechanism
from textdp.privatizer import Privatizer
from textdp.report import REVIEW_FIELD, Report, review_record
from textdp.settings import choices_of
from textdp.tables import EmbeddingTable

#: ``detector`` value: the pipeline's own entities only (no detector where it set them).
ENTS_ONLY = "ents"
# Token attributes copied from the input Doc. The first group describes a word, so it is copied
# for tokens left alone only: for a replaced token it was computed from the original word and
# would tell about it (a replaced token's lemma is its substitute, its norm the substitute's).
# Dependency arcs are not copied (they link replaced tokens too); the sentence boundaries they
# imply are. Neither is the tensor (contextual features of the original text).
WORD_ATTRS = (TAG, POS, MORPH, LEMMA, NORM)
DOC_ATTRS = (SENT_START, ENT_IOB, ENT_TYPE)
_ANNOTATION_NAME = {TAG: "TAG", POS: "POS", MORPH: "MORPH", LEMMA: "LEMMA", NORM: "NORM",
                    SENT_START: "SENT_START", ENT_IOB: "ENT_IOB", ENT_TYPE: "ENT_IOB"}

# The component's settings are PrivatizerConfig's, generated from its fields (every key, default
# and choice declared once, there: textdp.settings). Its defaults are the config's but where
# textdp.settings.FRONT_END_DEFAULTS says otherwise (fewer Docs per minibatch);
# ``table = null`` means the pipeline's own vectors and ``detector = "ents"`` the pipeline's
# entities (see DPPrivatizer).
DEFAULT_CONFIG: dict[str, Any] = front_end_defaults("spacy")
DEFAULT_BATCH_SIZE = DEFAULT_CONFIG["batch_size"]

# Settings with plain values, as serialized by ``to_bytes`` / ``to_disk``.
SETTINGS = tuple(DEFAULT_CONFIG)

# doc.user_data keys of extension values: ("._.", name, start_char, end_char); start and end are
# None for a Doc value, end is None for a Token value (start = token.idx).
_EXTENSION_KEY = "._."
# Set by this component on every Doc it returns; an input's values (an earlier privatizer's) are
# not carried: dp_original would bring back a text this component was told not to keep.
_OWN_EXTENSIONS = frozenset({"dp", "dp_original", REVIEW_FIELD})
# Nesting deeper than this is not screened: the value is dropped (also ends self-references).
_MAX_SCREEN_DEPTH = 32

if not Doc.has_extension("dp"):
    Doc.set_extension("dp", default=None)
if not Doc.has_extension("dp_original"):
    Doc.set_extension("dp_original", default=None)
# With review=true: whether the Doc holds a partial or low-confidence detection, and why
# (textdp.report.review_record); None otherwise.
if not Doc.has_extension(REVIEW_FIELD):
    Doc.set_extension(REVIEW_FIELD, default=None)


class PrivateDoc(Doc):
    """The Doc this component returns: a ``Doc`` in every way but pickling.

    spaCy pickles a Doc with its whole vocabulary, string store included, and inside a memory
    zone that store still holds every string of the original text (issue 37:
    ``pickle.dumps(doc)`` shipped the names). A ``PrivateDoc`` pickles as its own bytes
    (``Doc.to_bytes``: the strings of its tokens, labels and annotations only) plus its
    ``user_data``, and unpickles as a plain ``Doc`` on a fresh vocabulary of the same language
    (without the pipeline's vectors: run later components before pickling, or re-attach the
    Doc with ``Doc(nlp.vocab).from_bytes(doc.to_bytes())``).
    """


def _unpickle_private_doc(lang: str, data: bytes, user_data: dict[Any, Any]) -> Doc:
    doc = Doc(Vocab(lang=lang)).from_bytes(data)
    doc.user_data.update(user_data)
    return doc


def _pickle_private_doc(doc: PrivateDoc) -> tuple[Any, tuple[Any, ...]]:
    return _unpickle_private_doc, (doc.vocab.lang or "", doc.to_bytes(exclude=["user_data"]),
                                   dict(doc.user_data))


copyreg.pickle(PrivateDoc, _pickle_private_doc)


def make_dp_privatizer(nlp: Language, name: str, **settings: Any) -> DPPrivatizer:
    """Build the component from its config (the keys of :data:`DEFAULT_CONFIG`, see
    :class:`DPPrivatizer`)."""
    return DPPrivatizer(nlp, name, **settings)


def _annotation(name: str) -> Any:
    """The type spaCy validates setting ``name`` against: ``Literal[...]`` of its choices (with
    ``None`` where the config's default is ``None``), else ``Any`` (the config checks it)."""
    choices = choices_of(PrivatizerConfig, name)
    if not choices:
        return Any
    literal = Literal[choices]  # type: ignore[valid-type]
    return Optional[literal] if DEFAULT_CONFIG[name] is None else literal  # noqa: UP045


# spaCy validates a factory's config against its signature: the signature names every setting
# (from PrivatizerConfig), so an unknown or misspelt key fails in spaCy's config check, and a
# value outside a setting's choices in spaCy's validation, before the component is built.
make_dp_privatizer.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
    inspect.Parameter("nlp", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Language),
    inspect.Parameter("name", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str),
    *(inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(k))
      for k in SETTINGS),
], return_annotation=Pipe)
Language.factory(
    "dp_privatizer",
    # token.text: the component returns a new Doc with the private words. It reads doc.ents when
    # an earlier component set them and runs its own detector otherwise, so it requires nothing.
    assigns=["token.text", "token.lemma", "doc.ents", "doc._.dp", f"doc._.{REVIEW_FIELD}"],
    requires=[],
    default_config=DEFAULT_CONFIG,
)(make_dp_privatizer)


class DPPrivatizer(Pipe):
    """Replace person names (or other targets) with differentially private substitutes.

    Each target token's vector gets calibrated noise (or an exponential-mechanism draw) and is
    replaced by a word of a public table; ``doc._.dp`` reports the tokens replaced, ε per token
    and the composed bound. Settings are checked here, before any text is read.

    What earlier components stored in ``doc.user_data`` (extension values set with
    ``doc._.x = ...``, ``token._.y = ...``, ``span._.z = ...``, and plain keys) is carried over
    to the new Doc by this rule:

    * Doc extension values and plain ``user_data`` entries keep their keys.
    * Token extension values move to the same token in the new Doc (its new character offset).
      Those of a *replaced* token are never carried, whatever their type: like its tag, POS,
      morphology and lemma, they were computed from the original word.
    * Span extension values move to the same tokens (the new character offsets of the span's
      first and last token). A value whose offsets are not token boundaries of the input Doc
      cannot be placed and is dropped.
    * Screen, for every value above (and for plain keys): it is carried only if it is plain
      data (None, bools, numbers, strings, bytes, numpy arrays, and lists, tuples, sets and
      dicts of these, at most 32 levels deep) and no string in it (dict keys included; bytes
      read as UTF-8) contains the text of a replaced token, compared case-insensitively on the
      normalised text (NFKC, invisible characters removed, accents stripped: "zoe muller" is
      "Zoë Müller"). Other objects are dropped: their
      content cannot be checked, and a ``Span``/``Token``/``Doc`` points at the input Doc.
      The screen is conservative (a value holding a replaced word inside another word, as
      "Li" in "Lisbon", is dropped too), and it catches text only: a value *derived* from a
      name (a hash, a vector, a database id) stored outside the name's tokens is carried, so
      such a component belongs after ``dp_privatizer``.
    * ``doc._.dp`` and ``doc._.dp_original`` are this component's own: the input's values are
      replaced (``dp_original`` is None unless ``keep_original=true``).
    * Labels (of entities, of ``doc.spans`` groups and their spans, and ``doc.cats`` keys)
      are kept unless one names a replaced token as a whole word (by the same folding): that
      entity, span, group or category is dropped.

    The Doc returned is a :class:`PrivateDoc`: pickled, it carries its own strings only, not
    the vocabulary's string store (which holds the original text's strings).

    Extensions with a getter or a method store nothing; they compute on the new Doc.
    """

    def __init__(self, nlp: Language, name: str = "dp_privatizer", **settings: Any) -> None:
        """Initialize the component.

        nlp (Language): the pipeline; its static vectors are the candidate table when it has
            any and ``table`` is null.
        name (str): the component name.
        **settings: the keys of :data:`DEFAULT_CONFIG`, as
            :class:`textdp.config.PrivatizerConfig` documents them (null ``epsilon``: the
            default for the representation, the same for every front end), except:
            ``table``: null (the pipeline's own vectors, else the embedded table),
            ``"default"`` (the embedded table), a word2vec/GloVe/fastText file, or a table
            from a registered function (``textdp.word2vec_table.v1``,
            ``textdp.spacy_vectors_table.v1``, ``textdp.transformer_table.v1``); it must be
            public. ``detector``: as in the config, or a ``textdp.spacy_ner_detector.v1``
            reference; entities an earlier component set (``doc.ents``) are added to its spans
            (a union, through the same filters: greetings and abbreviations such as "Pt" or
            "lol" are never names, the allow list wins), never used instead of them.
            ``"ents"``: the earlier entities alone where they exist (the default detector only
            for Docs no ``ner`` annotated; the PII patterns always): the pipeline's NER
            decides, at little extra cost, and far more names survive outside newswire
            (README, "Name detection"). ``report_spans``: the targeted spans in ``doc._.dp``
            (offsets in the input Doc's text; detector ``"ents"`` for the pipeline's).
            ``batch_size``: Docs per vectorised call when :meth:`pipe` is given none.
            ``key``: saved with the pipeline's config when given there (it fixes every
            pseudonym: keep it like a seed). ``keep_original``: also store the input text in
            ``doc._.dp_original``.
        """
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise TypeError(f"unknown dp_privatizer setting(s) {', '.join(map(repr, unknown))}; "
                            f"the settings are {', '.join(SETTINGS)}")
        settings = {**DEFAULT_CONFIG, **settings}
        self.nlp = nlp
        self.name = name
        self.table_spec = settings["table"]
        self.detector_spec = settings["detector"]
        # "ents": the pipeline's entities alone where it set them (the default detector only
        # for Docs it did not annotate): faster, and weaker on text that is not newswire.
        self.ents_only = self.detector_spec == ENTS_ONLY
        _check_mechanism_epsilon(settings["mechanism"], settings["epsilon"])
        # Every setting is validated here, once (docs/architecture.md rule 5); the table is
        # resolved on first use, when the pipeline's vectors have been loaded.
        self.privatizer = Privatizer(
            nlp=nlp, **{**settings, "table": self.table_spec or "default",
                        "detector": None if self.ents_only else self.detector_spec})
        # The pipeline's own static vectors stand in for a null table only where a static
        # table is used at all.
        self._table_resolved = self.table_spec is not None or not self._uses_pipeline_vectors
        self._report_dicts: dict[Report, dict[str, Any]] = {}
        # The process that built the component; a copy in another process keys its stream.
        self._pid, self._keyed = os.getpid(), (0, 0)

    @property
    def config(self) -> PrivatizerConfig:
        """The validated settings of the privatizer this component runs."""
        return self.privatizer.config

    @property
    def keep_original(self) -> bool:
        """Whether the input text is stored in ``doc._.dp_original``."""
        return self.config.keep_original

    @property
    def batch_size(self) -> int:
        """Docs per vectorised call when :meth:`pipe` is given no batch size."""
        return self.config.batch_size

    @property
    def detector(self) -> Detector:
        """The detector (the privatizer's own: built once)."""
        return self.privatizer.selector.detector

    @property
    def _uses_pipeline_vectors(self) -> bool:
        return self.config.representation == "static" and \
            not self.privatizer.mechanism.reads_context

    # ------------------------------------------------------------------ properties
    @property
    def targets(self) -> tuple[str, ...] | str:
        """``"all"`` or the normalised entity labels that are replaced."""
        return self.privatizer.targets

    @property
    def epsilon(self) -> float:
        """ε per replaced token."""
        return self.privatizer.epsilon

    @property
    def table(self) -> EmbeddingTable:
        """The public candidate table (resolved and loaded on first use)."""
        return self._ready().table

    @property
    def cfg(self) -> dict[str, Any]:
        """The settings as plain JSON values (what ``to_bytes`` and ``to_disk`` store): the
        config's description, with the table and detector as this component was given them
        and the key as given (a pipeline's config holds it)."""
        out = {k: v for k, v in self.config.describe().items() if k in SETTINGS}
        out.update(table=_describe(self.table_spec), detector=_describe(self.detector_spec),
                   key=self.config.key)
        return out

    # ------------------------------------------------------------------ processing
    def __call__(self, doc: Doc) -> Doc:
        """Privatize one Doc.

        doc (Doc): the Doc from the previous components.
        RETURNS (Doc): a new Doc with the private words and ``doc._.dp``.
        """
        error_handler = self.get_error_handler()
        try:
            return self.privatize([doc])[0]
        except Exception as e:
            return error_handler(self.name, self, [doc], e)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int | None = None) -> Iterator[Doc]:
        """Privatize a stream of Docs, one vectorised call per minibatch.

        stream (Iterable[Doc]): the Docs.
        batch_size (int | None): Docs per minibatch (``nlp.pipe`` passes its own).
        YIELDS (Doc): new Docs in order. A minibatch that fails is handed to the error handler
            and never yielded with its original text.
        """
        error_handler = self.get_error_handler()
        for batch in minibatch(stream, size=batch_size or self.batch_size):
            docs = list(batch)
            try:
                yield from self.privatize(docs)
            except Exception as e:
                error_handler(self.name, self, docs, e)

    def privatize(self, docs: Sequence[Doc]) -> list[Doc]:
        """Privatize Docs in one vectorised call (no error handling; see :meth:`pipe`).

        docs (Sequence[Doc]): the Docs.
        RETURNS (list[Doc]): one new Doc per input.
        """
        privatizer = self._ready()
        self._key_process_stream(privatizer)
        # The core's selection path (textdp.pipeline.selection): PII merged into one token, the
        # detector's findings and the pipeline's entities through the same filters, one
        # mask per Doc, chosen once and handed to the substitution.
        docs = privatizer.prepare(docs)
        selection = privatizer.select(
            docs, entities=None if self.targets == "all" else self.pipeline_entities(docs),
            entities_only=self.ents_only)
        # A Doc's tokens may not be empty: each token of a place is a target of its own.
        results = privatizer.privatize_docs(docs, selection=selection, whole_units=False)
        return [self._rebuild(doc, words, np.fromiter((label is not None for label in mask),
                                                      bool, count=len(mask)), report)
                for doc, mask, (words, report) in zip(docs, selection.masks, results)]

    def _key_process_stream(self, privatizer: Privatizer) -> None:
        """In a process of ``nlp.pipe(n_process=...)`` (a process other than the one that built
        this component), with a fixed seed, draw from a stream keyed by the process's number:
        a forked or unpickled copy would otherwise restart the parent's seeded stream, and
        the processes would repeat each other's noise (every output twice)."""
        pid = os.getpid()
        if self.config.seed is None or pid == self._pid or self._keyed == (pid, id(privatizer)):
            return
        privatizer.use_stream("process", _process_number())
        self._keyed = (pid, id(privatizer))

    @staticmethod
    def pipeline_entities(docs: Sequence[Doc]) -> list[list[tuple[int, int, str]] | None]:
        """Per Doc, the entities an earlier component set (``doc.ents`` as ``(start, end,
        label)``, labels normalised), or ``None`` for a Doc no entity recognizer annotated.
        The selection joins them to the detector's findings through the same filters
        (:meth:`textdp.pipeline.selection.TargetSelector.select`): an extra signal, never a
        replacement for the detector unless ``detector="ents"``."""
        return [[(e.start, e.end, normalise_label(e.label_)) for e in doc.ents]
                if len(doc) and doc.has_annotation("ENT_IOB") else None for doc in docs]

    def _rebuild(self, doc: Doc, words: list[str], replaced: np.ndarray, report: Report) -> Doc:
        """A new Doc with the private words and what may be carried over from ``doc``."""
        spaces = doc.to_array(SPACY).astype(bool).tolist() if len(doc) else []
        new = PrivateDoc(doc.vocab, words=words, spaces=spaces)
        changed = replaced | (np.asarray(words, dtype=object) != [t.text for t in doc]) \
            if len(doc) else replaced
        # Labels are free strings an earlier component chose (an entity linker may label a
        # span with the name itself): one naming a replaced token is dropped (issue 37).
        needles = _needles(doc, changed)
        attrs = [a for a in (*WORD_ATTRS, *DOC_ATTRS) if doc.has_annotation(_ANNOTATION_NAME[a])]
        if attrs and len(doc):
            values = doc.to_array(attrs).reshape(len(doc), len(attrs))
            if replaced.any():
                for col, attr in enumerate(attrs):
                    if attr == LEMMA:
                        values[replaced, col] = [doc.vocab.strings.add(w) for w, r in
                                                 zip(words, replaced) if r]
                    elif attr in WORD_ATTRS:
                        values[replaced, col] = 0
            if ENT_TYPE in attrs and needles:
                iob, typ = attrs.index(ENT_IOB), attrs.index(ENT_TYPE)
                for ent in doc.ents:
                    if _names_one(ent.label_, needles):  # the entity is dropped: "O"
                        values[ent.start:ent.end, iob] = 2
                        values[ent.start:ent.end, typ] = 0
            new.from_array(attrs, values)
        # Labels and offsets only: kb_id / span ids may identify the original (entity linking).
        for key, group in doc.spans.items():
            if not _names_one(key, needles):
                new.spans[key] = [Span(new, s.start, s.end, label=s.label) for s in group
                                  if not _names_one(s.label_, needles)]
        new.cats = {k: v for k, v in doc.cats.items() if not _names_one(k, needles)}
        new._context = doc._context  # nlp.pipe(as_tuples=True) and n_process carry it
        if doc.user_data:
            _carry_user_data(doc, new, changed)
        new._.dp = self._report_dict(report)
        setattr(new._, REVIEW_FIELD, review_record(report.review))
        if self.keep_original:
            new._.dp_original = doc.text
        return new

    def _report_dict(self, report: Report) -> dict[str, Any]:
        # Reports of one component differ only in their counts: convert each once
        # (dataclasses.asdict costs more than the rest of a short Doc's rebuild).
        cached = self._report_dicts.get(report)
        if cached is None:
            if len(self._report_dicts) > 1024:
                self._report_dicts.clear()
            cached = self._report_dicts[report] = report.to_dict()
        return dict(cached)

    # ------------------------------------------------------------------ table
    def _ready(self) -> Privatizer:
        """The privatizer, with the table resolved: the pipeline's own vectors when ``table``
        is null and it has usable ones, else the embedded default table."""
        if not self._table_resolved:
            own = pipeline_table(self.nlp.vocab, name=_pipeline_label(self.nlp))
            if own is not None:
                self.privatizer = Privatizer(self.config, nlp=self.nlp, table=own)
            self._table_resolved = True
        return self.privatizer

    def initialize(self, get_examples: Callable[[], Iterable[Any]] | None = None, *,
                   nlp: Language | None = None) -> None:
        """Nothing to learn; the table is re-resolved, since ``[initialize] vectors`` may have
        just loaded the pipeline's vectors.

        get_examples: unused (spaCy passes it to every component).
        nlp (Language | None): the pipeline.
        """
        if self.table_spec is None and self._uses_pipeline_vectors:
            self.privatizer = Privatizer(self.config, nlp=self.nlp, table="default")
            self._table_resolved = False

    # ------------------------------------------------------------------ serialization
    def to_bytes(self, *, exclude: Iterable[str] = SimpleFrozenList()) -> bytes:
        """Serialize the settings (deterministic: equal settings give equal bytes).

        RETURNS (bytes): the serialized component.
        """
        serializers = {"cfg": lambda: _dump_settings(self.cfg)}
        return util.to_bytes(serializers, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = SimpleFrozenList()
                   ) -> DPPrivatizer:
        """Load the settings from bytes (see :meth:`from_disk` for which win).

        bytes_data (bytes): the data.
        RETURNS (DPPrivatizer): the component.
        """
        util.from_bytes(bytes_data, {"cfg": lambda b: self._restore(json.loads(b))},
                        exclude)
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()
                ) -> None:
        """Save the settings to a directory (``cfg``, JSON).

        path (str | Path): the directory.
        """
        path = util.ensure_path(path)
        serializers = {"cfg": lambda p: p.write_text(_dump_settings(self.cfg), encoding="utf-8")}
        util.to_disk(path, serializers, exclude)

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()
                  ) -> DPPrivatizer:
        """Load the settings from a directory.

        In a pipeline, the pipeline's config built this component (``spacy.load`` applies its
        ``config`` overrides there), so the config wins and a difference to the saved settings
        is only warned about: the component never silently runs with settings other than the
        ones ``nlp.config`` shows. A component outside a pipeline takes the saved settings.

        path (str | Path): the directory.
        RETURNS (DPPrivatizer): the component.
        """
        path = util.ensure_path(path)
        util.from_disk(path, {"cfg": lambda p: self._restore(json.loads(p.read_text("utf-8")))},
                       exclude)
        return self

    def _restore(self, saved: Mapping[str, Any]) -> None:
        current = self.cfg
        # Table and detector objects are described for provenance only (names depend on how
        # they were loaded); their settings are compared when plain (null, a name, a path).
        differ = sorted(k for k in SETTINGS if k in saved and saved[k] != current.get(k)
                        and not (isinstance(saved[k], dict) and isinstance(current.get(k), dict)
                                 and k in ("table", "detector")))
        if not differ:
            return
        if self.name in self.nlp.component_names and self.nlp.get_pipe(self.name) is self:
            warnings.warn(
                f"{self.name}: the pipeline config sets {', '.join(differ)} differently from "
                f"the saved component; using the config", UserWarning, stacklevel=3)
            return
        settings = {**current, "table": self.table_spec, "detector": self.detector_spec,
                    **{k: saved[k] for k in differ}}
        for key in ("table", "detector"):  # objects cannot be restored from plain values
            if isinstance(saved.get(key), dict):
                settings[key] = getattr(self, f"{key}_spec")
        if "epsilon" not in differ and "mechanism" not in differ and \
                isinstance(self.config.mechanism, Mechanism):
            settings["mechanism"] = self.config.mechanism  # a registered function's object
        self.__init__(self.nlp, self.name, **settings)  # type: ignore[misc]


# ---------------------------------------------------------------------- helpers
def _dump_settings(cfg: Mapping[str, Any]) -> str:
    # The standard library's json: it writes and reads floats exactly (srsly's ujson reads
    # 0.3 back as 0.30000000000000004), and sorted keys make the bytes deterministic.
    return json.dumps(cfg, indent=1, sort_keys=True, ensure_ascii=False)


def _check_mechanism_epsilon(mechanism: Any, epsilon: float | str | None) -> Any:
    """Reject a mechanism that carries an ε other than the component's: the config would show
    one value and the reports another. With ``epsilon`` null the mechanism's own ε applies."""
    own = carried_epsilon(mechanism)
    if own is not None and epsilon is not None and not (isinstance(epsilon, (int, float)) and
                                math.isclose(float(own), float(epsilon))):
        raise ValueError(
            f"the mechanism's epsilon ({own}) differs from the component's epsilon ({epsilon}): "
            "set epsilon once, on the component (leave it out of the mechanism, or write "
            "epsilon = ${components.<name>.epsilon})")
    return mechanism


def _carry_user_data(doc: Doc, new: Doc, replaced: np.ndarray) -> None:
    """Copy ``doc.user_data`` to ``new`` by the rule in :class:`DPPrivatizer`'s docstring:
    extension values moved to the new tokens' offsets, replaced tokens' values dropped, every
    value screened for the replaced tokens' text. ``replaced`` marks the tokens whose word was
    (or may have been) replaced."""
    needles = _needles(doc, replaced)
    old_start: dict[int, int] | None = None  # built on the first Token or Span key
    for key, value in doc.user_data.items():
        if isinstance(key, tuple) and len(key) == 4 and key[0] == _EXTENSION_KEY:
            _, name, start, end = key
            if start is None and end is None:  # a Doc value
                if name in _OWN_EXTENSIONS:
                    continue
                new_key: tuple[Any, ...] | None = key
            else:
                if old_start is None:
                    old_start, old_end, new_start, new_end = _token_boundaries(doc, new)
                if end is None:  # a Token value, at its token's first character
                    i = old_start.get(start)
                    placed = i is not None and i < len(doc) and not replaced[i]
                    new_key = (_EXTENSION_KEY, name, new_start[i], None) if placed else None
                else:  # a Span value, from its first token's start to its last token's end
                    i, k = old_start.get(start), old_end.get(end)
                    placed = i is not None and k is not None
                    new_key = (_EXTENSION_KEY, name, new_start[i], new_end[k]) if placed else None
            if new_key is not None and not _may_hold(value, needles):
                new.user_data[new_key] = _copy(value)
        elif not _may_hold(key, needles) and not _may_hold(value, needles):
            new.user_data[key] = _copy(value)


def _copy(value: Any) -> Any:
    # Containers are copied: the caller may still hold the input Doc (nlp(doc)).
    return value if isinstance(value, (str, bytes, numbers.Number)) or value is None \
        else copy.deepcopy(value)


def _token_boundaries(doc: Doc, new: Doc) -> tuple[dict[int, int], dict[int, int],
                                                    list[int], list[int]]:
    """Character offsets at token boundaries: in ``doc``, token start → index and token end →
    index + 1 (``len(doc)`` / 0 for the text's end / start, where empty spans sit); in ``new``,
    the same indices → offsets."""
    def bounds(d: Doc) -> tuple[list[int], list[int]]:
        if not len(d):
            return [0], [0]
        a = d.to_array([IDX, LENGTH]).astype(np.int64)
        return [*a[:, 0].tolist(), len(d.text)], [0, *(a[:, 0] + a[:, 1]).tolist()]

    old_starts, old_ends = bounds(doc)
    new_starts, new_ends = bounds(new)
    # Tokens are never empty, so no two boundaries of one kind share an offset.
    old_start = {c: i for i, c in enumerate(old_starts)}
    old_end = {c: k for k, c in enumerate(old_ends)}
    return old_start, old_end, new_starts, new_ends


def _fold(text: str) -> str:
    """``text`` as the screen compares it: normalised (NFKC, invisible characters removed,
    whitespace runs collapsed), case-folded and without accents ("Zoë Müller" and "zoe
    muller" fold alike: a copy with its accents stripped is still the name, issue 37)."""
    folded = (text if is_normal(text) else normalise_text(text).text).casefold()
    if folded.isascii():
        return folded
    return "".join(c for c in unicodedata.normalize("NFKD", folded)
                   if not unicodedata.combining(c))


def _needles(doc: Doc, replaced: np.ndarray) -> frozenset[str]:
    """The folded texts of the replaced tokens (what the screen looks for)."""
    needles = frozenset(_fold(doc[i].text) for i in np.flatnonzero(replaced).tolist())
    return frozenset(n for n in needles if n)


def _names_one(label: str, needles: frozenset[str]) -> bool:
    """Whether a label holds one of ``needles`` as a whole word (a label "PERSON" is kept
    beside a replaced "Per"; "Zephyrine Quibbleton" is not beside a replaced "Zephyrine")."""
    if not needles or not label:
        return False
    folded = _fold(label)
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", folded) for n in needles)


def _may_hold(value: Any, needles: frozenset[str], depth: int = 0) -> bool:
    """Whether ``value`` may hold one of ``needles`` (folded texts of replaced tokens): it
    does when a string in it contains one, and may when it is not plain data (its content
    cannot be checked) or nests deeper than ``_MAX_SCREEN_DEPTH``."""
    if value is None or isinstance(value, (bool, numbers.Number, np.bool_)):
        return False
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, str):
        if not needles:
            return False
        folded = _fold(value)
        return any(n in folded for n in needles)
    if depth >= _MAX_SCREEN_DEPTH:
        return True
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biufcmM":
            return False
        value = value.ravel().tolist()
    if isinstance(value, dict):
        return any(_may_hold(k, needles, depth + 1) or _may_hold(v, needles, depth + 1)
                   for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_may_hold(v, needles, depth + 1) for v in value)
    return True


def _describe(spec: Any) -> Any:
    """A table / detector setting as a plain value: itself when plain, else a description."""
    if spec is None or isinstance(spec, (str, int, float, bool)):
        return spec
    if isinstance(spec, EmbeddingTable):
        return {"table": spec.name, "candidates": len(spec), "dim": spec.dim}
    return {type(spec).__name__: getattr(spec, "name", None)}


def _process_number() -> int:
    """This process's number among the processes its parent started (``multiprocessing``
    numbers them 1, 2, ... in the order they start, so a script's run keys alike each time);
    the process id where it has none."""
    import multiprocessing

    identity = multiprocessing.current_process()._identity
    return int(identity[-1]) if identity else os.getpid()


def _pipeline_label(nlp: Language) -> str:
    return f"{nlp.meta.get('lang', nlp.lang)}_{nlp.meta.get('name', 'pipeline')}"
