"""The JSON result: a fitted model as plain JSON data, and the writer of indented strict JSON."""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankclust.cli.report._fitted import (
    _DISPERSION_ATTRS,
    _center_positions,
    _criteria,
    _item_names,
    _mixing,
    _soft_counts,
    cluster_sizes,
)
from rankclust.cli.report._format import ranking_text
from rankclust.rankings import Rankings

__all__ = ["result_dict", "to_jsonable", "write_json"]


def to_jsonable(value: Any) -> Any:
    """Plain JSON data: arrays to lists, numpy scalars to numbers, NaN/inf to None.

    A :class:`~rankclust.Rankings` becomes ``{"ranks", "kind", "weights", "items"}``;
    an estimator nested in a value becomes its class name and parameters; any other object
    its type and public attributes (never its ``repr``).
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, Rankings):
        return {
            "ranks": value.ranks.tolist(),
            "kind": value.kind,
            "weights": value.weights.tolist() if value.is_weighted else None,
            "items": list(value.items) if value.items is not None else None,
        }
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "get_params"):
        return {
            "estimator": type(value).__name__,
            "params": to_jsonable(value.get_params(deep=False)),
        }
    return _object_data(value)


def _object_data(value: Any) -> Any:
    """Any other object as its data: type name plus public attributes, never its ``repr``.

    A ``repr`` such as ``"<KTree object at 0x7f...>"`` is no data (it differs from run to
    run and cannot be read back); a container class (a fitted tree) is written as the
    arrays it holds, a class or function as its qualified name, anything else as its type.
    """
    if callable(value) and hasattr(value, "__qualname__"):  # a class or a function: its name
        return f"{getattr(value, '__module__', None) or ''}.{value.__qualname__}".lstrip(".")
    kind = type(value)
    out: dict[str, Any] = {"type": f"{kind.__module__}.{kind.__qualname__}"}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    elif hasattr(value, "__dict__"):
        fields = dict(vars(value))
    else:
        state = value.__getstate__() if hasattr(value, "__getstate__") else None
        fields = dict(state) if isinstance(state, Mapping) else {}
    if id(value) in _IN_PROGRESS:  # a cycle: the object is being written further up
        return out
    _IN_PROGRESS.add(id(value))
    try:
        for key, item in sorted(fields.items()):
            if not str(key).startswith("_"):
                out[str(key)] = to_jsonable(item)
    finally:
        _IN_PROGRESS.discard(id(value))
    return out


_IN_PROGRESS: set[int] = set()


def result_dict(
    model: Any,
    *,
    R: Rankings | None = None,
    items: Sequence[str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The full fitted result as plain JSON data.

    Contains ``estimator`` (class path), ``params``, every public fitted attribute (names
    ending in ``_``) under ``fitted``, and, for clusterers, a ``clusters`` list (size,
    central ranking as positions and as item names best first) and ``labels``.

    Parameters
    ----------
    model : estimator
    R : Rankings, optional
        The data (for item names, sizes and ballot counts).
    items : sequence of str, optional
    extra : mapping, optional
        Merged at the top level (e.g. the command, the input file, scores).
    """
    cls = type(model)
    out: dict[str, Any] = {
        "estimator": f"{cls.__module__}.{cls.__qualname__}",
        "params": to_jsonable(model.get_params(deep=False))
        if hasattr(model, "get_params")
        else None,
    }
    if items is None and R is not None:
        items = R.items
    if R is not None:
        out["data"] = {
            "n_rankings": R.n_rankings,
            "n_items": R.n_items,
            "kind": R.kind,
            "weighted": R.is_weighted,
            "total_weight": float(R.weights.sum()),
        }
    fitted = {
        k: to_jsonable(v)
        for k, v in sorted(vars(model).items())
        if k.endswith("_") and not k.startswith("_")
    }
    out["fitted"] = fitted
    pos = _center_positions(model)
    labels = getattr(model, "labels_", None)
    if pos is not None:
        names = _item_names(model, items, pos.shape[1])
        out["items"] = names
        weighted = R is not None and R.is_weighted and labels is not None and len(R) == len(labels)
        sizes = (
            cluster_sizes(labels, pos.shape[0], R.weights if weighted else None)
            if labels is not None
            else None
        )
        soft = _soft_counts(model, _mixing(model, pos.shape[0]))
        clusters = []
        for k in range(pos.shape[0]):
            present = np.flatnonzero(pos[k] >= 0)
            order = present[np.argsort(pos[k][present], kind="stable")]
            entry: dict[str, Any] = {
                "cluster": k,
                "center_positions": pos[k].tolist(),
                "center_order": [names[j] for j in order],
                "center_text": ranking_text(pos[k], names, max_items=None),
            }
            if sizes is not None:
                entry["size"] = int(sizes[0][k])
                if weighted:
                    entry["count"] = float(sizes[1][k])
            if soft is not None:  # a mixture: the sum of the responsibilities too
                entry["soft_count"] = float(soft[k])
            for attr, label in _DISPERSION_ATTRS:
                disp = getattr(model, attr, None)
                if disp is not None and np.ndim(disp) == 1 and len(disp) == pos.shape[0]:
                    entry[label] = to_jsonable(disp[k])
            clusters.append(entry)
        out["clusters"] = clusters
    elif items is not None:
        out["items"] = [str(x) for x in items]
    if labels is not None:
        out["labels"] = to_jsonable(np.asarray(labels))
    out["criteria"] = {label: to_jsonable(v) for label, v in _criteria(model)}
    if extra:  # the caller's context (command, input file, scores) comes first
        first = to_jsonable(dict(extra))
        return {**first, **{k: v for k, v in out.items() if k not in first}}
    return out


def write_json(result: Mapping[str, Any], path: str | os.PathLike) -> None:
    """Write a result (as from :func:`result_dict`) to ``path`` as indented JSON.

    Values are passed through :func:`to_jsonable` first, so the file is strict JSON (no NaN).
    """
    text = _dumps(to_jsonable(result), 0)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")


def _dumps(value: Any, level: int) -> str:
    """Indented JSON in which lists of numbers/strings stay on one line (readable matrices)."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        body = ",\n".join(
            f"{inner}{json.dumps(str(k))}: {_dumps(v, level + 1)}" for k, v in value.items()
        )
        return "{\n" + body + "\n" + pad + "}"
    if isinstance(value, list):
        if all(not isinstance(v, dict | list) for v in value):
            return json.dumps(value, allow_nan=False)
        body = ",\n".join(inner + _dumps(v, level + 1) for v in value)
        return "[\n" + body + "\n" + pad + "]"
    return json.dumps(value, allow_nan=False)
