"""The substituter's steps on a toy table (textdp.pipeline.substitution): plan, re-use of
earlier batches, tags and PII surrogates, the budget, the draw, the surface form, the counts.

At ε = 1000 on the toy table (ten words on orthogonal axes, ten apart) a draw decodes to its
own word with overwhelming probability (the noise's norm is about 0.01), so any other word in
the output comes from the step under test."""

from __future__ import annotations

import numpy as np
import pytest

from textdp.budget import TextState
from textdp.pipeline.draw_plan import plan_draws
from textdp.pipeline.substitution import BatchTargets, count


def test_plan_groups_mentions_and_a_batch_without_targets_is_none(toy_substituter):
    sub, _ = toy_substituter()
    words = [["alpha", "met", "Alpha", "and", "beta"], ["alpha", "left"]]
    masks = [["PERSON", None, "PERSON", None, "PERSON"], ["PERSON", None]]
    batch = sub.plan(words, masks, [0, 1], {})
    assert batch.flat == [(0, 0), (0, 2), (0, 4), (1, 0)]
    assert batch.plan.of_target.tolist() == [0, 0, 1, 2]  # "Alpha" is "alpha"; text 1 draws
    assert batch.first == [0, 2, 3] and batch.draw_owner == [0, 0, 1]
    assert batch.subs == [None, None, None]
    assert sub.plan([["no", "targets"]], [[None, None]], [0], {}) is None
    out = sub.substitute([None], [["no", "targets"]], [[None, None]], [0], {}, _)
    assert out[0][0] == ["no", "targets"] and out[0][1].draws == 0


def test_draws_of_earlier_batches_are_reused_without_a_charge(toy_substituter):
    sub, rng = toy_substituter()
    states = {0: TextState(names={("PERSON", "alpha"): "omega"})}
    (words, report), = sub.substitute([None], [["Alpha", "met", "beta"]],
                                      [["PERSON", None, "PERSON"]], [0], states, rng)
    assert words == ["Omega", "met", "beta"]  # re-used, in the mention's casing
    assert report.draws == 1 and report.tokens_replaced == 2  # only beta was drawn
    # The next batch of the same text re-uses this one's draw of beta (document consistency).
    states[0].names[("PERSON", "beta")] = "kappa"
    (words, report), = sub.substitute([None], [["beta"]], [["PERSON"]], [0], states, rng)
    assert words == ["kappa"] and report.draws == 0
    # Another text does not.
    (words, report), = sub.substitute([None], [["beta"]], [["PERSON"]], [1], states, rng)
    assert words == ["beta"] and report.draws == 1


def test_a_fresh_draw_is_remembered_for_the_texts_next_batch(toy_substituter):
    sub, rng = toy_substituter(epsilon=0.01)  # noise far larger than the table: any word
    states: dict[int, TextState] = {}
    first = [sub.substitute([None], [["alpha"]], [["PERSON"]], [0], states, rng)[0][0][0]]
    assert states[0].names == {("PERSON", "alpha"): first[0]}
    again = [sub.substitute([None], [["alpha"]], [["PERSON"]], [0], states, rng)[0]
             for _ in range(10)]
    assert all(w == first and r.draws == 0 for w, r in again)
    # With consistency="mention" nothing is remembered: each mention draws anew.
    mention, rng = toy_substituter(epsilon=0.01, consistency="mention")
    states = {}
    drawn = {mention.substitute([None], [["alpha"]], [["PERSON"]], [0], states, rng)[0][0][0]
             for _ in range(30)}
    assert not states.get(0, TextState()).names and len(drawn) > 3


def test_tags_cost_nothing_and_are_written_as_they_are(toy_substituter):
    sub, rng = toy_substituter(replace="tag")
    states = {0: TextState(names={("PERSON", "alpha"): "omega"})}
    (words, report), = sub.substitute([None], [["Alpha", "wrote", "ann@x.org"]],
                                      [["PERSON", None, "EMAIL"]], [0], states, rng)
    assert words == ["[PERSON]", "wrote", "[EMAIL]"]
    assert report.draws == 0 and report.epsilon_total == 0 and report.tokens_replaced == 2


