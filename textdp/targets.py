"""Which labels a privatizer may target, and the check that refuses the others.

A typo such as ``--targets PERSONS`` used to be accepted silently: no detector ever produces
that label, so every name was published unchanged with exit status 0. :func:`resolve_targets`
now refuses any label outside :data:`VALID_LABELS` (or the caller's own ``extra_labels``, for a
custom spaCy pipeline with labels of its own), naming the valid values, before any text is
read (docs/architecture.md rule 5).

The valid labels are

* spaCy's OntoNotes entity labels (:data:`SPACY_LABELS`), what the embedded pipeline and every
  built-in detector produce;
* the CoNLL aliases ``PER`` (→ ``PERSON``, through :func:`~textdp.detect.base.normalise_label`),
  ``LOC``, ``ORG`` and ``MISC`` (what CoNLL-trained ``hf:<model>`` detectors produce);
* the PII pattern labels of :mod:`textdp.detect.pii` (:data:`PII_LABELS`): ``EMAIL``,
  ``PHONE``, ``URL``, ``HANDLE``, ``IP``, ``CREDIT_CARD``, ``IBAN``, ``US_SSN``,
  ``US_ITIN``, ``UK_NHS``, ``UK_NINO``, ``CRYPTO``.

``"all"`` (every word token) is a target setting of its own, not a label. The presets of
:data:`PRESETS` stand for label sets, alone or among labels (``"pii,ORG"``):

* ``names``: ``PERSON`` (the default);
* ``pii``: ``PERSON`` and every identifier label (:data:`~textdp.detect.pii.IDENTIFIER_LABELS`:
  e-mail addresses, phones, URLs, handles, IPs, cards, IBANs, national numbers, ...);
* ``quasi``: ``pii`` and the quasi-identifiers ``DATE`` and ``AGE`` (released with DP noise,
  :mod:`textdp.quasi`), the places ``GPE``, ``LOC`` and ``FAC`` (drawn from a public
  gazetteer as names are, :mod:`textdp.place_vocabulary`), ``POSTCODE`` (a surrogate of
  its layout, :mod:`textdp.detect.postcodes`) and ``STREET_ADDRESS`` (random digits and a
  public street name in its layout, :mod:`textdp.detect.streets`) and ``COORDINATES`` (a
  random point in its notation, :mod:`textdp.detect.coordinates`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textdp.detect.base import normalise_label
from textdp.detect.pii import IDENTIFIER_LABELS, LOCATION_LABELS, PII_LABELS, QUASI_LABELS
from textdp.detect.places import PLACE_LABELS

DEFAULT_TARGETS = ("PERSON",)
# spaCy's English NER labels (OntoNotes 5), as en_core_web_sm/md/lg/trf produce them.
SPACY_LABELS = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT",
                "WORK_OF_ART", "LAW", "LANGUAGE", "DATE", "TIME", "PERCENT", "MONEY",
                "QUANTITY", "ORDINAL", "CARDINAL")
# CoNLL-2003 labels that are not spaCy labels already (PER is normalised to PERSON).
CONLL_LABELS = ("MISC",)
VALID_LABELS = frozenset(SPACY_LABELS + CONLL_LABELS + PII_LABELS)
#: Named label sets a ``targets`` setting may give instead of (or among) labels (docs/pii.md,
#: "Presets": what each removes).
PRESETS: dict[str, tuple[str, ...]] = {
    "names": DEFAULT_TARGETS,
    "pii": (*DEFAULT_TARGETS, *IDENTIFIER_LABELS),
    "quasi": (*DEFAULT_TARGETS, *IDENTIFIER_LABELS, *QUASI_LABELS, *PLACE_LABELS,
              *LOCATION_LABELS),
}


#: Clitics the tokenizer splits off a word ("Merkel" + "'s", "do" + "n't"): grammar, not
#: content, and a substitute glued in their place ("Macroninsists aide") reads as garbage.
CLITICS = frozenset({"'s", "'re", "'ll", "'ve", "'d", "'m", "n't", "'t", "s'"})


def is_word(token: str) -> bool:
    """A token that ``targets="all"`` replaces: it contains a letter (so not punctuation,
    numbers or whitespace) and is not a clitic (:data:`CLITICS`)."""
    # isalpha() first: most tokens are all letters, and it is ~20× cheaper than the scan.
    if token.isalpha():
        return True
    return token.replace("’", "'").lower() not in CLITICS and any(c.isalpha() for c in token)


def valid_labels(extra_labels: Iterable[str] = ()) -> list[str]:
    """The labels :func:`resolve_targets` accepts, sorted: :data:`VALID_LABELS` and
    ``extra_labels`` (normalised)."""
    return sorted(VALID_LABELS | {normalise_label(x) for x in extra_labels})


def resolve_targets(targets: str | Sequence[str] | None,
                    extra_labels: Iterable[str] = ()) -> tuple[str, ...] | str:
    """``"all"`` or a tuple of upper-case entity labels (``PER`` → ``PERSON``).

    ``targets``: ``None`` (the default, ``PERSON``), ``"all"``, a comma-separated string or a
    sequence of labels, where a preset name (:data:`PRESETS`: ``names``, ``pii``, ...) stands
    for its labels. ``extra_labels``: labels accepted on top of :data:`VALID_LABELS`
    (those of a custom pipeline's NER, for instance). Raises ``ValueError`` naming the valid
    values for any other label, so a misspelt target never leaves names unreplaced.
    """
    if targets is None:
        return DEFAULT_TARGETS
    if isinstance(targets, str):
        if targets.strip().lower() == "all":
            return "all"
        targets = [t for t in targets.split(",") if t.strip()]
    elif not isinstance(targets, Iterable):
        raise ValueError(f"targets must be 'all' or entity labels, got {type(targets).__name__}")
    labels = []
    for t in targets:
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"targets must be 'all' or entity labels, got {targets!r}")
        if t.strip().lower() == "all":
            raise ValueError("targets: 'all' stands alone (every word token); it cannot be "
                             "combined with entity labels")
        preset = PRESETS.get(t.strip().lower())
        labels.extend(preset if preset is not None else [normalise_label(t.strip())])
    if not labels:
        raise ValueError("targets must be 'all' or a non-empty list of entity labels")
    known = VALID_LABELS | {normalise_label(x) for x in extra_labels}
    unknown = [label for label in dict.fromkeys(labels) if label not in known]
    if unknown:
        # The labels are the caller's configuration, not text being privatized.
        raise ValueError(f"unknown target label{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(map(repr, unknown))}; valid: 'all', a preset "
                         f"({', '.join(PRESETS)}) or "
                         f"{', '.join(valid_labels(extra_labels))} (PER is PERSON)")
    return tuple(dict.fromkeys(labels))
