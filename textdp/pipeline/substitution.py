"""Substitution: from target masks to new words and a report per doc.

Targets are grouped into draws (consistency, :func:`textdp.pipeline.draw_plan.plan_draws`),
draws a text made in an earlier batch are re-used, placeholders and PII surrogates are written
without a draw, the budget is charged per draw (over-budget draws start from a public
stand-in), and the rest are drawn in one call per candidate set: a vector mechanism on the
targets' static or contextual vectors, decoded to the candidates of each draw's kind; or a
context mechanism (``dpmlm``) on each target's text. The surface form (casing) comes last.
Each step is a method of :class:`Substituter` (:meth:`Substituter.substitute` lists them).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from textdp.budget import TextState, over_budget
from textdp.config import PrivatizerConfig
from textdp.contextual import ContextualEncoder
from textdp.detect.pii import PII_LABELS
from textdp.keyed_sources import canonical_token, keyed_source
from textdp.mechanisms import Mechanism
from textdp.mechanisms.base import ContextMechanism
from textdp.name_vocabulary import NAME_KINDS, PERSON
from textdp.pipeline.candidates import CandidateSpace
from textdp.pipeline.contexts import target_contexts
from textdp.pipeline.draw_plan import (
    PARTICLE_DRAWS,
    DrawPlan,
    compound_names,
    compound_parts,
    compound_substitute,
    is_particle,
    name_kinds,
    place_runs,
    plan_draws,
    positional_kinds,
)
from textdp.pipeline.representation import contextual_inputs, static_inputs
from textdp.pipeline.selection import Mask
from textdp.pipeline.surrogates import pii_replacement, tag
from textdp.place_vocabulary import (
    GUARANTEE_PLACES,
    HOLDS_BETWEEN_PLACES,
    REGION,
    region_code,
    targeted_places,
)
from textdp.quasi import QUASI_LABELS, releases_for, with_quasi
from textdp.report import (
    HOLDS_BETWEEN,
    HOLDS_BETWEEN_ANY_CASING,
    HOLDS_BETWEEN_BATCH,
    HOLDS_BETWEEN_NAME_KINDS,
    HOLDS_BETWEEN_NAME_KINDS_ANY_CASING,
    HOLDS_BETWEEN_ORIGIN,
    HOLDS_BETWEEN_REPEATS,
    HOLDS_BETWEEN_REVIEW,
    HOLDS_BETWEEN_SHAPES,
    HOLDS_BETWEEN_SPANS,
    Report,
    ScopeAccount,
)
from textdp.rng import RandomSource
from textdp.surface import surface_form

#: The key under which a text's state keeps the particle drawn for each particle of its names.
PARTICLE = "PARTICLE"

def report_template(config: PrivatizerConfig, mechanism: Mechanism,
                    space: CandidateSpace | None, *, compute_dtype: torch.dtype | None = None
                    ) -> Report:
    """The report of a text with nothing replaced: what every report of this privatizer
    states (mechanism, ε, guarantee, what it holds between, scale); counts go in with
    :meth:`Report.counted`. ``compute_dtype``: the contextual encoder's forward-pass type
    (a reduced one is stated, see :data:`textdp.report.HOLDS_BETWEEN_BATCH`)."""
    in_context = mechanism.reads_context
    # A context mechanism reads each target's text: its representation is contextual.
    representation = "contextual" if in_context else config.representation
    # With targets="all" every draw reads the whole text (see textdp.pipeline.contexts).
    scope = "text" if representation == "contextual" and config.targets == "all" else "token"
    guarantee = mechanism.guarantee
    shares_line = getattr(mechanism, "shares_line", None)  # nadp: how much it covers
    if callable(shares_line) and mechanism.prepared:
        guarantee = f"{guarantee}; {shares_line()}"
    holds_between = HOLDS_BETWEEN if config.surface == "input" else HOLDS_BETWEEN_ANY_CASING
    replace = space.replace if space is not None else config.effective_replace
    if replace == "name":
        holds_between += HOLDS_BETWEEN_NAME_KINDS if config.surface == "input" \
            else HOLDS_BETWEEN_NAME_KINDS_ANY_CASING
        if config.name_origin == "keep":
            holds_between += HOLDS_BETWEEN_ORIGIN
        if targeted_places(config.targets):  # places decode to the gazetteer by kind
            guarantee = f"{guarantee}; {GUARANTEE_PLACES}"
            holds_between += HOLDS_BETWEEN_PLACES
    if config.targets != "all" and replace != "tag" and any(
            t in PII_LABELS and t not in QUASI_LABELS for t in config.targets):
        holds_between += HOLDS_BETWEEN_SHAPES  # surrogates: textdp.detect.pii.Shape
    if config.consistency != "mention" and config.targets != "all" and replace != "tag":
        holds_between += HOLDS_BETWEEN_REPEATS
    if compute_dtype is not None and compute_dtype != torch.float32 and replace != "tag":
        holds_between += HOLDS_BETWEEN_BATCH.format(dtype=str(compute_dtype).split(".")[-1])
    if config.report_spans:
        holds_between += HOLDS_BETWEEN_SPANS
    if config.review:
        holds_between += HOLDS_BETWEEN_REVIEW
    scale = space.scale if space is not None else None
    return with_quasi(Report.for_tokens(
        0, mechanism=mechanism.name, epsilon=mechanism.epsilon, delta=mechanism.delta,
        guarantee=guarantee, representation=representation, scope=scope, replace=replace,
        consistency=config.consistency, holds_between=holds_between,
        name_distance=None if scale is None else scale.name_distance,
        diameter=None if scale is None else scale.diameter), config, replace)


@dataclass
class BatchTargets:
    """The targets of one batch on their way through :meth:`Substituter.substitute`.

    Attributes:
        flat: per target, its (doc, token) position.
        tokens, labels: per target, its text and label (``"*"`` for ``targets="all"``).
        plan: which targets share a draw (:class:`~textdp.pipeline.draw_plan.DrawPlan`).
        first: per draw, the target it reads (``plan.first`` as a list).
        draw_owner: per draw, the text it belongs to.
        remembered: per text, the person names drawn in its earlier batches.
        subs: per draw, its substitute once a step has made it (``None`` until then).
        blank: (doc, token) of the further tokens of hyphenated names (the hyphens and later
            parts): the name is written whole at its first token, these are emptied.
        quasi_costs: per draw of a date or an age, the DP releases it made (date offsets,
            age draws; :mod:`textdp.quasi`).
        particles: (doc, token) of the particles inside person names ("van den" of "Sofia
            van den Heuvel"; :func:`~textdp.pipeline.draw_plan.is_particle`).
    """

    flat: list[tuple[int, int]]
    tokens: list[str]
    labels: list[str]
    plan: DrawPlan
    first: list[int]
    draw_owner: list[int]
    remembered: dict[int, list[str]]
    subs: list[str | None]
    blank: list[tuple[int, int]]
    quasi_costs: dict[int, tuple[int, int]] = field(default_factory=dict)
    particles: list[tuple[int, int]] = field(default_factory=list)


def count(batch: BatchTargets, todo: np.ndarray, over: np.ndarray, docs: int
          ) -> tuple[list[int], list[int], list[int], list[int]]:
    """Step 7: per doc, the draws charged ε, the draws redacted (over budget, from a
    public stand-in), the date offsets and the age draws made; a draw counts in the doc of
    the target it reads."""
    charged = [0] * docs
    redacted = [0] * docs
    for j, free in zip(todo.tolist(), over.tolist()):
        d = batch.flat[batch.first[j]][0]
        if free:
            redacted[d] += 1
        else:
            charged[d] += 1
    offsets, ages = [0] * docs, [0] * docs
    for j, (n_offsets, n_ages) in batch.quasi_costs.items():
        d = batch.flat[batch.first[j]][0]
        offsets[d] += n_offsets
        ages[d] += n_ages
    return charged, redacted, offsets, ages


def _spaced(docs: Sequence[Any] | None, d: int, n: int) -> list[bool]:
    """Per token of doc ``d``, whether whitespace follows it (all ``True`` without docs)."""
    doc = docs[d] if docs is not None and d < len(docs) else None
    if doc is None or not hasattr(doc, "__iter__"):
        return [True] * n
    return [bool(getattr(t, "whitespace_", " ")) for t in doc][:n] + [True] * max(
        0, n - len(doc))


def name_units(words: Sequence[str], spaced: Sequence[bool], mask: Mask,
               is_word: Callable[[str], bool] = lambda w: True
               ) -> tuple[Mask, list[str], list[int]]:
    """One text's hyphenated names as units: its mask with each hyphenated name
    (:func:`~textdp.pipeline.draw_plan.compound_names`) one target at its first token, the
    token texts with each such name whole at its first token, and the tokens emptied (the
    hyphens and further parts of those names)."""
    mask = list(mask)
    texts = list(words)
    blank: list[int] = []
    if PERSON not in mask:
        return mask, texts, blank
    for start, end in compound_names(words, spaced, mask, is_word).items():
        mask[start] = PERSON
        texts[start] = "".join(words[start:end])
        for j in range(start + 1, end):
            mask[j] = None
            texts[j] = ""
            blank.append(j)
    return mask, texts, blank


class Substituter:
    """Draws the substitutes of one privatizer (built once its candidates are ready).

    Args:
        config: the privatizer's settings.
        mechanism: the prepared mechanism.
        space: the candidate space (``None`` for a context mechanism, which has its own).
        key: the secret of ``consistency="dataset"`` (``None`` otherwise).
        encoder: the contextual encoder (contextual representation only).
        device: the torch device of the draws.
    """

    def __init__(self, config: PrivatizerConfig, mechanism: Mechanism,
                 space: CandidateSpace | None, *, key: bytes | None,
                 encoder: ContextualEncoder | None, device: torch.device) -> None:
        self.config = config
        self.mechanism = mechanism
        self.space = space
        self.key = key
        self.encoder = encoder
        self.device = device
        self.replace = space.replace if space is not None else config.effective_replace
        self.report = report_template(
            config, mechanism, space,
            compute_dtype=None if encoder is None else encoder.compute_dtype())
        # With entity targets, the other targets of a text are masked in its contexts.
        self.isolate = config.targets != "all"
        # The keyed draws made, per scope, as digests under a salt of this process: only
        # their number is ever read (account), never which names they stand for.
        self._salt = os.urandom(16)
        self._keyed_draws: dict[bytes, set[bytes]] = {}
        # Dates and ages: DP noise on their own lines (textdp.quasi), None when not targets.
        self.quasi = releases_for(config, key)

    def account(self) -> ScopeAccount:
        """The keyed draws made so far, composed over their scopes (:class:`ScopeAccount`)."""
        return ScopeAccount.of([len(d) for d in list(self._keyed_draws.values())],
                               epsilon=self.mechanism.epsilon, delta=self.mechanism.delta)

    def _count_keyed(self, scope: str, label: str, name: str, kind: str) -> None:
        """Count the keyed draw of (scope, label, name, kind) once (see :meth:`account`)."""
        def digest(*parts: str) -> bytes:
            return hashlib.blake2b("\0".join(parts).encode("utf-8"), key=self._salt,
                                   digest_size=16).digest()

        self._keyed_draws.setdefault(digest(scope), set()).add(
            digest(scope, label, name, kind))

    def substitute(self, docs: Sequence[Any], words: Sequence[Sequence[str]], masks: list[Mask],
                   owners: list[int], states: dict[int, TextState], rng: RandomSource, *,
                   context_targets: Sequence[dict[int, str]] | None = None,
                   whole_units: bool = True) -> list[tuple[list[str], Report]]:
        """The new words of each doc and its report. ``words``: each doc's token texts;
        ``owners``: the text each doc belongs to; ``states``: per text, its budget left, names
        drawn and scope (updated here); ``rng``: the privatizer's random source (re-keyed per
        batch by the privatizer, and replaced by front ends that key a stream per batch);
        ``context_targets``: per doc, the targets of a neighbouring chunk's core that it reads
        as context only (token → label), masked in every context read here;
        ``whole_units``: a place or hyphenated name of several tokens is one target (:meth:`plan`).

        The steps, in order: :meth:`plan` (which targets share a draw), :meth:`reuse` (draws
        of the text's earlier batches), :meth:`without_draw` (tags and PII surrogates),
        :meth:`charge` (the budget), :meth:`draw` (the rest), :meth:`write` (the surface
        forms), :meth:`particles` (the particles of names) and :func:`count` (the report's
        counts)."""
        batch = self.plan(words, masks, owners, states, docs, whole_units=whole_units)
        if batch is None:
            return [(list(ws), self.report) for ws in words]
        self.reuse(batch, states)
        self.without_draw(batch, states, rng)
        todo, over = self.charge(batch, states)
        self.draw(docs, batch, todo, over, states, rng, context_targets)
        out, replaced = self.write(batch, words, owners, states)
        self.particles(batch, out, replaced, owners, states, rng)
        charged, redacted, offsets, ages = count(batch, todo, over, len(words))
        return [(out[d], self.report.counted(replaced[d], redacted[d], draws=charged[d],
                                             date_offsets=offsets[d], age_draws=ages[d]))
                for d in range(len(words))]

    def plan(self, words: Sequence[Sequence[str]], masks: list[Mask], owners: list[int],
             states: dict[int, TextState], docs: Sequence[Any] | None = None, *,
             whole_units: bool = True) -> BatchTargets | None:
        """Step 1, the draw plan: the batch's targets in order and the draws they share
        (:func:`~textdp.pipeline.draw_plan.plan_draws`), with the person names a text drew in
        its earlier batches, which an address may be spelt from; names as units
        (:func:`name_units`: hyphenated names one target, particles kept; ``docs`` give the
        whitespace) and their kinds from context
        (:func:`~textdp.pipeline.draw_plan.name_kinds`). ``None``: no target. With
        ``whole_units`` a place or a hyphenated name of several tokens is one target, its
        first token carrying it (:func:`~textdp.pipeline.draw_plan.place_runs`,
        :func:`name_units`), its other tokens written empty; without, each of its tokens is a
        target of its own."""
        is_word = self._is_word()
        units = [name_units(words[d], _spaced(docs, d, len(words[d])), mask, is_word)
                 if whole_units else (list(mask), list(words[d]), [])
                 for d, mask in enumerate(masks)]
        context = [name_kinds(mask, texts) for mask, texts, _ in units]
        # Particles inside a name are no draw of the mechanism: each is written as a particle
        # drawn from the public list (:meth:`particles`; where they stand is released).
        particles = [(d, k) for d, (mask, texts, _) in enumerate(units)
                     for k in range(len(mask)) if is_particle(texts, mask, k)]
        at = set(particles)
        masks = [[None if (d, k) in at else lab for k, lab in enumerate(mask)]
                 for d, (mask, _, _) in enumerate(units)]
        flat = [(d, k) for d, mask in enumerate(masks) for k, lab in enumerate(mask)
                if lab is not None]
        if not flat:
            return None
        tokens = [units[d][1][k] for d, k in flat]
        labels = [masks[d][k] or "*" for d, k in flat]
        # A place of several tokens is one target: its first token carries the whole place.
        runs = [place_runs(mask) if whole_units else {} for mask in masks]
        continued: set[int] = set()
        if any(runs):
            at = {pos: t for t, pos in enumerate(flat)}
            for d, doc_runs in enumerate(runs):
                for start, end in doc_runs.items():
                    tokens[at[(d, start)]] = " ".join(words[d][start:end])
                    continued.update(at[(d, k)] for k in range(start + 1, end))
        kinds = [positional_kinds(mask) for mask in masks]
        target_owners = [owners[d] for d, _ in flat]
        # Names drawn in a text's earlier batches, which an address may be spelt from.
        remembered = {o: [key for label, key in states[o].names if label == PERSON]
                      for o in set(target_owners) if o in states}
        plan = plan_draws(tokens, labels, target_owners, [kinds[d][k] for d, k in flat],
                          replace=self.replace, consistency=self.config.consistency,
                          spell_addresses=self.config.surface == "input",
                          remembered=remembered,
                          context_kinds={t: context[d][k] for t, (d, k) in enumerate(flat)},
                          keep_origin=self.config.name_origin == "keep",
                          continued=continued)
        first = plan.first.tolist()
        return BatchTargets(flat, tokens, labels, plan, first,
                            [owners[flat[t][0]] for t in first], remembered,
                            [None] * len(first),
                            [(d, k) for d, unit in enumerate(units) for k in unit[2]],
                            particles=particles)

    def _is_word(self) -> Callable[[str], bool]:
        """Whether a lower-case word is a word of the public table (a row trained for it):
        such a part does not join a hyphenated name ("Obama-era")."""
        if self.space is None:
            return lambda w: True
        table = self.space.table

        def is_word(word: str) -> bool:
            row = table.key_to_row.get(word)
            return row is not None and table.row_words[row] == word

        return is_word

    def reuse(self, batch: BatchTargets, states: dict[int, TextState]) -> None:
        """Step 2: a draw whose name its text drew in an earlier batch re-uses that
        substitute (post-processing, no ε: docs/architecture.md rule 3). Tags are written
        whatever was drawn before."""
        for j, (t, key, kind) in enumerate(zip(batch.first, batch.plan.keys, batch.plan.kinds)):
            state = states.get(batch.draw_owner[j])
            if kind != "tag" and key is not None and state is not None \
                    and (batch.labels[t], key) in state.names:
                batch.subs[j] = state.names[(batch.labels[t], key)]

    def without_draw(self, batch: BatchTargets, states: dict[int, TextState],
                     rng: RandomSource) -> None:
        """Step 3: the draws that cost no name ε: a placeholder tag, a PII surrogate of the
        value's format or a state's code drawn from the public list (each from the value's
        keyed source with ``consistency="dataset"``, else from ``rng``; remembered for the
        text's later batches), or a date or age with its own DP noise (:mod:`textdp.quasi`,
        charged ``epsilon_date``/``epsilon_age``)."""
        for j, (t, key, kind) in enumerate(zip(batch.first, batch.plan.keys, batch.plan.kinds)):
            if batch.subs[j] is not None:
                continue
            label = batch.labels[t]
            if kind == "tag":
                batch.subs[j] = tag(label)
            elif kind in ("pii", REGION):  # a surrogate: no draw on the value
                state = states.get(batch.draw_owner[j])
                source = rng if self.key is None or key is None else keyed_source(
                    self.key, state.scope if state else "", label, key, kind,
                    secure=self.config.secure)
                if kind == REGION:
                    batch.subs[j] = region_code(source.numpy)
                elif self.quasi is not None and label in QUASI_LABELS:
                    release = self.quasi.replace(
                        label, batch.tokens[t], self.replace, source,
                        states.setdefault(batch.draw_owner[j], TextState()), rng)
                    batch.subs[j] = release.text
                    batch.quasi_costs[j] = (release.date_offsets, release.age_draws)
                else:
                    batch.subs[j] = pii_replacement(label, batch.tokens[t], self.replace,
                                                    source)
                self._remember(batch, j, states)

    def charge(self, batch: BatchTargets, states: dict[int, TextState]
               ) -> tuple[np.ndarray, np.ndarray]:
        """Step 4, the budget: the draws still to make (``todo``) and, per draw in ``todo``,
        whether it is over its text's budget (``over``: redacted, made from a public
        stand-in, not from the target; :func:`~textdp.budget.over_budget`)."""
        todo = np.asarray([j for j, sub in enumerate(batch.subs) if sub is None],
                          dtype=np.int64)
        over = over_budget([batch.draw_owner[j] for j in todo.tolist()], states,
                           epsilon=self.mechanism.epsilon,
                           max_epsilon_per_text=self.config.max_epsilon_per_text,
                           policy=self.config.budget_policy)
        return todo, over

    def draw(self, docs: Sequence[Any], batch: BatchTargets, todo: np.ndarray,
             over: np.ndarray, states: dict[int, TextState], rng: RandomSource,
             context_targets: Sequence[dict[int, str]] | None = None) -> None:
        """Step 5: the draws in ``todo`` from the mechanism (:meth:`_draw`), each remembered
        for its text's later batches."""
        if not todo.size:
            return
        drawn = self._draw(docs, batch.flat, batch.tokens, batch.labels, batch.plan, todo,
                           over, batch.draw_owner, states, rng, context_targets)
        for j, sub in zip(todo.tolist(), drawn):
            batch.subs[j] = sub
            self._remember(batch, j, states)

    def particles(self, batch: BatchTargets, out: list[list[str]], replaced: list[int],
                  owners: list[int], states: dict[int, TextState], rng: RandomSource) -> None:
        """Step 6b: each particle of a person name ("van", "de la", "bin") written as one
        drawn uniformly from the public list (:data:`PARTICLE_DRAWS`), whatever it was: a
        draw independent of the input, so it costs no ε, and the particle no longer tells
        the name's origin. The same particle of a text is the same draw, in every batch of the
        text (kept in its state like a name's draw); where particles stand is released
        (``holds_between``)."""
        for d, k in batch.particles:
            names = states.setdefault(owners[d], TextState()).names
            key = (PARTICLE, out[d][k].casefold())
            if key not in names:
                names[key] = PARTICLE_DRAWS[int(rng.numpy.integers(0, len(PARTICLE_DRAWS)))]
            sub = names[key]
            out[d][k] = surface_form(sub, out[d][k]) if self.config.surface == "input" else sub
            replaced[d] += 1

    def write(self, batch: BatchTargets, words: Sequence[Sequence[str]], owners: list[int],
              states: dict[int, TextState]) -> tuple[list[list[str]], list[int]]:
        """Step 6: each doc's words with every target written from its draw, in the
        original's surface form (tags and surrogates as they are); an address spelt from
        names of its text from their draws; the later tokens of a place of several tokens
        empty (:func:`textdp.surface.join_words` drops the space before them). Also, per
        doc, the targets written."""
        out = [list(ws) for ws in words]
        replaced = [0] * len(words)
        plan, labels, first = batch.plan, batch.labels, batch.first
        if plan.spelt:
            names = {(o, key): sub for o in batch.remembered for (label, key), sub
                     in states[o].names.items() if label == PERSON}
            names.update(((batch.draw_owner[j], key), sub) for j, (key, sub)
                         in enumerate(zip(plan.keys, batch.subs)) if labels[first[j]] == PERSON)
        for t, ((d, k), tok, j) in enumerate(zip(batch.flat, batch.tokens,
                                                 plan.of_target.tolist())):
            if j == -2:  # a place's later token: its substitute is on the place's first
                out[d][k] = ""
                continue
            if j < 0:  # an address spelt from names of its text: written from their draws
                spelling = plan.spelt[t]
                out[d][k] = spelling.written([names[(owners[d], key)] for key in spelling.keys])
                replaced[d] += 1
                continue
            sub = batch.subs[j]
            assert sub is not None
            out[d][k] = surface_form(sub, tok, name=labels[first[j]] == PERSON) \
                if self.config.surface == "input" and plan.kinds[j] not in ("tag", "pii") \
                else sub
            replaced[d] += 1
        for d, k in batch.blank:  # a hyphenated name is written whole at its first token
            out[d][k] = ""
        return out, replaced

    def _remember(self, batch: BatchTargets, j: int, states: dict[int, TextState]) -> None:
        """Keep draw ``j``'s substitute for its text's later batches
        (``consistency="document"``; keyed draws are recomputed instead)."""
        key = batch.plan.keys[j]
        if key is not None and self.config.consistency == "document":
            states.setdefault(batch.draw_owner[j], TextState()).names[
                (batch.labels[batch.first[j]], key)] = batch.subs[j]

    def _draw(self, docs: Sequence[Any], flat: list[tuple[int, int]], tokens: list[str],
              labels: list[str], plan: DrawPlan, todo: np.ndarray, over: np.ndarray,
              draw_owner: list[int], states: dict[int, TextState], rng: RandomSource,
              context_targets: Sequence[dict[int, str]] | None = None) -> list[str]:
        """One public word per draw in ``todo``, each read from its first mention (over-budget
        draws from a public stand-in), decoded to its candidate set: the whole table or a
        name kind. Keyed draws (``consistency="dataset"``) each get the random source of
        their (scope, name); the others share the privatizer's for one call per set."""
        reps = plan.first[todo]
        keys = [plan.keys[j] for j in todo.tolist()]
        if self.mechanism.reads_context:
            return self._draw_in_context(docs, flat, labels, reps, over, rng, context_targets)
        space = self.space
        assert space is not None
        if self.encoder is not None:
            wanted = np.zeros(len(flat), dtype=bool)
            wanted[reps[~over]] = True
            vecs = contextual_inputs(self.encoder, space, docs, flat, labels, wanted,
                                     isolate=self.isolate, device=self.device,
                                     context_targets=context_targets)[reps]
            inverse = torch.arange(len(reps), device=self.device)
        else:
            # A keyed draw reads the row of its name, whatever the casing or possessive of
            # the mention (canonical_token): its noise is shared by every text of the scope.
            read = [canonical_token(key) if keyed and not o else tokens[t]
                    for t, key, keyed, o in zip(reps.tolist(), keys, self._keyed(keys),
                                                over.tolist())]
            vecs, inverse = static_inputs(space, read, [labels[t] for t in reps.tolist()],
                                          over, self.device)
        kinds = [plan.kinds[j] for j in todo.tolist()]
        out = [""] * len(todo)
        with torch.inference_mode():
            for kind in dict.fromkeys(kinds):
                sel = [i for i, k in enumerate(kinds) if k == kind]
                candidates = space.decoder(kind)
                groups: list[tuple[list[int], RandomSource]] = []
                for i in sel:
                    # Over budget: a stand-in's draw, never from the name's keyed stream
                    # (it would correlate with the name's draw in other texts).
                    if self.key is not None and keys[i] is not None and not over[i]:
                        scope = states.get(draw_owner[todo[i]], TextState()).scope
                        groups.append(([i], keyed_source(self.key, scope, labels[reps[i]],
                                                         keys[i], kind,
                                                         secure=self.config.secure)))
                        self._count_keyed(scope, labels[reps[i]], keys[i], kind)
                shared = sorted(set(sel) - {rows[0] for rows, _ in groups})
                if shared:
                    groups.append((shared, rng))
                for rows, source in groups:
                    inv = inverse[torch.as_tensor(rows, device=inverse.device)]
                    for i, word in zip(rows, candidates.draw(self.mechanism, vecs, inv,
                                                             source)):
                        token = tokens[reps[i]]
                        if "-" in token and labels[reps[i]] == PERSON and \
                                kind.split("@")[0] in NAME_KINDS:
                            # A hyphenated name in its shape; its further parts are public
                            # names drawn independently of the input (post-processing).
                            more = candidates.public_names(compound_parts(token) - 1, source)
                            word = compound_substitute(token, word, more)
                        out[i] = word
        return out

    def _keyed(self, keys: list[str | None]) -> list[bool]:
        """Per draw, whether it is keyed (``consistency="dataset"``)."""
        return [self.key is not None and key is not None for key in keys]

    def _draw_in_context(self, docs: Sequence[Any], flat: list[tuple[int, int]],
                         labels: list[str], reps: np.ndarray, over: np.ndarray,
                         rng: RandomSource,
                         context_targets: Sequence[dict[int, str]] | None = None) -> list[str]:
        """Substitutes from a context mechanism for the targets ``reps``, each read in the
        context :mod:`textdp.pipeline.contexts` builds; over-budget ones get text-free draws."""
        mech = self.mechanism
        assert isinstance(mech, ContextMechanism)
        wanted = np.zeros(len(flat), dtype=bool)
        wanted[reps[~over]] = True
        texts, spans, rows = target_contexts(docs, flat, labels, wanted, isolate=self.isolate,
                                             context_targets=context_targets)
        by_target: dict[int, str] = {}
        if texts:
            by_target = dict(zip(rows.tolist(), mech.sample_in_context(texts, spans, rng)))
        free = iter(mech.sample_free(int(over.sum()), rng))
        return [next(free) if o else by_target[t] for t, o in zip(reps.tolist(), over.tolist())]
