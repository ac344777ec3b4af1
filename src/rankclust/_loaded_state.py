"""Checks of the fitted state of a model read from a file (see :mod:`rankclust.persistence`).

A model file is data from someone else. Every array a prediction reads on a compiled fast path
(numba kernels, scikit-learn's Cython trees, libsvm) must be checked before the first call:
right type, dtype, shape, finite values, and indices inside the arrays they index. A kernel
trusts its input (STYLE.md, "one data boundary"), so an out-of-range child index in a tree
would be a read out of bounds, not an exception.

Two users:

* every rankclust estimator defines ``_validate_loaded_state(self)``, written with the
  helpers below (:func:`int_attr`, :func:`array_attr`, :func:`rankings_attr`, ...), which
  :func:`rankclust.persistence.load` calls after setting the saved state;
* :func:`check_sklearn_state` does the same for the whitelisted scikit-learn classes, and
  :func:`check_sklearn_tree` for a scikit-learn ``Tree`` before it is built.

Every failure is a one-line ``ValueError`` whose message starts with the attribute name;
:mod:`rankclust.persistence` prefixes the file and the path of the object inside the model.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rankclust.rankings import KINDS, Rankings

__all__ = [
    "Box",
    "array_attr",
    "check_array",
    "check_n_jobs",
    "check_permutations",
    "check_sklearn_state",
    "check_sklearn_tree",
    "check_tree",
    "choice_attr",
    "estimator_attr",
    "float_attr",
    "int_attr",
    "is_fitted",
    "items_attr",
    "kind_attr",
    "rankings_attr",
    "unseen_attr",
]

#: Largest count (items, features, clusters, nodes) a loaded model may declare: beyond it an
#: allocation from the count alone could exhaust memory before any array is read.
MAX_COUNT = 2**31 - 1

#: ``n_jobs`` of a loaded model: beyond this a file could ask for a million threads.
MAX_N_JOBS = 1024

_MISSING = object()


# --------------------------------------------------------------------------------------------
# scalar attributes
# --------------------------------------------------------------------------------------------
def _get(obj: Any, name: str) -> Any:
    value = vars(obj).get(name, _MISSING)
    if value is _MISSING:
        raise ValueError(f"{name}: missing from the saved state")
    return value


def is_fitted(obj: Any) -> bool:
    """Whether the saved state holds any fitted (public, ``_``-suffixed) attribute.

    Validators return early on an unfitted model; once one fitted attribute is there, all the
    ones a prediction reads must be there and valid.
    """
    return any(k.endswith("_") and not k.startswith("_") for k in vars(obj))


def int_attr(obj: Any, name: str, *, low: int = 0, high: int = MAX_COUNT) -> int:
    """An integer attribute (Python or numpy) in ``[low, high]``; returns it as ``int``."""
    value = _get(obj, name)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}: expected an integer, got {type(value).__name__}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name}: {int(value)} is outside [{low}, {high}]")
    return int(value)


def float_attr(
    obj: Any, name: str, *, low: float | None = None, high: float | None = None
) -> float:
    """A finite real attribute in ``[low, high]``; returns it as ``float``."""
    value = _get(obj, name)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}: expected a number, got {type(value).__name__}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{name}: {x} is not finite")
    if (low is not None and x < low) or (high is not None and x > high):
        raise ValueError(f"{name}: {x} is outside [{low}, {high}]")
    return x


def choice_attr(obj: Any, name: str, options: Sequence[Any]) -> Any:
    """An attribute that must be one of ``options`` (strings, None, booleans)."""
    value = _get(obj, name)
    if not any(value is o or (type(value) is type(o) and value == o) for o in options):
        raise ValueError(f"{name}: {value!r:.80} is not one of {list(options)}")
    return value


def check_n_jobs(obj: Any, name: str = "n_jobs") -> None:
    """``n_jobs`` (if present) is None or an int with ``1 <= |n_jobs| <= MAX_N_JOBS``."""
    value = getattr(obj, name, None)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}: expected None or an integer, got {type(value).__name__}")
    if not 1 <= abs(int(value)) <= MAX_N_JOBS:
        raise ValueError(f"{name}: {int(value)} is outside [-{MAX_N_JOBS}, {MAX_N_JOBS}]")


# --------------------------------------------------------------------------------------------
# arrays
# --------------------------------------------------------------------------------------------
_KIND_NAMES = {"f": "float", "i": "integer", "b": "boolean", "u": "unsigned integer"}


def check_array(
    a: Any,
    name: str,
    *,
    kind: str = "f",
    shape: Sequence[int | None] | None = None,
    ndim: int | None = None,
    finite: bool = True,
    low: float | None = None,
    high: float | None = None,
    dtype: Any = None,
) -> np.ndarray:
    """Check an array value (see :func:`array_attr`); returns it."""
    if not isinstance(a, np.ndarray):
        raise ValueError(f"{name}: expected an array, got {type(a).__name__}")
    if dtype is not None and a.dtype != np.dtype(dtype):
        raise ValueError(f"{name}: expected dtype {np.dtype(dtype)}, got {a.dtype}")
    kinds = "iu" if kind == "i" else kind
    if a.dtype.kind not in kinds or a.dtype.fields is not None:
        raise ValueError(f"{name}: expected a {_KIND_NAMES[kind]} array, got dtype {a.dtype}")
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name}: expected {ndim} dimension(s), got shape {a.shape}")
    if shape is not None:
        ok = a.ndim == len(shape) and all(
            want is None or got == want for got, want in zip(a.shape, shape, strict=True)
        )
        if not ok:
            want_s = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name}: expected shape {want_s}, got {a.shape}")
    if a.size == 0:
        return a
    if kind == "f" and finite and not np.isfinite(a).all():
        raise ValueError(f"{name}: contains NaN or infinite values")
    if low is not None and a.min() < low:
        raise ValueError(f"{name}: value {a.min()} is below {low}")
    if high is not None and a.max() > high:
        raise ValueError(f"{name}: value {a.max()} is above {high}")
    return a


def array_attr(
    obj: Any,
    name: str,
    *,
    kind: str = "f",
    shape: Sequence[int | None] | None = None,
    ndim: int | None = None,
    finite: bool = True,
    low: float | None = None,
    high: float | None = None,
    dtype: Any = None,
    optional: bool = False,
) -> np.ndarray | None:
    """An array attribute with the given dtype kind, shape and value range; returns it.

    Parameters
    ----------
    obj : object
    name : str
        Attribute name (also the start of the error message).
    kind : {"f", "i", "b", "u"}, default="f"
        numpy dtype kind: float, integer (signed or unsigned), boolean, unsigned.
    shape : sequence of int or None, optional
        Expected shape; None matches any length on that axis.
    ndim : int, optional
        Expected number of dimensions (when the lengths are free).
    finite : bool, default=True
        Refuse NaN and infinities (float arrays).
    low, high : float, optional
        Inclusive bounds on every value.
    dtype : dtype, optional
        The exact dtype, where compiled code (Cython, libsvm) takes no other.
    optional : bool, default=False
        Accept ``None`` (returned as is).
    """
    value = _get(obj, name)
    if value is None and optional:
        return None
    return check_array(
        value,
        name,
        kind=kind,
        shape=shape,
        ndim=ndim,
        finite=finite,
        low=low,
        high=high,
        dtype=dtype,
    )


def rankings_attr(
    obj: Any,
    name: str,
    *,
    n_items: int | None = None,
    n_rankings: int | None = None,
    complete: bool = False,
    ties: bool = True,
    optional: bool = False,
) -> Rankings | None:
    """A :class:`~rankclust.Rankings` attribute (its rank matrix was validated when built).

    ``complete``: every row a permutation (no absent item, no tie), as central rankings are;
    ``ties=False``: no two items of a row share a position.
    """
    value = _get(obj, name)
    if value is None and optional:
        return None
    if not isinstance(value, Rankings):
        raise ValueError(f"{name}: expected Rankings, got {type(value).__name__}")
    if n_items is not None and value.n_items != n_items:
        raise ValueError(f"{name}: ranks {value.n_items} items, expected {n_items}")
    if n_rankings is not None and value.n_rankings != n_rankings:
        raise ValueError(f"{name}: holds {value.n_rankings} rankings, expected {n_rankings}")
    if complete:
        check_permutations(value.ranks, name)
    if not ties and value.n_rankings and value.n_items:
        # positions are dense (0, 1, ... per row), so a tie shows as fewer positions than items
        ranks = value.ranks
        if ((ranks.max(axis=1) + 1) != (ranks >= 0).sum(axis=1)).any():
            raise ValueError(f"{name}: a ranking has ties")
    return value


def items_attr(obj: Any, name: str = "items_", *, n_items: int) -> tuple[str, ...] | None:
    """Item names of a fitted model: None or ``n_items`` distinct strings; returns a tuple.

    A model saved before names were kept has no such attribute: it loads unnamed (None).
    """
    if name not in vars(obj):
        setattr(obj, name, None)
    value = _get(obj, name)
    if value is None:
        return None
    if not (
        isinstance(value, tuple | list)
        and len(value) == n_items
        and all(isinstance(x, str) for x in value)
    ):
        raise ValueError(f"{name}: expected None or {n_items} item names")
    if len(set(value)) != n_items:
        raise ValueError(f"{name}: an item name appears more than once")
    return tuple(value)


def unseen_attr(obj: Any, name: str = "unseen_items_", *, n_items: int) -> np.ndarray:
    """Sorted distinct label indices in ``[0, n_items)``, fewer than ``n_items`` of them.

    A model saved before unseen labels were flagged loads with none (an empty array).
    """
    if name not in vars(obj):
        setattr(obj, name, np.empty(0, dtype=np.int64))
    value = array_attr(obj, name, kind="i", ndim=1, low=0, high=n_items - 1)
    if value.size >= n_items or (value.size > 1 and not (np.diff(value) > 0).all()):
        raise ValueError(
            f"{name}: expected sorted distinct indices of fewer than {n_items} labels"
        )
    return value


def check_permutations(pos: np.ndarray, name: str) -> None:
    """Every row of the integer matrix ``pos`` is a permutation of ``0..m-1``."""
    check_array(pos, name, kind="i", ndim=2)
    m = pos.shape[1]
    if pos.size and (pos.min() < 0 or pos.max() >= m):
        raise ValueError(f"{name}: positions must be in [0, {m})")
    if pos.size and not (np.sort(pos, axis=1) == np.arange(m)).all():
        raise ValueError(f"{name}: every row must be a permutation of 0..{m - 1}")


def estimator_attr(
    obj: Any,
    name: str,
    types: type | tuple[type, ...],
    *,
    n_features: int | None = None,
    optional: bool = False,
) -> Any:
    """A nested fitted estimator of one of ``types`` (already validated when it was decoded).

    ``n_features``: the number of input features it must have been fitted with.
    """
    value = _get(obj, name)
    if value is None and optional:
        return None
    if type(value) not in (types if isinstance(types, tuple) else (types,)):
        raise ValueError(f"{name}: unexpected type {type(value).__name__}")
    if n_features is not None and getattr(value, "n_features_in_", n_features) != n_features:
        raise ValueError(
            f"{name}: fitted on {value.n_features_in_} features, expected {n_features}"
        )
    return value


def kind_attr(obj: Any, name: str = "kind_") -> str:
    """A ``kind`` of rankings (:data:`rankclust.KINDS`)."""
    return choice_attr(obj, name, KINDS)


# --------------------------------------------------------------------------------------------
# binary trees
# --------------------------------------------------------------------------------------------
def check_tree(
    feature: np.ndarray,
    threshold: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    *,
    n_features: int,
    name: str,
    split: np.ndarray | None = None,
) -> None:
    """A binary tree in arrays is safe to walk from the root (node 0).

    Every split node (``split``, default ``feature >= 0``) has a feature in
    ``[0, n_features)``, a non-NaN threshold and two children with larger ids than its own
    (so every walk ends, after at most ``n_nodes`` steps) and below ``n_nodes``. All four
    arrays are 1-d of the same length >= 1; the index arrays are integers.
    """
    n = len(feature) if isinstance(feature, np.ndarray) else 0
    check_array(feature, f"{name} feature", kind="i", shape=(None,))
    if n < 1:
        raise ValueError(f"{name}: a tree needs at least one node")
    check_array(threshold, f"{name} threshold", kind="f", shape=(n,), finite=False)
    check_array(left, f"{name} left children", kind="i", shape=(n,))
    check_array(right, f"{name} right children", kind="i", shape=(n,))
    is_split = feature >= 0 if split is None else split
    ids = np.arange(n)
    s_feature, s_left, s_right = feature[is_split], left[is_split], right[is_split]
    if s_feature.size and s_feature.max() >= n_features:
        raise ValueError(f"{name}: a split reads feature {s_feature.max()} of {n_features}")
    if s_feature.size and s_feature.min() < 0:
        raise ValueError(f"{name}: a split has a negative feature index")
    if np.isnan(threshold[is_split]).any():
        raise ValueError(f"{name}: a split has a NaN threshold")
    for side, child in (("left", s_left), ("right", s_right)):
        if not ((child > ids[is_split]) & (child < n)).all():
            raise ValueError(f"{name}: {side} child index out of range (must be in (node, {n}))")


# --------------------------------------------------------------------------------------------
# scikit-learn
# --------------------------------------------------------------------------------------------
def _sk_tree_node_dtype() -> np.dtype:
    from sklearn.tree._tree import Tree

    return Tree(1, np.ones(1, dtype=np.intp), 1).__getstate__()["nodes"].dtype


def check_sklearn_tree(args: Any, state: Any) -> None:
    """Constructor arguments and ``__setstate__`` dict of a scikit-learn ``Tree``.

    Checked before the tree is built: the constructor allocates from ``n_outputs`` and the
    Cython ``apply`` follows ``left_child``/``right_child`` and reads ``X[:, feature]``
    without bounds checks.
    """
    if not (isinstance(args, tuple) and len(args) == 3):
        raise ValueError("tree: constructor arguments must be (n_features, n_classes, n_outputs)")
    n_features, n_classes, n_outputs = args
    for label, v in (("n_features", n_features), ("n_outputs", n_outputs)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 1 <= v <= 2**20:
            raise ValueError(f"tree: {label} must be an integer in [1, 2**20], got {v!r:.40}")
    check_array(n_classes, "tree n_classes", kind="i", shape=(n_outputs,), low=1, high=2**20)
    if not isinstance(state, dict) or set(state) != {
        "max_depth",
        "node_count",
        "nodes",
        "values",
    }:
        raise ValueError("tree: state must hold max_depth, node_count, nodes, values")
    nodes, values = state["nodes"], state["values"]
    if not isinstance(nodes, np.ndarray) or nodes.dtype != _sk_tree_node_dtype():
        raise ValueError("tree: nodes must be a structured array of scikit-learn's node type")
    n = nodes.shape[0] if nodes.ndim == 1 else -1
    for label in ("node_count", "max_depth"):
        v = state[label]
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v <= MAX_COUNT:
            raise ValueError(f"tree: {label} must be a non-negative integer")
    if n < 1 or state["node_count"] != n:
        raise ValueError(f"tree: node_count {state['node_count']} does not match the nodes")
    check_array(values, "tree values", kind="f", shape=(n, n_outputs, int(n_classes.max())))
    leaf = (nodes["left_child"] == -1) & (nodes["right_child"] == -1)
    check_tree(
        np.asarray(nodes["feature"]),
        np.asarray(nodes["threshold"]),
        np.asarray(nodes["left_child"]),
        np.asarray(nodes["right_child"]),
        n_features=int(n_features),
        name="tree",
        split=~leaf,
    )
    if (nodes["missing_go_to_left"] > 1).any():
        raise ValueError("tree: missing_go_to_left must be 0 or 1")
    if (nodes["n_node_samples"] < 0).any() or not np.isfinite(nodes["impurity"]).all():
        raise ValueError("tree: negative node sizes or non-finite impurities")


def _n_features(obj: Any) -> int:
    return int_attr(obj, "n_features_in_", low=1)


def _classes(obj: Any) -> int:
    classes = _get(obj, "classes_")
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size < 1:
        raise ValueError("classes_: expected a non-empty 1-d array")
    return classes.size


def _sk_scaler(obj: Any) -> None:
    d = _n_features(obj)
    for name in ("mean_", "var_", "scale_"):
        array_attr(obj, name, shape=(d,), optional=True)


def _sk_minmax(obj: Any) -> None:
    d = _n_features(obj)
    for name in ("scale_", "min_", "data_min_", "data_max_", "data_range_"):
        array_attr(obj, name, shape=(d,))


def _sk_label_encoder(obj: Any) -> None:
    _classes(obj)


def _sk_linear(obj: Any) -> None:
    d = _n_features(obj)
    coef = array_attr(obj, "coef_")
    if coef.shape[-1:] != (d,) or coef.ndim > 2:
        raise ValueError(f"coef_: expected shape (*, {d}) or ({d},), got {coef.shape}")
    intercept = _get(obj, "intercept_")
    if isinstance(intercept, np.ndarray):
        array_attr(obj, "intercept_", ndim=1)
    else:
        float_attr(obj, "intercept_")
    if "classes_" in vars(obj):
        c = _classes(obj)
        rows = 1 if c == 2 else c
        array_attr(obj, "coef_", shape=(rows, d))
        array_attr(obj, "intercept_", shape=(rows,))


def _sk_gaussian_nb(obj: Any) -> None:
    d, c = _n_features(obj), _classes(obj)
    array_attr(obj, "theta_", shape=(c, d))
    array_attr(obj, "var_", shape=(c, d), low=0.0)
    array_attr(obj, "class_prior_", shape=(c,), low=0.0)
    array_attr(obj, "class_count_", shape=(c,), low=0.0)
    float_attr(obj, "epsilon_", low=0.0)


def _sk_projection(obj: Any) -> None:
    d = _n_features(obj)
    k = array_attr(obj, "components_", ndim=2).shape[0]
    array_attr(obj, "components_", shape=(k, d))
    for name in ("explained_variance_", "explained_variance_ratio_", "singular_values_"):
        array_attr(obj, name, shape=(k,), optional=True)
    if "mean_" in vars(obj):
        array_attr(obj, "mean_", shape=(d,))
        int_attr(obj, "n_components_", low=k, high=k)
        float_attr(obj, "noise_variance_")


def _sk_nystroem(obj: Any) -> None:
    d = _n_features(obj)
    k = array_attr(obj, "components_", ndim=2).shape[0]
    array_attr(obj, "components_", shape=(k, d))
    array_attr(obj, "normalization_", shape=(k, k))
    array_attr(obj, "component_indices_", kind="i", shape=(k,))
    if not isinstance(obj.kernel, str):
        raise ValueError("kernel: only named kernels may be loaded")


def _sk_rbf_sampler(obj: Any) -> None:
    d = _n_features(obj)
    k = array_attr(obj, "random_offset_", ndim=1).shape[0]
    array_attr(obj, "random_weights_", shape=(d, k))
    float_attr(obj, "_gamma", low=0.0)


def _sk_kmeans(obj: Any) -> None:
    from sklearn.utils._openmp_helpers import _openmp_effective_n_threads

    d = _n_features(obj)
    centers = array_attr(obj, "cluster_centers_", shape=(None, d))
    if centers.dtype != np.float64 or not centers.flags.c_contiguous or centers.shape[0] < 1:
        raise ValueError("cluster_centers_: expected a C-contiguous float64 (k, d) array, k >= 1")
    array_attr(obj, "labels_", kind="i", ndim=1, low=0, high=centers.shape[0] - 1)
    # the thread count of the machine that saved the model is not this machine's
    obj._n_threads = _openmp_effective_n_threads()


def _sk_neighbors(obj: Any) -> None:
    from sklearn.neighbors import KDTree

    d = _n_features(obj)
    X = array_attr(obj, "_fit_X", shape=(None, d))
    if X.dtype != np.float64 or not X.flags.c_contiguous or X.shape[0] < 1:
        raise ValueError("_fit_X: expected a C-contiguous float64 (n, d) array, n >= 1")
    n = X.shape[0]
    int_attr(obj, "n_samples_fit_", low=n, high=n)
    method = choice_attr(obj, "_fit_method", ("brute", "kd_tree", "ball_tree"))
    # None passes scikit-learn's parameter check (radius models) but not kneighbors
    int_attr(obj, "n_neighbors", low=1)
    for name in ("metric", "effective_metric_"):
        value = obj.metric if name == "metric" else _get(obj, name)
        if value not in KDTree.valid_metrics:
            raise ValueError(f"{name}: {value!r:.40} is not a loadable metric")
    params = _get(obj, "effective_metric_params_")
    if not isinstance(params, dict) or not set(params) <= {"p"}:
        raise ValueError("effective_metric_params_: only 'p' may be given")
    if "p" in params:
        float_attr(Box(params["p"]), "value", low=1.0)
    if "_y" in vars(obj):
        _sk_neighbors_targets(obj, n)
    tree = vars(obj).get("_tree")
    if method == "brute":
        if tree is not None:
            raise ValueError("_tree: a brute-force model keeps no tree")
    elif not (isinstance(tree, dict) and set(tree) == {"__neighbors_tree__"}):
        raise ValueError("_tree: expected the placeholder of a search tree")


def _sk_neighbors_targets(obj: Any, n: int) -> None:
    """The training targets ``_y`` of a loaded neighbours model (``n`` rows), with its
    ``outputs_2d_`` and ``classes_`` when a classifier has them."""
    y = _get(obj, "_y")
    if not isinstance(y, np.ndarray) or y.ndim not in (1, 2) or y.shape[0] != n:
        raise ValueError(f"_y: expected {n} rows")
    if "outputs_2d_" in vars(obj):
        two_d = choice_attr(obj, "outputs_2d_", (True, False))
        classes = _get(obj, "classes_")
        if y.ndim != 1 + two_d or isinstance(classes, list) != two_d:
            raise ValueError("_y, classes_: do not match outputs_2d_")
    if "classes_" in vars(obj):
        classes = _get(obj, "classes_")
        counts = [len(c) for c in classes] if isinstance(classes, list) else [len(classes)]
        cols = y.reshape(n, -1)
        if len(counts) != cols.shape[1]:
            raise ValueError("_y: one column per output expected")
        for j, c in enumerate(counts):
            check_array(cols[:, j], "_y", kind="i", low=0, high=c - 1)
    else:
        check_array(y, "_y", kind="f" if y.dtype.kind == "f" else "i")


class Box:
    """One value under the attribute name ``value`` (to reuse the attribute checks)."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _sk_svc(obj: Any) -> None:
    d = _n_features(obj)
    c = _classes(obj)
    if obj.kernel not in ("linear", "poly", "rbf", "sigmoid"):
        raise ValueError(f"kernel: {obj.kernel!r:.40} may not be loaded (named kernels only)")
    if _get(obj, "_sparse") is not False:
        raise ValueError("_sparse: models fitted on sparse data may not be loaded")
    # libsvm's Cython wrapper takes exactly these dtypes
    f8, i4 = np.float64, np.int32
    n_support = array_attr(obj, "_n_support", kind="i", shape=(c,), low=0, dtype=i4)
    n_sv = int(n_support.sum())
    sv = array_attr(obj, "support_vectors_", shape=(n_sv, d), dtype=f8)
    if not sv.flags.c_contiguous:
        raise ValueError("support_vectors_: expected a C-contiguous array")
    shape_fit = _get(obj, "shape_fit_")
    if not (isinstance(shape_fit, tuple) and len(shape_fit) == 2 and shape_fit[1] == d):
        raise ValueError("shape_fit_: expected (n_samples, n_features)")
    n_fit = int(shape_fit[0])
    array_attr(obj, "support_", kind="i", shape=(n_sv,), low=0, high=max(n_fit - 1, 0), dtype=i4)
    pairs = c * (c - 1) // 2
    for name in ("_dual_coef_", "dual_coef_"):
        array_attr(obj, name, shape=(c - 1, n_sv), dtype=f8)
    for name in ("_intercept_", "intercept_"):
        array_attr(obj, name, shape=(pairs,), dtype=f8)
    array_attr(obj, "class_weight_", shape=(c,), dtype=f8)
    for name in ("_probA", "_probB"):
        size = array_attr(obj, name, ndim=1, dtype=f8).shape[0]
        if size not in (0, pairs):
            raise ValueError(f"{name}: expected 0 or {pairs} values, got {size}")
    float_attr(obj, "_gamma", low=0.0)
    int_attr(obj, "fit_status_", low=0, high=0)
    for name in ("coef0", "tol", "C", "cache_size"):
        float_attr(obj, name)
    int_attr(obj, "degree", low=0, high=100)