def test_pii_surrogates_keep_the_format_cost_nothing_and_repeat_per_text(toy_substituter):
    sub, rng = toy_substituter()
    states: dict[int, TextState] = {}
    (words, report), = sub.substitute([None], [["mail", "ann.lee@acme.org", "ann.lee@acme.org"]],
                                      [[None, "EMAIL", "EMAIL"]], [0], states, rng)
    surrogate = words[1]
    assert surrogate != "ann.lee@acme.org" and "@" in surrogate and words[2] == surrogate
    assert report.draws == 0 and report.tokens_replaced == 2
    # The text's next batch writes the same surrogate; another text draws its own.
    (later, _), = sub.substitute([None], [["ann.lee@acme.org"]], [["EMAIL"]], [0], states, rng)
    assert later == [surrogate]
    others = {sub.substitute([None], [["ann.lee@acme.org"]], [["EMAIL"]], [o], states,
                             rng)[0][0][0] for o in range(1, 6)}
    assert others != {surrogate}


def test_keyed_surrogates_and_draws_agree_across_texts_without_shared_state(toy_substituter):
    sub, rng = toy_substituter(epsilon=0.01, consistency="dataset", key="k" * 32)
    outs = {tuple(sub.substitute([None], [["alpha", "ann@x.org"]], [["PERSON", "EMAIL"]],
                                 [o], {}, rng)[0][0]) for o in range(8)}
    assert len(outs) == 1  # the same key, scope and name: the same draw, in any text
    assert sub.account().keyed_draws == 1  # one keyed draw counted (the surrogate costs nothing)
    plain, rng = toy_substituter(epsilon=0.01)
    outs = {tuple(plain.substitute([None], [["alpha"]], [["PERSON"]], [o], {}, rng)[0][0])
            for o in range(8)}
    assert len(outs) > 1  # the control: unkeyed texts draw independently


def test_the_budget_redacts_the_draws_over_it_and_counts_them(toy_substituter):
    sub, rng = toy_substituter(max_epsilon_per_text=2000.0)  # two draws at ε = 1000
    words = [["alpha", "beta"], ["gamma", "delta"], ["alpha"]]
    masks = [["PERSON", "PERSON"], ["PERSON", "PERSON"], ["PERSON"]]
    out = sub.substitute([None] * 3, words, masks, [0, 0, 1], {}, rng)
    # Text 0: alpha and beta drawn (their own words at this ε), gamma and delta redacted
    # from the public person stand-in (the mean of John and Mary), never their own words.
    assert out[0][0] == ["alpha", "beta"] and out[0][1].draws == 2
    assert {w.casefold() for w in out[1][0]} <= {"john", "mary"}  # in the mentions' casing
    assert out[1][1].draws == 0 and out[1][1].tokens_redacted == 2
    assert out[2][0] == ["alpha"] and out[2][1].draws == 1  # text 1 has its own budget
    with pytest.raises(ValueError, match="max_epsilon_per_text"):
        refuse, rng = toy_substituter(max_epsilon_per_text=1000.0, budget_policy="refuse")
        refuse.substitute([None], [["alpha", "beta"]], [["PERSON", "PERSON"]], [0], {}, rng)


def test_write_keeps_the_surface_form_unless_asked_for_the_candidates_own(toy_substituter):
    sub, rng = toy_substituter()
    (words, report), = sub.substitute([None], [["GAMMA", "Gamma", "gamma"]],
                                      [["PERSON", "PERSON", "PERSON"]], [0], {}, rng)
    assert words == ["GAMMA", "Gamma", "gamma"]  # one draw, written in each mention's form
    assert report.draws == 1 and report.tokens_replaced == 3
    raw, rng = toy_substituter(surface="table")
    (words, _), = raw.substitute([None], [["GAMMA"]], [["PERSON"]], [0], {}, rng)
    assert words == ["gamma"]


def test_count_charges_each_draw_to_the_doc_of_the_target_it_reads():
    plan = plan_draws(["a", "b", "c", "a"], ["PERSON"] * 4, [0, 0, 1, 1], ["any"] * 4,
                      replace="word", consistency="document")
    batch = BatchTargets([(0, 0), (0, 1), (1, 0), (2, 0)], ["a", "b", "c", "a"],
                         ["PERSON"] * 4, plan, plan.first.tolist(), [0, 0, 1, 1], {},
                         [None] * 4, [])
    todo = np.asarray([0, 1, 2, 3])
    over = np.asarray([False, True, False, True])
    assert count(batch, todo, over, 3) == ([1, 1, 0], [1, 0, 1], [0, 0, 0], [0, 0, 0])
    batch.quasi_costs[3] = (1, 0)  # a date offset read in doc 2
    batch.quasi_costs[2] = (0, 2)  # two age draws read in doc 1
    assert count(batch, np.asarray([], dtype=np.int64), np.zeros(0, bool), 3) == \
        ([0, 0, 0], [0, 0, 0], [0, 0, 1], [0, 2, 0])
