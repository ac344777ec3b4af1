"""Save and load fitted estimators in a safe format: JSON plus numpy arrays, never pickle.

A saved model is one zip archive holding two members:

* ``model.json`` -- the class of the model, its hyper-parameters (``get_params(deep=False)``)
  and its state (every instance attribute: the fitted ``*_`` attributes and any private
  bookkeeping), encoded as JSON with small tagged objects for non-JSON values;
* ``arrays.npz`` -- every numpy array of the model, read back with ``allow_pickle=False``.

Loading never runs code chosen by the file: a class is only imported when it is defined in
``rankclust`` or is on a short whitelist of scikit-learn classes (:data:`SKLEARN_WHITELIST`),
functions only when they are defined in ``rankclust``, and arrays of Python objects are refused
both when saving and when loading. Any other class path in a file raises ``ValueError``.

The encoding is generic: an estimator written after this module needs no code here as long as
its attributes are made of numbers, strings, lists, tuples, dicts, numpy arrays,
:class:`~rankclust.Rankings`, random states, scipy sparse matrices and other saveable objects
(nested estimators included). Saving anything else raises ``TypeError`` naming the attribute.

Examples
--------
>>> import numpy as np, tempfile, os
>>> from sklearn.preprocessing import StandardScaler
>>> scaler = StandardScaler().fit(np.arange(6.0).reshape(3, 2))
>>> path = os.path.join(tempfile.mkdtemp(), "scaler.zip")
>>> save(scaler, path)
>>> load(path).mean_
array([2., 3.])
"""

from __future__ import annotations

import importlib
import io
import json
import math
import os
import warnings
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np

from rankclust.rankings import Rankings

__all__ = ["FORMAT_VERSION", "SKLEARN_WHITELIST", "load", "save"]

#: Version of the archive layout; bumped on incompatible changes.
FORMAT_VERSION = 1

#: scikit-learn classes that may appear in a saved model, by public import path. Instances are
#: rebuilt as ``cls(**params)`` plus their saved attributes, so only classes whose state is
#: plain data (arrays, numbers, nested whitelisted objects) belong here.
SKLEARN_WHITELIST: frozenset[str] = frozenset(
    {
        "sklearn.cluster.KMeans",
        "sklearn.cluster.MiniBatchKMeans",
        "sklearn.decomposition.PCA",
        "sklearn.decomposition.TruncatedSVD",
        "sklearn.kernel_approximation.Nystroem",
        "sklearn.kernel_approximation.RBFSampler",
        "sklearn.linear_model.LinearRegression",
        "sklearn.linear_model.LogisticRegression",
        "sklearn.linear_model.Ridge",
        "sklearn.naive_bayes.GaussianNB",
        "sklearn.neighbors.KNeighborsClassifier",
        "sklearn.neighbors.KNeighborsRegressor",
        "sklearn.neighbors.NearestNeighbors",
        "sklearn.pipeline.Pipeline",
        "sklearn.preprocessing.LabelEncoder",
        "sklearn.preprocessing.MinMaxScaler",
        "sklearn.preprocessing.StandardScaler",
        "sklearn.svm.LinearSVC",
        "sklearn.svm.SVC",
        "sklearn.tree.DecisionTreeClassifier",
        "sklearn.tree.DecisionTreeRegressor",
    }
)

# numpy scalar types and builtins that may appear as values (e.g. ``dtype=np.float64``).
_TYPE_WHITELIST: dict[str, type] = {
    f"numpy.{t.__name__}": t
    for t in (np.float64, np.float32, np.int64, np.int32, np.intp, np.bool_, np.uint8)
} | {f"builtins.{t.__name__}": t for t in (int, float, bool, str, complex)}

_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_JSON_MEMBER = "model.json"
_NPZ_MEMBER = "arrays.npz"
_NOT_SAVED = object()


# --------------------------------------------------------------------------------------------
# class paths
# --------------------------------------------------------------------------------------------
def _sklearn_public_path(cls: type) -> str | None:
    """The whitelisted public path of a scikit-learn class, or None."""
    if not cls.__module__.startswith("sklearn."):
        return None
    top = cls.__module__.split(".")[1]
    path = f"sklearn.{top}.{cls.__qualname__}"
    return path if path in SKLEARN_WHITELIST else None


