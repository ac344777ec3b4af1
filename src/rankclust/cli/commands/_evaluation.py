"""How ``labelrank`` and ``supervise`` evaluate: a hold-out or K-fold cross-validation,
scored by Kendall tau, with the held-out predictions of every evaluated row."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rankclust.cli._console import Console
from rankclust.cli._errors import CLIError
from rankclust.cli._input import data_row_lines

__all__ = [
    "HeldOut",
    "check_eval_options",
    "evaluate",
    "held_out_json",
    "ranking_score",
    "score_lines",
]

_DEFAULT_TEST_SIZE = 0.3

#: The predictions of one fold's model on its test rows: (0-based rows, ``predictions()``).
HeldOut = list[tuple[np.ndarray, dict[str, Any]]]


def check_eval_options(args: argparse.Namespace) -> None:
    """--cv and --test-size choose between two evaluations: both at once is refused."""
    if args.cv is not None and args.test_size is not None:
        raise CLIError(
            "--test-size: --cv N evaluates by cross-validation and uses no hold-out; give "
            "one of --cv and --test-size"
        )
    if args.test_size is not None and not 0 < args.test_size < 1:
        raise CLIError(f"--test-size must be in (0, 1), got {args.test_size:g}")


def _test_size(args: argparse.Namespace) -> float:
    return _DEFAULT_TEST_SIZE if args.test_size is None else args.test_size


def _holdout_or_cv(args: argparse.Namespace, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import KFold, train_test_split

    if args.cv:
        if args.cv < 2 or args.cv > n:
            raise CLIError(f"--cv must be between 2 and the number of rows ({n}), got {args.cv}")
        kf = KFold(args.cv, shuffle=True, random_state=args.random_state)
        return list(kf.split(np.zeros(n)))
    idx = np.arange(n)
    train, test = train_test_split(idx, test_size=_test_size(args), random_state=args.random_state)
    if len(train) < 2 or len(test) < 1:
        raise CLIError(f"too few rows ({n}) for a train/test split")
    return [(np.sort(train), np.sort(test))]


def ranking_score(est: Any, X: np.ndarray, Y: Any, *, predict: str = "predict") -> float:
    """Mean Kendall tau between ``Y`` and the rankings ``est`` predicts for ``X``."""
    from rankclust.metrics import kendall_tau

    if predict == "predict" and hasattr(est, "score"):
        return float(est.score(X, Y))
    return float(kendall_tau(Y, getattr(est, predict)(X)))


def evaluate(
    args: argparse.Namespace, console: Console, make: Callable[[], Any], X: np.ndarray, Y: Any,
    *, predict: str, keep_predictions: bool = False,
) -> tuple[list[float], HeldOut]:  # fmt: skip
    """The Kendall tau of each fold (one for a hold-out) and, with ``keep_predictions``, what
    each fold's model predicts for its test rows (empty otherwise)."""
    from rankclust.cli.commands.predict import predictions

    splits = _holdout_or_cv(args, len(X))
    scores: list[float] = []
    held_out: HeldOut = []
    for train, test in console.progress(splits, total=len(splits), desc="folds"):
        est = make()
        est.fit(X[train], Y[train])
        scores.append(ranking_score(est, X[test], Y[test], predict=predict))
        if keep_predictions:
            held_out.append((test, predictions(est, X[test])))
    return scores, held_out


def _how(args: argparse.Namespace) -> str:
    return (
        f"{args.cv}-fold cross-validation" if args.cv else f"hold-out ({_test_size(args):g} test)"
    )


def score_lines(scores: Sequence[float], args: argparse.Namespace) -> str:
    """The evaluation's Kendall tau as printed: one value, or mean, std and each fold."""
    how = _how(args)
    if len(scores) == 1:
        return f"Kendall tau on {how}: {scores[0]:.4f}"
    return (
        f"Kendall tau, {how}: mean {np.mean(scores):.4f}, std {np.std(scores):.4f} "
        f"(folds: {', '.join(f'{s:.3f}' for s in scores)})"
    )


def held_out_json(
    args: argparse.Namespace, held_out: HeldOut, n_rows: int, *, clusters: bool = False
) -> dict[str, Any]:
    """The held-out predictions as JSON data: one entry per evaluated row, in file order.

    Each entry has the 1-based data ``row``, its file ``line`` (when known), its ``fold``
    (cross-validation), the predicted ``ranking`` as label names best first and, for
    supervised clusterers, the ``cluster`` (and ``probabilities`` where the model gives them)
    in the numbering of that fold's model.
    """
    from rankclust.cli.commands.predict import json_rows

    lines = data_row_lines(args.file, n_rows)
    rows: list[dict[str, Any]] = []
    for fold, (test, pred) in enumerate(held_out, start=1):
        for i, entry in zip(test, json_rows(pred, test + 1), strict=True):
            head: dict[str, Any] = {"row": int(i) + 1}
            if lines is not None:
                head["line"] = lines[i]
            if args.cv:
                head["fold"] = fold
            rows.append({**head, **entry})
    rows.sort(key=lambda r: r["row"])
    note = (
        f"held-out: each row is predicted by a model fitted without it, by {_how(args)}; the "
        "rest of this result is the model fitted on all rows (in-sample)"
    )
    if clusters:
        note += "; a held-out 'cluster' is numbered as in its fold's model, not as in 'labels'"
    out: dict[str, Any] = {
        "sample": "held-out",
        "evaluation": "cross-validation" if args.cv else "hold-out",
    }
    if args.cv:
        out["n_folds"] = args.cv
    else:
        out["test_size"] = _test_size(args)
    out["note"] = note
    out["items"] = held_out[0][1].get("items") if held_out else None
    out["n_rows"] = len(rows)
    out["rows"] = rows
    return out
