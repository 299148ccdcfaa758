"""PrivatizerConfig: every setting of a privatizer once, validated once, before any text is read.

Every front end reads and writes this one object: :class:`textdp.privatizer.Privatizer` is
built from it, the spaCy component stores :meth:`PrivatizerConfig.describe` as its ``cfg``,
``hf_textdp.Privatizer`` pickles :meth:`PrivatizerConfig.to_dict` and fingerprints it, Spark
ships it to the executors, and ``textdp privatize`` generates its options from its fields
(:mod:`textdp.settings`). The ε default per representation is chosen here (through
:func:`textdp.defaults.default_epsilon`), so the same inputs give the same effective ε
everywhere.

Building a config loads nothing (no model, no table) and reads no text (docs/architecture.md,
rule 5).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from textdp.budget import BUDGET_POLICIES
from textdp.calibration import check_auto
from textdp.contextual import DEFAULT_LAYER
from textdp.defaults import DEFAULT_CONTEXTUAL_EPSILON, DEFAULT_EPSILON, default_epsilon
from textdp.detect.pii import check_region
from textdp.detect.spec import parse_detector_spec
from textdp.index import BACKENDS
from textdp.keyed_sources import resolve_key
from textdp.mechanisms import Mechanism, create_mechanism, registry
from textdp.precision import PRECISIONS
from textdp.quasi import DEFAULT_EPSILON_AGE, DEFAULT_EPSILON_DATE
from textdp.replacement import CONSISTENCY, NAME_ORIGINS, REPLACEMENTS, check_replace
from textdp.settings import choices_of, front_end_default, setting, settings_of, value_type
from textdp.tables import EmbeddingTable, check_table_spec
from textdp.targets import DEFAULT_TARGETS, PII_LABELS, resolve_targets
from textdp.validation import check_bool, check_choice, check_positive, check_positive_int

Representation = Literal["static", "contextual"]
Surface = Literal["input", "table"]
REPRESENTATIONS: tuple[str, ...] = get_args(Representation)
SURFACES: tuple[str, ...] = get_args(Surface)
# The settings that only tune the detector (meaningless with targets="all").
_DETECTOR_TUNING = ("allow", "deny", "threshold")


@dataclass(frozen=True, kw_only=True)
class PrivatizerConfig:
    """The settings of a :class:`~textdp.privatizer.Privatizer`, validated at construction.

    Each field declares its setting once: its default and type here, its short help, choices,
    command-line flag and the front ends that do not offer it in its metadata
    (:func:`textdp.settings.setting`); the command line and the spaCy factory are generated
    from them (docs/architecture.md, "Settings"). What each setting means in full:

    Args:
        epsilon: ε per draw (metric DP: the bound scales with the distance of two inputs in
            the table). ``None`` takes the mechanism's own ε or the default for the
            representation (:func:`textdp.defaults.default_epsilon`: names are replaced in
            ≥ 99 % of draws on the default table); the config then holds the effective value.
            ``"auto"``: the ε at which the median table word comes back unchanged in
            ``target_unchanged`` of the draws, calibrated on the table by the privatizer
            (:func:`textdp.calibration.calibrate_epsilon`, cached on disk); static only.
        mechanism: a registered name (``textdp mechanisms``), a ``{"name": ..., **args}``
            mapping, or a :class:`~textdp.mechanisms.base.Mechanism`.
        targets: ``["PERSON"]`` (default), ``"all"`` (every word token), or entity labels
            and presets (:data:`textdp.targets.PRESETS`: ``"names"``, ``"pii"``, ...);
            held normalised (a tuple of labels, or ``"all"``).
        representation: ``"static"`` (table vectors) or ``"contextual"`` (a transformer
            layer's hidden states pooled to words, :mod:`textdp.contextual`).
        table: ``None``/``"default"`` (the embedded pipeline's vectors), a word2vec/GloVe/
            fastText file, or an :class:`~textdp.tables.EmbeddingTable` (static only).
        detector: ``None`` (the default ensemble: the packaged MiniLM name tagger, recall
            rules and names in handles and e-mail addresses, on a normalised view of the
            text), a detector name (``"spacy"``, ``"trained+spacy+rules"``, …), a spaCy
            package name, or a detector object.
        seed: fixed seed for reproducible output. NOT private against anyone who knows it.
        secure: draw every random bit from ChaCha20 keyed from ``os.urandom`` and re-keyed per
            batch (:mod:`textdp.rng`); excludes ``seed``.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"auto"`` (resolved by the
            privatizer, so one config serves machines with and without a GPU).
        keep_original: also return the original text (off by default, docs/architecture.md rule 7).
        index: nearest-neighbour backend (:data:`textdp.index.BACKENDS`; ``auto`` times the
            CPU ones on the table and takes the fastest).
        batch_size: texts per vectorised batch.
        clip_norm: project every vector (inputs and candidates) onto the ball of this radius
            before the mechanism: ``"median"`` (the table's median norm), a number, or
            ``None``. Clipping is 1-Lipschitz, so the ε·d guarantee holds for the table's
            original distances; it stops very long vectors from surviving the noise.
        max_epsilon_per_text: a budget for the composed ε of one text. With
            ``budget_policy="truncate"`` the first ⌊budget/ε⌋ draws of a text go through the
            mechanism and the rest are made around a public stand-in vector that does not
            depend on them (counted in ``tokens_redacted``); with ``"refuse"`` an over-budget
            text raises ``ValueError`` naming its row, before anything is drawn for the batch.
        epsilon_date: with ``DATE`` targets, ε per day of the one two-sided geometric
            offset that shifts every date of a text (:mod:`textdp.quasi`).
        epsilon_age: with ``AGE`` targets, ε per year of the two-sided geometric noise on
            each distinct age of a text.
        phone_region: the region (ISO 3166 alpha-2) whose national format ``PHONE`` reads
            numbers written without ``+`` and a country code in (``phonenumbers``' default
            region; ``"US"``): ``"DE"`` finds ``030 8063654``.
        budget_policy: ``"truncate"`` or ``"refuse"``.
        surface: ``"input"`` gives each substitute the casing class and the form (word,
            @handle, e-mail address) of the token it replaces (released without noise: the
            guarantee holds between inputs of the same casing class and form);
            ``"table"`` writes substitutes as the public table spells them.
        model: contextual: a ``transformers`` encoder folder or hub name (default: the
            embedded all-MiniLM-L6-v2).
        layer: contextual: the hidden state used (``0`` input embeddings, ``1`` the first
            transformer layer).
        precision: contextual: the encoder's forward-pass precision, ``"auto"`` (bfloat16
            on a GPU and on a CPU where it is measured faster, else float32), ``"float32"``,
            ``"bfloat16"`` or ``"float16"`` (GPU only); vectors are float32 either way.
        contextual_index: contextual: the public candidates, a folder written by ``textdp
            build-index --contextual`` or a ContextualIndex; ``None`` for the model's
            whole-word vocabulary encoded by the same layer.
        target_unchanged: with ``epsilon="auto"``, the target P(word unchanged) in (0, 1)
            (``None``: 0.01).
        replace: ``"name"`` (person targets decode to the public name vocabulary, first names
            to first names and surnames to surnames), ``"word"`` (any public word of the
            table), ``"tag"`` (a placeholder such as ``[PERSON]``; no draw, no ε). ``None``:
            ``"name"`` where the mechanism can decode to a subset of its candidates, else
            ``"word"`` (:attr:`effective_replace`). Decoding to a public subset is
            post-processing: the guarantee is the same.
        name_origin: with ``replace="name"``: ``"any"`` (a person name draws among the
            names of every origin) or ``"keep"`` (among the names of its origin group, a
            coarse public label of the name lists, e.g. ``"south_asian"``, released; a name
            no list holds draws across all origins).
        consistency: which mentions share one draw: ``"document"`` (one draw per distinct
            name per text, ε charged once per name), ``"dataset"`` (one draw per distinct name
            per scope, derived from ``key``), or ``"mention"`` (every mention draws). Shared
            draws release which mentions share a name.
        key: the secret of ``consistency="dataset"`` (bytes, or a string of ≥ 16 characters),
            as sensitive as ``seed``. ``None``: derived from ``seed``, else drawn from the OS
            once per privatizer.
        allow: words or phrases never targeted (a list, or ``"@file"``).
        deny: words or phrases always targeted (as ``PERSON``).
        threshold: drop the detector's scored spans below this score.
        exclude: words never written as substitutes: ``"default"`` (the shipped list of slurs
            and loaded terms), your own words, or ``None``. Excluding candidates of a fixed
            public list is post-processing.
        report_spans: add the targeted spans to each report (offsets, label, detector, score;
            never the text).
        review: add the per-record review signal to each report (``Report.review``): which
            texts hold a name targeted at some mentions only or a person span scored near the
            detector's threshold, as reason codes with counts, never text; the command line
            writes it to ``--review-field``, datasets and Spark to a ``review`` column, the
            spaCy component to ``doc._.dp_review``.
    """

    # Each setting once: its default, type, help, choices, flag and front ends (textdp.settings;
    # the command line and the spaCy factory are generated from these, docs/architecture.md
    # "Settings"). The docstring above says what each one means in full.
    epsilon: float | str | None = field(default=None, metadata=setting(
        parse="epsilon", metavar="EPSILON",
        help=f"ε per token (default {DEFAULT_EPSILON:g}; {DEFAULT_CONTEXTUAL_EPSILON:g} with "
             "`representation` contextual), or 'auto' to calibrate it to `target_unchanged` "
             "on the table"))
    mechanism: Any = field(default="mlaplace", metadata=setting(
        parse="mechanism",
        help='registered name (`textdp mechanisms`) or JSON like {"name": "mahalanobis", '
             '"lam": 0.2}'))
    targets: Any = field(default=DEFAULT_TARGETS, metadata=setting(
        metavar="LABELS",
        help="'all' (every word), a preset (names; pii: names and identifiers; quasi: pii, "
             "dates and ages) or "
             "comma-separated labels: PERSON, spaCy's entity labels, "
             f"PII ({', '.join(PII_LABELS)}); unknown labels are refused"))
    representation: Representation = field(default="static", metadata=setting(
        help="static table vectors or a transformer layer's hidden states"))
    table: Any = field(default=None, metadata=setting(
        metavar="FILE",
        help="word2vec/GloVe/fastText file of public candidates (default: the embedded "
             "vectors)"))
    detector: Any = field(default=None, metadata=setting(
        help="detector: ensemble (default: minilm+rules+handles on a normalised view), "
             "minilm, trained, spacy, rules, handles, similarity, a+b unions, a spaCy "
             "package or hf:<model>"))
    seed: int | None = field(default=None, metadata=setting(
        help="fixed seed: reproducible, NOT private against anyone who knows it"))
    secure: bool = field(default=False, metadata=setting(
        help="draw every random bit from ChaCha20 keyed from the OS, re-keyed per batch "
             "(excludes `seed`)"))
    device: Any = field(default="cpu", metadata=setting(
        help="cpu, cuda, cuda:N or auto"))
    keep_original: bool = field(default=False, metadata=setting(
        help="also return the original text",
        not_on={"cli": "the command line writes a new file and leaves its input as it is"}))
    index: str = field(default="auto", metadata=setting(
        choices=BACKENDS, help="nearest-neighbour backend (auto: the fastest on the table)"))
    batch_size: int = field(default=512, metadata=setting(
        help="texts per vectorised batch"))
    clip_norm: float | str | None = field(default="median", metadata=setting(
        parse="clip_norm",
        help="clip vectors to this radius before the mechanism: 'median' (the table's median "
             "norm), a radius, or 'none'"))
    max_epsilon_per_text: float | None = field(default=None, metadata=setting(
        help="budget for the composed ε of one text (see `budget_policy`)"))
    epsilon_date: float = field(default=DEFAULT_EPSILON_DATE, metadata=setting(
        help="with DATE targets (preset quasi): ε per day of the one DP offset that shifts "
             "every date of a text (textdp.quasi)"))
    epsilon_age: float = field(default=DEFAULT_EPSILON_AGE, metadata=setting(
        help="with AGE targets (preset quasi): ε per year of the noise on each age"))
    phone_region: str = field(default="US", metadata=setting(
        help="region (ISO 3166 alpha-2, e.g. DE) whose national format PHONE reads numbers "
             "written without + and a country code in (phonenumbers' default region)"))
    budget_policy: str = field(default="truncate", metadata=setting(
        choices=BUDGET_POLICIES,
        help="over budget: redact the rest at no cost, or stop naming the text"))
    surface: Surface = field(default="input", metadata=setting(
        help="casing of substitutes: that of the replaced token (released without "
             "noise) or as the public table spells them"))
    model: str | None = field(default=None, metadata=setting(
        help="contextual: transformers encoder folder or hub name (default: the "
             "embedded all-MiniLM-L6-v2)"))
    layer: int = field(default=DEFAULT_LAYER, metadata=setting(
        help="contextual: hidden-state layer, 0 = input embeddings"))
    precision: str = field(default="auto", metadata=setting(
        choices=PRECISIONS,
        help="contextual: the encoder's forward-pass precision (auto: bfloat16 on a GPU and on "
             "a CPU where it is measured faster, else float32)"))
    contextual_index: Any = field(default=None, metadata=setting(
        metavar="FOLDER",
        help="contextual: candidate index folder from `textdp build-index --contextual` "
             "(default: the model's vocabulary; `index` is the nearest-neighbour backend)"))
    target_unchanged: float | None = field(default=None, metadata=setting(
        help="with `epsilon` auto: target P(word unchanged) (default 0.01)"))
    replace: str | None = field(default=None, metadata=setting(
        choices=REPLACEMENTS, check=False,  # check_replace names the mechanism
        help="what a person name becomes: a public name (default where the mechanism can), "
             "any public word, or a [PERSON] tag (no ε)"))
    name_origin: str = field(default="any", metadata=setting(
        choices=NAME_ORIGINS,
        help="with `replace` name: draw a person name's pseudonym across all origins, or "
             "keep its origin group (a coarse public label of the name lists, released)"))
    consistency: str = field(default="document", metadata=setting(
        choices=CONSISTENCY,
        help="one draw per distinct name per text, per dataset (keyed: the same in every run "
             "with the same `key`), or per mention"))
    key: bytes | str | None = field(default=None, repr=False, metadata=setting(
        flag="--key-file", parse="key_file", metavar="FILE",
        help="with `consistency` dataset: the secret key (≥ 16 bytes; as sensitive as a "
             "seed), on the command line a file holding it; default: a key from `seed`, else "
             "a fresh one per run"))
    allow: Any = field(default=None, metadata=setting(
        metavar="WORDS",
        help="never targeted: comma-separated words or phrases, or @FILE (one a line)"))
    deny: Any = field(default=None, metadata=setting(
        metavar="WORDS", help="always targeted: comma-separated or @FILE"))
    threshold: float | None = field(default=None, metadata=setting(
        help="drop detected spans scored below this (0-1); unscored spans (rules, "
             "handles, patterns, lists) are kept"))
    exclude: Any = field(default="default", metadata=setting(
        parse="exclude", metavar="WORDS",
        help="words never written as substitutes: 'default' (slurs and loaded terms), "
             "comma-separated words, @FILE, or 'none'"))
    report_spans: bool = field(default=False, metadata=setting(
        help="list the targeted spans (offsets, label, detector, score; never the "
             "text) in each report"))
    review: bool = field(default=False, metadata=setting(
        help="flag records to route to a person: a name targeted at some mentions only, or "
             "a person span scored near the threshold (reason codes and counts; never the "
             "text)"))

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        auto = check_auto(self.epsilon, self.mechanism, self.representation,
                          self.target_unchanged)
        # The mechanism is built once here to check its arguments; with "auto" a stand-in ε
        # validates everything else, the privatizer calibrates the real one on the table.
        epsilon = 1.0 if auto else self.epsilon if self.epsilon is not None else \
            default_epsilon(self.representation, self.mechanism)
        mechanism = create_mechanism(self.mechanism, epsilon)
        if not mechanism.substitutes:
            raise ValueError(f"mechanism {mechanism.name!r} releases representations, not "
                             "text; use it through textdp.dpnr.DPNR")
        if not auto:
            put("epsilon", mechanism.epsilon)
        if not isinstance(self.mechanism, Mechanism) or _registered(self.mechanism):
            # One spelling per mechanism ("mlaplace", {"name": "mlaplace"}, a versioned alias,
            # an unprepared instance of a registered class): equal configs compare, pickle and
            # fingerprint alike, and each privatizer builds its own. ε lives in `epsilon`.
            put("mechanism", _plain("mechanism", mechanism))
        put("targets", resolve_targets(self.targets))
        if isinstance(self.detector, str):  # its names, before any model loads
            parse_detector_spec(self.detector, param="detector")
        for name, (choices, nullable) in _checked_choices().items():  # each field's choices
            value = getattr(self, name)
            if not (nullable and value is None):
                check_choice(name, value, choices)
        table = check_table_spec(self.table)
        put("table", None if table == "default" else table)  # one spelling of the default
        put("batch_size", check_positive_int("batch_size", self.batch_size))
        if self.clip_norm not in (None, "median"):
            put("clip_norm", check_positive("clip_norm", self.clip_norm))
        if self.max_epsilon_per_text is not None:
            put("max_epsilon_per_text",
                check_positive("max_epsilon_per_text", self.max_epsilon_per_text))
        put("epsilon_date", check_positive("epsilon_date", self.epsilon_date))
        put("epsilon_age", check_positive("epsilon_age", self.epsilon_age))
        put("phone_region", check_region(self.phone_region))
        check_replace(self.replace, mechanism.decodes_subsets, mechanism.name)
        if self.model is not None:
            put("model", os.fspath(self.model))
        for name in _switches():  # "false" is truthy
            put(name, check_bool(name, getattr(self, name)))
        self._check_combinations(mechanism, auto)

    def _check_combinations(self, mechanism: Mechanism, auto: bool) -> None:
        """Settings that are valid alone but not together."""
        in_context = mechanism.reads_context
        if self.key is not None:
            if self.consistency != "dataset":
                raise ValueError("key is the secret of consistency='dataset'; it does not "
                                 f"apply to consistency={self.consistency!r}")
            resolve_key(self.key, self.seed)  # its type and length
        if self.consistency == "dataset" and (self.representation != "static" or in_context):
            # A contextual vector (or a context mechanism's draw) depends on the text around
            # a name, so one key cannot give one name the same pseudonym in two texts.
            raise ValueError("consistency='dataset' needs representation='static' and a "
                             "vector mechanism: in context a name's draw depends on its text")
        if self.targets == "all" and self.detector is not None:
            raise ValueError("detector finds the targets; with targets='all' every word is a "
                             "target and no detector runs")
        if self.targets == "all" and any(getattr(self, k) is not None
                                         for k in _DETECTOR_TUNING):
            raise ValueError("allow, deny and threshold tune the detector; with "
                             "targets='all' every word is a target")
        given = [name for name, value, default in (
            ("model", self.model, None), ("layer", self.layer, DEFAULT_LAYER),
            ("precision", self.precision, "auto"),
            ("contextual_index", self.contextual_index, None)) if value != default]
        if in_context:
            if given:
                raise ValueError(f"{', '.join(given)}: not for mechanism "
                                 f"{mechanism.name!r}, which draws with its own model "
                                 "(give it as the mechanism's model argument)")
        elif self.representation != "contextual":
            if given:
                raise ValueError(f"{', '.join(given)}: only for representation='contextual', "
                                 f"not for {self.representation!r}")
        else:
            if self.table not in (None, "default"):
                raise ValueError("table applies to representation='static'; the candidates "
                                 "of representation='contextual' are its contextual_index")
            if mechanism.table_words_only:
                raise ValueError(f"mechanism {mechanism.name!r} guarantees privacy between "
                                 "words of its table only; use representation='static' (or "
                                 "mlaplace/projection for contextual vectors)")
        if auto and in_context:
            raise ValueError(f"epsilon='auto' calibrates vector mechanisms on a table; give "
                             f"mechanism {mechanism.name!r} a number")

    # ------------------------------------------------------------------ derived values
    @property
    def auto_epsilon(self) -> bool:
        """Whether ε is calibrated on the table (``epsilon="auto"``)."""
        return self.epsilon == "auto"

    @property
    def effective_replace(self) -> str:
        """What replaces a target: ``replace``, or for ``None`` ``"name"`` where the mechanism
        can decode to a subset of its candidates, else ``"word"`` (a privatizer whose table
        turns out to have no name vocabulary falls back to ``"word"`` when it was not asked
        for ``"name"``)."""
        mechanism = self.build_mechanism(1.0 if self.auto_epsilon else None)
        return check_replace(self.replace, mechanism.decodes_subsets, mechanism.name)

    def build_mechanism(self, epsilon: float | None = None) -> Mechanism:
        """A new mechanism of this config (``epsilon``: the calibrated ε of ``"auto"``)."""
        if self.auto_epsilon and epsilon is None:
            raise ValueError("epsilon='auto': the privatizer calibrates ε on its table first")
        return create_mechanism(self.mechanism, self.epsilon if epsilon is None else epsilon)

    # ------------------------------------------------------------------ (de)serialization
    def with_changes(self, **changes: Any) -> PrivatizerConfig:
        """A copy with ``changes`` (validated like a new config)."""
        return from_mapping({**self.to_dict(), **changes})

    def to_dict(self) -> dict[str, Any]:
        """Every setting as held (objects such as a table or a mechanism stay objects):
        ``PrivatizerConfig.from_dict(c.to_dict()) == c``; picklable when its values are."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, settings: Mapping[str, Any]) -> PrivatizerConfig:
        """A config from a mapping of settings; an unknown key raises ``TypeError`` naming it
        and the known ones."""
        return from_mapping(settings)

    def describe(self) -> dict[str, Any]:
        """Every setting as a plain JSON value: a mechanism object as its name and
        parameters, a table or index object as its fingerprint, a detector object as its
        class name, the key as a digest (never the secret). What configs, reports and
        fingerprints show."""
        out = {}
        for name, value in self.to_dict().items():
            out[name] = _plain(name, value)
        return out

    def fingerprint(self) -> str:
        """A stable digest of :meth:`describe` (the same settings give the same fingerprint in
        every process and on every machine)."""
        blob = json.dumps(self.describe(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


@functools.cache
def _checked_choices() -> dict[str, tuple[tuple[Any, ...], bool]]:
    """The settings the config checks against their choices (textdp.settings), each with its
    choices and whether ``None`` is allowed (a ``None`` default)."""
    out = {}
    for name, (f, meta) in settings_of(PrivatizerConfig).items():
        choices = choices_of(PrivatizerConfig, name)
        if meta.check and choices:
            out[name] = (choices, f.default is None)
    return out


@functools.cache
def _switches() -> tuple[str, ...]:
    """The on/off settings (typed ``bool``)."""
    return tuple(name for name in settings_of(PrivatizerConfig)
                 if value_type(PrivatizerConfig, name) is bool)


def front_end_defaults(front_end: str) -> dict[str, Any]:
    """Every setting ``front_end`` offers (``"core"``, ``"cli"``, ``"spacy"``, ``"datasets"``,
    ``"spark"``) with its default there: the config's, or the deliberate difference of
    :data:`textdp.settings.FRONT_END_DEFAULTS`. Tuples are lists (as a spaCy config or JSON
    holds them)."""
    out = {}
    for name, (f, meta) in settings_of(PrivatizerConfig).items():
        if meta.offered_on(front_end):
            default = front_end_default(front_end, name, f.default)
            out[name] = list(default) if isinstance(default, tuple) else default
    return out


def from_mapping(settings: Mapping[str, Any]) -> PrivatizerConfig:
    """A :class:`PrivatizerConfig` from a mapping; an unknown key is a ``TypeError`` that
    names it and the known ones (a misspelt setting is never ignored)."""
    known = {f.name for f in dataclasses.fields(PrivatizerConfig)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise TypeError(f"unknown privatizer setting(s) {', '.join(map(repr, unknown))}; "
                        f"the settings are {', '.join(sorted(known))}")
    return PrivatizerConfig(**settings)


def _plain(name: str, value: Any) -> Any:
    """One setting as a plain JSON value (see :meth:`PrivatizerConfig.describe`)."""
    if name == "key":
        if value is None:
            return None
        secret = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        return "sha256:" + hashlib.sha256(b"textdp.key-digest\0" + secret).hexdigest()[:16]
    if isinstance(value, Mechanism):  # as the canonical mapping: ε lives in `epsilon`
        return {"name": value.name,
                **{k: v for k, v in _json(value.params()).items() if k != "epsilon"}}
    if isinstance(value, EmbeddingTable) or hasattr(value, "fingerprint"):
        return f"{type(value).__name__}:{value.fingerprint()}"
    if name == "exclude" and value is not None and not isinstance(value, str):
        return sorted(value)
    if name == "device":
        return str(value)
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    if isinstance(value, Mapping):
        return _json(value)
    if isinstance(value, (Sequence, set, frozenset)):
        return [_plain(name, v) for v in value]
    return type(value).__name__  # a detector (or other) object: its kind, not its state


def _registered(mechanism: Mechanism) -> bool:
    """Whether ``mechanism`` is an instance of the class registered under its name (so its
    name and parameters rebuild it); other objects stay objects."""
    factory = registry.get(mechanism.name) if mechanism.name in registry else None
    return isinstance(factory, type) and type(mechanism) is factory


def _json(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """A mapping with numpy scalars and tuples made JSON values."""
    out = {}
    for k, v in mapping.items():
        if hasattr(v, "item") and callable(v.item):
            v = v.item()
        elif isinstance(v, tuple):
            v = list(v)
        out[str(k)] = v
    return out