def _class_path(cls: type, where: str) -> str:
    if cls.__module__ == "rankclust" or cls.__module__.startswith("rankclust."):
        return f"{cls.__module__}:{cls.__qualname__}"
    public = _sklearn_public_path(cls)
    if public is not None:
        module, _, name = public.rpartition(".")
        return f"{module}:{name}"
    raise TypeError(
        f"cannot save {where}: class {cls.__module__}.{cls.__qualname__} is neither a rankclust "
        f"class nor on the scikit-learn whitelist (rankclust.persistence.SKLEARN_WHITELIST)"
    )


def _resolve_class(path: str) -> type:
    """Import a class from a stored path, refusing anything outside the whitelist."""
    if not isinstance(path, str) or path.count(":") != 1:
        raise ValueError(f"malformed class path {path!r} in saved model")
    module, qualname = path.split(":")
    allowed_rankclust = module == "rankclust" or module.startswith("rankclust.")
    if not (allowed_rankclust or f"{module}.{qualname}" in SKLEARN_WHITELIST):
        raise ValueError(
            f"refusing to load class {module}.{qualname}: only rankclust classes and "
            f"whitelisted scikit-learn classes may be loaded"
        )
    if not all(part.isidentifier() and not part.startswith("__") for part in qualname.split(".")):
        raise ValueError(f"malformed class path {path!r} in saved model")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise ValueError(
            f"saved model needs {module}.{qualname}, which is not available in this build"
        ) from None
    if not isinstance(obj, type):
        raise ValueError(f"{module}.{qualname} is not a class")
    return obj


def _resolve_function(path: str) -> Callable:
    if not isinstance(path, str) or path.count(":") != 1:
        raise ValueError(f"malformed function path {path!r} in saved model")
    module, qualname = path.split(":")
    if not (module == "rankclust" or module.startswith("rankclust.")):
        raise ValueError(
            f"refusing to load function {module}.{qualname}: not a rankclust function"
        )
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise ValueError(
            f"saved model needs {module}.{qualname}, which is not available"
        ) from None
    if not callable(obj) or isinstance(obj, type):
        raise ValueError(f"{module}.{qualname} is not a function")
    return obj


