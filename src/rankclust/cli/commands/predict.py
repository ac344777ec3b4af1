"""``rankclust predict MODEL FILE``: apply a saved model to new rows.

A model saved with ``--save`` (``cluster``, ``labelrank``, ``supervise``, ``ordinal``) or with
:func:`rankclust.persistence.save` is loaded as untrusted data (:func:`rankclust.persistence.load`)
and applied to ``FILE``:

* **clusterers and ranking models** (:mod:`rankclust.cluster`, :mod:`rankclust.models`) read a
  rankings file, in the formats of ``rankclust cluster``. The columns are matched to the
  model's items **by name** (:func:`rankclust.rankings.check_rankings`); a file that names no
  items (numbered items ``1..m``) is taken by position. Output per ranking: the cluster, and
  the membership probability of every cluster where the model gives them (``predict_proba``);
  models without clusters give the log-probability of each ranking (``logpdf``);
* **label rankers and supervised clusterers** read a numeric CSV of features (header
  optional; ``--format label-ranking`` reads the features of a label-ranking CSV and ignores
  its rankings). Output per row: the predicted ranking as label names, best first (a label
  never seen in training is left out), and for supervised clusterers the cluster (with
  probabilities where the model gives them);
* **ordinal clusterers** read a numeric CSV of features; output: the ordered cluster.

Rows are numbered from 1 in the order of the file's data rows. ``--out FILE.csv`` and
``--json FILE.json`` write the predictions; without either, the CSV goes to stdout.
"""

from __future__ import annotations

import argparse
import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_OK, CLIError
from rankclust.cli._input import (
    READ_FORMATS,
    check_file,
    load_label_ranking,
    load_rankings,
    read_numeric_csv,
)

__all__ = ["FEATURE_FORMATS", "RANKING_FORMATS", "cmd_predict", "json_rows", "predictions"]

#: ``--format`` of a model that reads rankings (the layouts of rankclust.io.read_rankings) ...
RANKING_FORMATS = ("auto", *READ_FORMATS)
#: ... and of one that reads features.
FEATURE_FORMATS = ("features", "label-ranking")


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------
def _read_features(path: str, *, fmt: str, encoding: str | None) -> np.ndarray:
    if fmt == "label-ranking":
        X, _ = load_label_ranking(path, encoding=encoding)
        return X
    if fmt != "features":
        raise CLIError(f"--format {fmt} is for rankings; this model reads features: "
                       f"use one of {', '.join(FEATURE_FORMATS)}")  # fmt: skip
    return read_numeric_csv(path, what="features")


# --------------------------------------------------------------------------------------------
# what a model is and what it gives
# --------------------------------------------------------------------------------------------
def _family(model: Any) -> str:
    """``"rankings"``, ``"labels"``, ``"supervised"`` or ``"ordinal"``."""
    module = type(model).__module__
    for prefix, family in (
        ("rankclust.cluster.", "rankings"),
        ("rankclust.models.", "rankings"),
        ("rankclust.label_ranking.", "labels"),
        ("rankclust.supervised.", "supervised"),
        ("rankclust.ordinal.", "ordinal"),
    ):
        if module.startswith(prefix):
            if not any(k.endswith("_") and not k.startswith("_") for k in vars(model)):
                raise CLIError(f"the {type(model).__name__} in the model file is not fitted")
            if not (hasattr(model, "predict") or hasattr(model, "logpdf")):
                raise CLIError(f"{type(model).__name__} cannot predict new rows")
            return family
    raise CLIError(
        f"the model file holds a {type(model).__name__}, not a rankclust estimator that "
        "predicts (save one with --save of cluster, labelrank, supervise or ordinal)"
    )


def _model_kind(model: Any) -> str | None:
    """The kind of rankings the model was fitted on (read the file so), None if free."""
    from rankclust.rankings import KINDS

    for obj in (model, getattr(model, "estimator_", None)):
        kind = getattr(obj, "kind_", None)
        if kind in KINDS:
            return kind
    if hasattr(model, "n_clusters_"):  # chain clusterers: absent items are unknown
        return "subset"
    return None


def _unnumbered(R: Any, model_items: Any) -> Any:
    """Rankings read from a file that names no items (the CLI numbers them 1..m) lose those
    numbers unless the model's items are the same numbers: they are taken by position."""
    numbered = tuple(str(j + 1) for j in range(R.n_items))
    if R.items == numbered and tuple(model_items or ()) != numbered:
        return R._replace(items=None)
    return R


def _names(model: Any, data: Any, m: int, family: str) -> list[str]:
    """The model's item names, else those of the rankings read, else the CLI's numbering."""
    items = getattr(model, "items_", None)
    if items is None and family == "rankings":
        items = data.items
    if items is not None:
        return list(items)
    return [
        f"label {j + 1}" if family in ("labels", "supervised") else str(j + 1) for j in range(m)
    ]