def _sk_decision_tree(obj: Any) -> None:
    from sklearn.tree._tree import Tree

    d = _n_features(obj)
    tree = _get(obj, "tree_")
    if type(tree) is not Tree:
        raise ValueError("tree_: expected a scikit-learn Tree")
    if tree.n_features != d:
        raise ValueError(f"tree_: built on {tree.n_features} features, expected {d}")
    n_out = int_attr(obj, "n_outputs_", low=tree.n_outputs, high=tree.n_outputs)
    if "classes_" in vars(obj):
        classes = _get(obj, "classes_")
        counts = [len(c) for c in classes] if n_out > 1 else [len(classes)]
        if list(tree.n_classes) != counts:
            raise ValueError("classes_: does not match the tree's classes")


def _sk_pipeline(obj: Any) -> None:
    if obj.memory is not None:
        raise ValueError("memory: a loaded pipeline may not cache to disk")
    steps = obj.steps
    if not isinstance(steps, list) or not steps:
        raise ValueError("steps: expected a non-empty list")
    for step in steps:
        if not (isinstance(step, tuple | list) and len(step) == 2 and isinstance(step[0], str)):
            raise ValueError("steps: expected (name, estimator) pairs")


_SKLEARN_CHECKS: dict[str, Callable[[Any], None]] = {
    "sklearn.cluster.KMeans": _sk_kmeans,
    "sklearn.cluster.MiniBatchKMeans": _sk_kmeans,
    "sklearn.decomposition.PCA": _sk_projection,
    "sklearn.decomposition.TruncatedSVD": _sk_projection,
    "sklearn.kernel_approximation.Nystroem": _sk_nystroem,
    "sklearn.kernel_approximation.RBFSampler": _sk_rbf_sampler,
    "sklearn.linear_model.LinearRegression": _sk_linear,
    "sklearn.linear_model.LogisticRegression": _sk_linear,
    "sklearn.linear_model.Ridge": _sk_linear,
    "sklearn.naive_bayes.GaussianNB": _sk_gaussian_nb,
    "sklearn.neighbors.KNeighborsClassifier": _sk_neighbors,
    "sklearn.neighbors.KNeighborsRegressor": _sk_neighbors,
    "sklearn.neighbors.NearestNeighbors": _sk_neighbors,
    "sklearn.pipeline.Pipeline": _sk_pipeline,
    "sklearn.preprocessing.LabelEncoder": _sk_label_encoder,
    "sklearn.preprocessing.MinMaxScaler": _sk_minmax,
    "sklearn.preprocessing.StandardScaler": _sk_scaler,
    "sklearn.svm.LinearSVC": _sk_linear,
    "sklearn.svm.SVC": _sk_svc,
    "sklearn.tree.DecisionTreeClassifier": _sk_decision_tree,
    "sklearn.tree.DecisionTreeRegressor": _sk_decision_tree,
}