# --------------------------------------------------------------------------------------------
# encoding
# --------------------------------------------------------------------------------------------
class _Encoder:
    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, a: np.ndarray, where: str) -> dict:
        if a.dtype.hasobject:
            # an object array of plain scalars/strings (e.g. sklearn's ``classes_`` of str)
            try:
                items = [self.encode(x, f"{where}[...]") for x in a.ravel().tolist()]
            except TypeError:
                raise TypeError(f"cannot save {where}: array of Python objects") from None
            return {"__objarray__": items, "shape": list(a.shape)}
        key = f"a{len(self.arrays)}"
        self.arrays[key] = a
        return {"__ndarray__": key}

    def encode(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int) and not isinstance(value, np.integer):
            return value
        if isinstance(value, float) and not isinstance(value, np.floating):
            return value if math.isfinite(value) else {"__float__": repr(value)}
        if isinstance(value, np.ndarray):
            return self.array(value, where)
        if isinstance(value, np.generic):
            return {"__npscalar__": self.array(np.asarray(value), where)}
        if isinstance(value, Rankings):
            return {
                "__rankings__": {
                    "ranks": self.array(np.asarray(value.ranks), f"{where}.ranks"),
                    "kind": value.kind,
                    "weights": (
                        self.array(np.asarray(value.weights), f"{where}.weights")
                        if value.is_weighted
                        else None
                    ),
                    "items": list(value.items) if value.items is not None else None,
                }
            }
        if isinstance(value, list):
            return [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, tuple) and not hasattr(value, "_fields"):
            return {"__tuple__": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if isinstance(value, set | frozenset):
            items = sorted(value, key=repr)
            return {
                "__set__": [self.encode(v, f"{where}{{}}") for v in items],
                "frozen": isinstance(value, frozenset),
            }
        if isinstance(value, dict):
            return {
                "__dict__": [
                    [self.encode(k, f"{where} key"), self.encode(v, f"{where}[{k!r}]")]
                    for k, v in value.items()
                ]
            }
        if isinstance(value, complex):
            return {"__complex__": [value.real, value.imag]}
        if isinstance(value, np.dtype):
            if value.hasobject:
                raise TypeError(f"cannot save {where}: object dtype")
            return {"__dtype__": value.str}
        if isinstance(value, np.random.RandomState):
            return {"__randomstate__": self.encode(value.get_state(legacy=False), where)}
        if isinstance(value, np.random.Generator):
            bitgen = type(value.bit_generator).__name__
            if bitgen not in _BIT_GENERATORS:
                raise TypeError(f"cannot save {where}: bit generator {bitgen}")
            return {
                "__generator__": bitgen,
                "state": self.encode(value.bit_generator.state, f"{where}.state"),
            }
        if isinstance(value, type):
            name = f"{value.__module__}.{value.__qualname__}"
            if name not in _TYPE_WHITELIST:
                raise TypeError(f"cannot save {where}: type {name}")
            return {"__type__": name}
        special = _encode_special(self, value, where)
        if special is not _NOT_SAVED:
            return special
        if _is_function(value):
            return self.function(value, where)
        if isinstance(value, tuple):  # a named tuple (e.g. a result record)
            return {
                "__namedtuple__": _class_path(type(value), where),
                "values": [
                    self.encode(v, f"{where}.{f}")
                    for f, v in zip(value._fields, value, strict=True)
                ],
            }
        return self.object(value, where)

    def function(self, fn: Any, where: str) -> dict:
        module = getattr(fn, "__module__", None) or ""
        qualname = getattr(fn, "__qualname__", "")
        if not (module == "rankclust" or module.startswith("rankclust.")) or "<" in qualname:
            raise TypeError(
                f"cannot save {where}: only functions defined in rankclust can be saved "
                f"(got {module}.{qualname or fn!r})"
            )
        return {"__function__": f"{module}:{qualname}"}

    def object(self, obj: Any, where: str) -> dict:
        cls = type(obj)
        path = _class_path(cls, where)
        params = None
        if hasattr(obj, "get_params") and hasattr(obj, "set_params"):
            params = obj.get_params(deep=False)
        state = _object_state(obj, where)
        if params is not None:
            state = {k: v for k, v in state.items() if k not in params}
            params_enc = {k: self.encode(v, f"{where}.{k}") for k, v in params.items()}
        else:
            params_enc = None
        return {
            "__object__": path,
            "params": params_enc,
            "state": {k: self.encode(v, f"{where}.{k}") for k, v in state.items()},
        }


def _is_function(value: Any) -> bool:
    import types

    if isinstance(value, types.FunctionType | types.BuiltinFunctionType):
        return True
    # a numba-compiled function (its ``py_func`` is the plain Python function)
    return isinstance(getattr(value, "py_func", None), types.FunctionType)


def _object_state(obj: Any, where: str) -> dict[str, Any]:
    state: dict[str, Any] = {}
    if hasattr(obj, "__dict__"):
        state.update(vars(obj))
    for cls in type(obj).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if slot in ("__dict__", "__weakref__"):
                continue
            if hasattr(obj, slot):
                state[slot] = getattr(obj, slot)
    if not hasattr(obj, "__dict__") and not state and not hasattr(obj, "__slots__"):
        raise TypeError(f"cannot save {where}: {type(obj).__name__} exposes no state")
    return state


# ----------------------------------------------------------------- special types (no pickle)
def _encode_special(enc: _Encoder, value: Any, where: str) -> Any:
    import scipy.sparse as sp

    if sp.issparse(value):
        fmt = value.format
        if fmt not in ("csr", "csc"):
            value = value.tocsr()
            fmt = "csr"
        return {
            "__sparse__": fmt,
            "array_api": isinstance(value, sp.sparray),
            "data": enc.array(value.data, f"{where}.data"),
            "indices": enc.array(value.indices, f"{where}.indices"),
            "indptr": enc.array(value.indptr, f"{where}.indptr"),
            "shape": list(value.shape),
        }
    module = type(value).__module__ or ""
    if module == "sklearn.tree._tree" and type(value).__name__ == "Tree":
        # scikit-learn's own pickling protocol for trees: constructor args + a dict of arrays
        _, args, state = value.__reduce__()
        return {"__sktree__": enc.encode(args, f"{where}.args"), "state": enc.encode(state, where)}
    if module.startswith("sklearn.neighbors.") and type(value).__name__ in ("KDTree", "BallTree"):
        # rebuilt from the owning estimator's training data after loading (see _post_load)
        return {"__neighbors_tree__": type(value).__name__}
    return _NOT_SAVED


def _post_load(obj: Any) -> None:
    """Rebuild derived objects that are not stored (a neighbours estimator's search tree).

    A rankclust estimator that keeps such an object defines ``_rebuild_after_load()``.
    """
    hook = getattr(obj, "_rebuild_after_load", None)
    if callable(hook):
        hook()
        return
    tree = getattr(obj, "_tree", None)
    if isinstance(tree, dict) and "__neighbors_tree__" in tree:
        from sklearn import neighbors

        cls = getattr(neighbors, tree["__neighbors_tree__"])
        obj._tree = cls(
            obj._fit_X,
            obj.leaf_size,
            metric=obj.effective_metric_,
            **(obj.effective_metric_params_ or {}),
        )


# --------------------------------------------------------------------------------------------
# decoding
# --------------------------------------------------------------------------------------------
class _Decoder:
    def __init__(self, arrays: Any) -> None:
        self.arrays = arrays

    def array(self, node: dict) -> np.ndarray:
        if "__objarray__" in node:
            items = [self.decode(x) for x in node["__objarray__"]]
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out.reshape(node["shape"])
        key = node["__ndarray__"]
        if key not in self.arrays:
            raise ValueError(f"saved model refers to a missing array {key!r}")
        return self.arrays[key]

    def decode(self, node: Any) -> Any:
        if node is None or isinstance(node, bool | int | float | str):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            raise ValueError(f"unexpected JSON value {node!r} in saved model")
        if "__ndarray__" in node or "__objarray__" in node:
            return self.array(node)
        if "__npscalar__" in node:
            return self.array(node["__npscalar__"])[()]
        if "__float__" in node:
            return float(node["__float__"])
        if "__complex__" in node:
            return complex(*node["__complex__"])
        if "__tuple__" in node:
            return tuple(self.decode(v) for v in node["__tuple__"])
        if "__set__" in node:
            items = [self.decode(v) for v in node["__set__"]]
            return frozenset(items) if node.get("frozen") else set(items)
        if "__dict__" in node:
            return {_hashable(self.decode(k)): self.decode(v) for k, v in node["__dict__"]}
        if "__rankings__" in node:
            r = node["__rankings__"]
            weights = None if r["weights"] is None else self.array(r["weights"])
            return Rankings(
                self.array(r["ranks"]), kind=r["kind"], weights=weights, items=r["items"]
            )
        if "__dtype__" in node:
            dt = np.dtype(node["__dtype__"])
            if dt.hasobject:
                raise ValueError("refusing an object dtype in saved model")
            return dt
        if "__type__" in node:
            name = node["__type__"]
            if name not in _TYPE_WHITELIST:
                raise ValueError(f"refusing to load type {name!r}")
            return _TYPE_WHITELIST[name]
        if "__randomstate__" in node:
            rs = np.random.RandomState()
            rs.set_state(self.decode(node["__randomstate__"]))
            return rs
        if "__generator__" in node:
            name = node["__generator__"]
            if name not in _BIT_GENERATORS:
                raise ValueError(f"refusing bit generator {name!r}")
            bitgen = getattr(np.random, name)()
            bitgen.state = self.decode(node["state"])
            return np.random.Generator(bitgen)
        if "__function__" in node:
            return _resolve_function(node["__function__"])
        if "__sparse__" in node:
            import scipy.sparse as sp

            fmt = node["__sparse__"]
            if fmt not in ("csr", "csc"):
                raise ValueError(f"unknown sparse format {fmt!r}")
            name = f"{fmt}_{'array' if node.get('array_api') else 'matrix'}"
            parts = (
                self.array(node["data"]),
                self.array(node["indices"]),
                self.array(node["indptr"]),
            )
            return getattr(sp, name)(parts, shape=tuple(node["shape"]))
        if "__sktree__" in node:
            from sklearn.tree._tree import Tree

            tree = Tree(*self.decode(node["__sktree__"]))
            tree.__setstate__(self.decode(node["state"]))
            return tree
        if "__neighbors_tree__" in node:
            return dict(node)  # placeholder; rebuilt by _post_load of the owner
        if "__object__" in node:
            return self.object(node)
        if "__namedtuple__" in node:
            cls = _resolve_class(node["__namedtuple__"])
            if not (issubclass(cls, tuple) and hasattr(cls, "_fields")):
                raise ValueError(f"{node['__namedtuple__']} is not a named tuple")
            return cls(*(self.decode(v) for v in node["values"]))
        raise ValueError(f"unknown tagged value {sorted(node)} in saved model")

    def object(self, node: dict) -> Any:
        cls = _resolve_class(node["__object__"])
        params = node.get("params")
        if params is not None:
            obj = cls(**{k: self.decode(v) for k, v in params.items()})
        else:
            obj = cls.__new__(cls)
        for name, value in node.get("state", {}).items():
            if not isinstance(name, str) or name.startswith("__"):
                raise ValueError(f"refusing attribute name {name!r} in saved model")
            object.__setattr__(obj, name, self.decode(value))
        _post_load(obj)
        return obj


def _hashable(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_hashable(k) for k in key)
    return key


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------
def save(model: Any, path: str | os.PathLike) -> None:
    """Save a fitted estimator (or any rankclust result object) to ``path``.

    Parameters
    ----------
    model : object
        An instance of a rankclust class or of a whitelisted scikit-learn class
        (:data:`SKLEARN_WHITELIST`), fitted or not.
    path : str or path-like
        Destination file (a zip archive; the suffix is up to you, e.g. ``model.zip``).
        Overwritten if it exists.

    Raises
    ------
    TypeError
        When the model, or something inside it, cannot be stored safely (a class outside the
        whitelist, a lambda, an array of arbitrary Python objects); the message names the
        attribute.

    Notes
    -----
    Complexity: O(size of the model) time and memory.
    """
    import sklearn

    import rankclust

    enc = _Encoder()
    tree = enc.encode(model, type(model).__name__)
    if not (isinstance(tree, dict) and "__object__" in tree):
        raise TypeError(f"save() needs an estimator or result object, got {type(model).__name__}")
    meta = {
        "format": "rankclust-model",
        "format_version": FORMAT_VERSION,
        "rankclust_version": rankclust.__version__,
        "sklearn_version": sklearn.__version__,
        "numpy_version": np.__version__,
        "model": tree,
    }
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **enc.arrays)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(_JSON_MEMBER, json.dumps(meta, indent=1, allow_nan=False))
        zf.writestr(_NPZ_MEMBER, buffer.getvalue())


