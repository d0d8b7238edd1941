"""Recall's LoCoMo changes one at a time, each measured by leave-one-conversation-out.

A variant says which recall mode asks the questions, which scored-fusion signals the fit may
weigh (the others weigh 0) and which switches it sets as they are (the second round, profile
items). For every variant the ranking weights are fitted on four conversations and scored on
the fifth, for each conversation in turn (`locomo_cv.fit_ranking`), so each row of the table is
a held-out figure. The switches are not fitted: their values are the ones given here.

The candidates the fit reads are eager recall's first-round candidates (`locomo_cv.candidates`),
made once; questions, answers and evidence are read by the fit and the scorer only.
"""

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from benchmarks.fitting.locomo_cv import (
    FITTED,
    Candidates,
    candidates,
    fit_learned,
    fit_ranking,
    folds,
    merge_scores,
    score_with,
)
from mnemo.eval.locomo import Prepared, Scores, summarize
from mnemo.recall.learned import FEATURES
from mnemo.recall.settings import Mode, RecallSettings

BEFORE = tuple(s for s in FITTED if s not in ("dated", "dated_when"))  # the signals fitted before dates were resolved
ALL = tuple(FITTED)
SECOND_ROUND = {"second_round_weight": 0.5, "second_round_docs": 5, "second_round_terms": 10}
PROFILES = {"profile_weight": 1.0}


@dataclass(frozen=True)
class Variant:
    name: str
    mode: Mode
    signals: tuple[str, ...]
    switches: dict[str, Any] = field(default_factory=dict)
    learned: bool = False  # ranked by the learned ranking fitted per fold (`locomo_cv.fit_learned`), not the weights


VARIANTS = (
    Variant("eager, signals before this change", "eager", BEFORE),
    Variant("eager + dated turns", "eager", ALL),
    Variant("eager + dated turns + profile items", "eager", ALL, PROFILES),
    Variant("deliberate + dated turns", "deliberate", ALL),
    Variant("deliberate + dated turns + second round", "deliberate", ALL, SECOND_ROUND),
    Variant("deliberate + dated turns + profile items", "deliberate", ALL, PROFILES),
    Variant("deliberate + all three", "deliberate", ALL, SECOND_ROUND | PROFILES),
    Variant("eager, learned ranking", "eager", ALL, learned=True),
    Variant("deliberate, learned ranking", "deliberate", ALL, learned=True),
)


def masked(parts: list[Candidates], signals: tuple[str, ...]) -> list[Candidates]:
    """The candidates with every signal not in `signals` set to 0 (the fit then gives it no weight)."""
    keep = np.asarray([name in signals or name not in FITTED for name in FEATURES], dtype=np.float64)
    return [replace(p, x=p.x * keep) for p in parts]


def _held_out(prepared: list[Prepared], training: list[Candidates], base: RecallSettings, variant: Variant,
              fits: dict[tuple[str, ...], list[dict[str, Any]]]) -> dict[str, Any]:
    key = ("learned",) if variant.learned else variant.signals
    if key not in fits:
        parts, fit = masked(training, variant.signals), fit_learned if variant.learned else fit_ranking
        fits[key] = [fit([parts[i] for i in on]) for on, _ in folds(len(prepared))]
    held, per_fold = Scores((5, 10, 20)), []
    for (_, index), weights in zip(folds(len(prepared)), fits[key]):
        fold = Scores(held.ks)
        fitted = weights if variant.learned else {"fusion": "scored", **weights}
        score_with(prepared[index], base.with_overrides(**fitted, **variant.switches), fold, variant.mode)
        merge_scores(held, fold)
        per_fold.append({"held_out": prepared[index].sample_id, "weights": weights,
                         "R@10": summarize(fold)["systems"]["mnemo"]["overall"]["R@10"]})
    return {"name": variant.name, "mode": variant.mode, "signals": list(variant.signals),
            "switches": variant.switches, "scores": summarize(held), "folds": per_fold}


def ablate(prepared: list[Prepared], base: RecallSettings, variants: tuple[Variant, ...] = VARIANTS,
           progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Every variant, cross-validated (see the module's docstring)."""
    say = progress or (lambda _message: None)
    training = [candidates(p, base) for p in prepared]
    fits: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    rows = []
    for variant in variants:
        rows.append(_held_out(prepared, training, base, variant, fits))
        say(f"{variant.name}: R@10 {rows[-1]['scores']['systems']['mnemo']['overall']['R@10']}")
    return rows