# fitted attributes a prediction reads, beyond those the checks above read themselves
_SKLEARN_REQUIRED: dict[str, tuple[str, ...]] = {
    "sklearn.cluster.KMeans": ("n_features_in_", "cluster_centers_", "_n_threads"),
    "sklearn.cluster.MiniBatchKMeans": ("n_features_in_", "cluster_centers_", "_n_threads"),
    "sklearn.linear_model.LogisticRegression": ("classes_",),
    "sklearn.naive_bayes.GaussianNB": ("classes_",),
    "sklearn.neighbors.KNeighborsClassifier": ("classes_", "_y", "outputs_2d_", "_tree"),
    "sklearn.neighbors.KNeighborsRegressor": ("_y", "_tree"),
    "sklearn.neighbors.NearestNeighbors": ("_tree",),
    "sklearn.svm.LinearSVC": ("classes_",),
    "sklearn.svm.SVC": ("classes_", "class_weight_", "_effective_probability"),
    "sklearn.tree.DecisionTreeClassifier": ("classes_", "n_classes_", "n_outputs_", "tree_"),
    "sklearn.tree.DecisionTreeRegressor": ("n_outputs_", "tree_"),
}


def check_sklearn_state(obj: Any, public_path: str) -> None:
    """Validate a loaded whitelisted scikit-learn object (``public_path`` names its class).

    Its hyper-parameters go through scikit-learn's own ``_validate_params``; no parameter or
    attribute may be a function; a fitted object's arrays are checked against each other
    (an unfitted one has none). Rebuilds a neighbours estimator's search tree.
    """
    for name, value in vars(obj).items():
        if callable(value) and not hasattr(value, "get_params"):
            raise ValueError(f"{name}: functions may not be loaded into scikit-learn objects")
    if hasattr(type(obj), "_parameter_constraints"):
        try:
            type(obj)._validate_params(obj)
        except (ValueError, TypeError) as exc:  # sklearn's InvalidParameterError and kin
            raise ValueError(f"parameters: {exc}") from None
    check_n_jobs(obj)
    if public_path == "sklearn.pipeline.Pipeline" or is_fitted(obj):
        for name in _SKLEARN_REQUIRED.get(public_path, ()):
            _get(obj, name)
        _SKLEARN_CHECKS[public_path](obj)
    tree = vars(obj).get("_tree")
    if isinstance(tree, dict) and "__neighbors_tree__" in tree:
        from sklearn import neighbors

        cls = {"KDTree": neighbors.KDTree, "BallTree": neighbors.BallTree}.get(
            tree["__neighbors_tree__"]
        )
        if cls is None:
            raise ValueError("_tree: unknown search tree")
        obj._tree = cls(
            obj._fit_X,
            obj.leaf_size,
            metric=obj.effective_metric_,
            **obj.effective_metric_params_,
        )