def load(path: str | os.PathLike) -> Any:
    """Load a model written by :func:`save`.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    model : object
        An instance of the saved class with its parameters and fitted attributes restored.

    Raises
    ------
    ValueError
        When the file is not a rankclust model, or names a class or function that may not be
        loaded (anything outside rankclust and :data:`SKLEARN_WHITELIST`).
    FileNotFoundError
        When ``path`` does not exist.

    Notes
    -----
    Complexity: O(size of the model) time and memory. Arrays are read with
    ``allow_pickle=False``; no code named by the file is run except the constructors of
    whitelisted classes.
    """
    import rankclust

    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise ValueError(f"{os.fspath(path)}: not a rankclust model file") from None
    with zf:
        names = set(zf.namelist())
        if _JSON_MEMBER not in names or _NPZ_MEMBER not in names:
            raise ValueError(f"{os.fspath(path)}: not a rankclust model file")
        try:
            meta = json.loads(zf.read(_JSON_MEMBER))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{os.fspath(path)}: corrupt model.json ({exc})") from None
        arrays = np.load(io.BytesIO(zf.read(_NPZ_MEMBER)), allow_pickle=False)
        arrays = {k: arrays[k] for k in arrays.files}
    if not isinstance(meta, dict) or meta.get("format") != "rankclust-model":
        raise ValueError(f"{os.fspath(path)}: not a rankclust model file")
    if meta.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(
            f"{os.fspath(path)}: written by a newer rankclust (format "
            f"{meta.get('format_version')}); upgrade rankclust to load it"
        )
    if meta.get("rankclust_version") != rankclust.__version__:
        warnings.warn(
            f"model saved with rankclust {meta.get('rankclust_version')}, loading with "
            f"{rankclust.__version__}; check its predictions",
            UserWarning,
            stacklevel=2,
        )
    return _Decoder(arrays).decode(meta["model"])
