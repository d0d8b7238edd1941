"""Fitting the ranking on LoCoMo: the weights' leave-one-conversation-out cross-validation
(`locomo_cv`), the ablation of recall's steps (`locomo_cv_ablation`) and the learned ranking's
trees (`ranker_fit`). Research code, not installed with mnemo: it needs scikit-learn and
LightGBM, the `eval` extra (`pip install -e '.[eval]'`); recall reads the fitted trees with numpy."""

from importlib import import_module
from types import ModuleType

EXTRA = "eval"


def fitting_library(module: str) -> ModuleType:
    """`module` (sklearn.linear_model, lightgbm), or SystemExit naming the extra that installs it."""
    try:
        return import_module(module)
    except ModuleNotFoundError:
        raise SystemExit(f"{module} is not installed: the ranking's fit needs mnemo's `{EXTRA}` extra "
                         f"(pip install -e '.[{EXTRA}]')") from None
