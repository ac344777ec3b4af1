"""``--features FILE`` of ``cluster`` and ``select-k``: respondent covariates for a mixture of
experts (the mixing weights a multinomial logit of the covariates; see
:mod:`rankclust.cluster._experts`)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from rankclust.cli._errors import CLIError
from rankclust.cli._input import check_file

__all__ = ["check_features_options", "gate_json", "gate_lines", "load_features"]

#: The CLI methods that fit covariates.
_METHODS = ("mixture", "pl-mixture")


def check_features_options(args: argparse.Namespace, method: Any | None) -> None:
    """Refuse ``--features`` where it cannot work, before any file is read (``method`` None:
    pairwise comparisons, ``--format pairs``)."""
    if getattr(args, "features", None) is None:
        return
    if method is None:
        raise CLIError("--features: respondent covariates are for rankings (--method mixture "
                       "or pl-mixture), not for pairwise comparisons (--format pairs)")  # fmt: skip
    if method.name not in _METHODS:
        raise CLIError(
            f"--features: only --method mixture or pl-mixture fit respondent covariates "
            f"(a mixture of experts), not --method {method.name}"
        )
    if args.skip_malformed:
        raise CLIError(
            "--features: cannot be combined with --skip-malformed (a skipped ranking would "
            "shift every later row of the features)"
        )
    for option, given in (("--ci", args.ci), ("--lrt", getattr(args, "lrt", None))):
        if given is not None:
            raise CLIError(f"{option}: not available with --features (the gate's standard "
                           "errors are printed instead)")  # fmt: skip


def load_features(path: str, R: Any, rankings_file: str) -> tuple[np.ndarray, list[str]]:
    """The covariates of ``path`` (one row per ranking of ``rankings_file``, in file order)
    and their names (the header, else ``x0, x1, ...``); one-line errors name the file and
    line (bad rows) or the two counts (a row-count mismatch)."""
    from rankclust.io import read_numeric_csv

    X, header = read_numeric_csv(check_file(path), what="features", return_header=True)
    if X.shape[0] != R.n_rankings:
        raise CLIError(
            f"{path}: {X.shape[0]} rows of features, but {rankings_file} has {R.n_rankings} "
            "rankings (one row of features per ranking, in file order)"
        )
    names = header or [f"x{j}" for j in range(X.shape[1])]
    return X, names


def gate_lines(est: Any, names: list[str], level: float = 0.95) -> list[str]:
    """The gate's coefficients with standard errors and Wald intervals, as text lines."""
    from rankclust.cli.report import format_table
    from rankclust.cluster import gate_coefficients

    tab = gate_coefficients(est, feature_names=names, level=level)
    rows = []
    for k in range(1, tab.coef.shape[0]):
        for j, name in enumerate(tab.names):
            rows.append([f"{k} vs 0", name, f"{tab.coef[k, j]:.4g}", f"{tab.se[k, j]:.3g}",
                         f"[{tab.lower[k, j]:.4g}, {tab.upper[k, j]:.4g}]",
                         f"{tab.p_values[k, j]:.3g}"])  # fmt: skip
    head = (
        f"Gate (mixture of experts): log-odds of cluster k against cluster 0 per unit of each "
        f"covariate, {level:.0%} Wald intervals"
    )
    if not rows:
        return [head, "(one cluster: no gate)"]
    table = format_table(["cluster", "covariate", "coef", "SE", f"{level:.0%} interval", "p"],
                         rows)  # fmt: skip
    return [head, table]


def gate_json(est: Any, names: list[str]) -> dict[str, Any]:
    """The gate for ``--json``."""
    return {
        "features": list(names),
        "coef": np.asarray(est.gate_coef_).tolist(),
        "se": np.asarray(est.gate_coef_se_).tolist(),
    }