def predictions(model: Any, data: Any) -> dict[str, Any]:
    """Predictions of a fitted model on ``data`` (rankings or features), as plain columns.

    Parameters
    ----------
    model : fitted rankclust estimator
    data : Rankings (clusterers, ranking models) or ndarray of shape (n, d) (the others)

    Returns
    -------
    dict
        ``"cluster"`` (int per row), ``"probabilities"`` ((n, K) where the model gives them),
        ``"ranking"`` (label names best first, per row), ``"logpdf"`` (ranking models),
        ``"items"`` (the model's item names) and ``"count"`` (weights of weighted rankings),
        only the keys that apply.
    """
    family = _family(model)
    out: dict[str, Any] = {}
    if family == "rankings":
        n_items = data.n_items
    else:
        n_items = getattr(model, "n_items_", 0)
    names = _names(model, data, n_items, family)
    if family != "ordinal":
        out["items"] = names
    if family in ("rankings", "supervised", "ordinal") and hasattr(model, "predict"):
        out["cluster"] = np.asarray(model.predict(data), dtype=np.int64)
        if hasattr(model, "predict_proba"):
            out["probabilities"] = np.asarray(model.predict_proba(data), dtype=np.float64)
    if family == "rankings" and "cluster" not in out:
        out["logpdf"] = np.asarray(model.logpdf(data), dtype=np.float64)
    if family in ("labels", "supervised"):
        R = model.predict_rankings(data)
        out["ranking"] = [[names[j] for j in order] for order in R.to_orderings()]
    if family == "rankings" and data.is_weighted:
        out["count"] = data.weights
    return out


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------
def _csv_text(pred: dict[str, Any], n: int) -> str:
    header = ["row"]
    if "count" in pred:
        header.append("count")
    if "cluster" in pred:
        header.append("cluster")
    probs = pred.get("probabilities")
    if probs is not None:
        header += [f"p_cluster_{k}" for k in range(probs.shape[1])]
    if "logpdf" in pred:
        header.append("logpdf")
    if "ranking" in pred:
        header += [f"rank_{p + 1}" for p in range(len(pred["items"]))]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for i in range(n):
        row: list[Any] = [i + 1]
        if "count" in pred:
            row.append(f"{pred['count'][i]:g}")
        if "cluster" in pred:
            row.append(int(pred["cluster"][i]))
        if probs is not None:
            row += [f"{p:.6g}" for p in probs[i]]
        if "logpdf" in pred:
            row.append(f"{pred['logpdf'][i]:.10g}")
        if "ranking" in pred:
            ranking = pred["ranking"][i]
            row += ranking + [""] * (len(pred["items"]) - len(ranking))
        w.writerow(row)
    return buf.getvalue()


def json_rows(pred: dict[str, Any], numbers: Iterable[int]) -> list[dict[str, Any]]:
    """The predictions as one JSON entry per row: ``{"row": number, "cluster": ..., ...}``.

    ``pred`` is :func:`predictions` of ``n`` rows and ``numbers`` their ``n`` row numbers.
    """
    rows = []
    for i, number in enumerate(numbers):
        row: dict[str, Any] = {"row": int(number)}
        for key in ("count", "cluster", "logpdf", "ranking"):
            if key in pred:
                value = pred[key][i]
                row[key] = value if isinstance(value, list) else value.item()
        if "probabilities" in pred:
            row["probabilities"] = pred["probabilities"][i].tolist()
        rows.append(row)
    return rows


def _json_result(model: Any, pred: dict[str, Any], n: int, args: argparse.Namespace) -> dict:
    rows = json_rows(pred, range(1, n + 1))
    result: dict[str, Any] = {
        "command": "predict",
        "model": args.model,
        "estimator": type(model).__name__,
        "input": args.file,
        "n_rows": n,
    }
    if "items" in pred:
        result["items"] = pred["items"]
    if len(getattr(model, "unseen_items_", ())):
        result["unseen_items"] = [pred["items"][j] for j in model.unseen_items_]
    result["predictions"] = rows
    return result


# --------------------------------------------------------------------------------------------
# the command
# --------------------------------------------------------------------------------------------
def cmd_predict(args: argparse.Namespace, console: Console) -> int:
    """Load ``args.model``, read ``args.file``, write the predictions."""
    from rankclust.cli.report import write_json
    from rankclust.persistence import load

    model = load(check_file(args.model))
    if type(model).__module__.startswith("rankclust.pairwise."):
        from rankclust.cli.commands.pairs import predict_pairs

        return predict_pairs(model, args, console)
    family = _family(model)
    if family == "rankings":
        fmt = "auto" if args.format is None else args.format
        if fmt not in RANKING_FORMATS:
            raise CLIError(f"--format {fmt}: this model reads rankings: use one of "
                           f"{', '.join(RANKING_FORMATS)}")  # fmt: skip
        data = load_rankings(args.file, fmt=fmt, kind=args.kind or _model_kind(model),
                             items_file=args.items, encoding=args.encoding)  # fmt: skip
        data = _unnumbered(data, getattr(model, "items_", None))
        n = data.n_rankings
        what = f"{n} rankings over {data.n_items} items"
    else:
        if args.items or args.kind:
            raise CLIError(f"--items and --kind apply to rankings; {type(model).__name__} "
                           "reads features")  # fmt: skip
        data = _read_features(args.file, fmt=args.format or "features", encoding=args.encoding)
        n = data.shape[0]
        what = f"{n} rows, {data.shape[1]} features"
    pred = predictions(model, data)
    console.info(f"{args.file}: {what}; model {type(model).__name__} from {args.model}")
    text = _csv_text(pred, n)
    written = []
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        written.append(args.out)
    if args.json:
        write_json(_json_result(model, pred, n, args), args.json)
        written.append(args.json)
    if written:
        console.info("wrote " + ", ".join(written))
    else:
        console.out.write(text)
    return EXIT_OK
