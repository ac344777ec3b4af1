"""Save and load fitted estimators in a safe format: JSON plus numpy arrays, never pickle.

A saved model is one zip archive holding two members:

* ``model.json`` -- the class of the model, its hyper-parameters (``get_params(deep=False)``)
  and its state (every instance attribute: the fitted ``*_`` attributes and any private
  bookkeeping), encoded as JSON with small tagged objects for non-JSON values;
* ``arrays.npz`` -- every numpy array of the model, read back without pickle.

A model file is data from someone else, and :func:`load` treats it so (docs/reliability.md,
"Threat model"):

* **only registered classes are built**: rankclust classes listed in
  :data:`RANKCLUST_CLASSES` and scikit-learn classes in :data:`SKLEARN_WHITELIST`, looked up by
  their exact stored path (no attribute walking, no import of a module the file names);
  functions only when they are public functions of :data:`FUNCTION_MODULES`;
* **no code named by the file runs**: a saved attribute may not shadow a method, property or
  other callable of its class, nor have a dunder name; the only methods called are the
  class's own constructor (which only stores its arguments), ``_validate_params``,
  ``_validate_loaded_state`` and ``_rebuild_after_load``;
* **every array a prediction reads is checked** before the model is returned: each
  rankclust estimator's ``_validate_loaded_state`` and :mod:`rankclust._loaded_state`'s
  checks of the scikit-learn classes (shapes, dtypes, finite values, indices in range, tree
  children that lead down the tree);
* **sizes are checked before allocation**: every zip member's declared size, every array's
  declared shape, and their total against ``max_bytes`` (default :data:`MAX_MODEL_BYTES`);
  ``model.json`` against :data:`MAX_JSON_BYTES`.

Every refusal is a one-line ``ValueError`` naming the file (and the attribute inside the
model).

The encoding is generic: an estimator written after this module needs one line in
:data:`RANKCLUST_CLASSES` and a ``_validate_loaded_state`` method, as long as its attributes
are made of numbers, strings, lists, tuples, dicts, numpy arrays, :class:`~rankclust.Rankings`,
random states, scipy sparse matrices and other saveable objects (nested estimators included).
Saving anything else raises ``TypeError`` naming the attribute.

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
import inspect
import io
import json
import math
import os
import re
import types
import warnings
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from rankclust._loaded_state import check_n_jobs, check_sklearn_state, check_sklearn_tree
from rankclust.rankings import Rankings

__all__ = [
    "FORMAT_VERSION",
    "FUNCTION_MODULES",
    "MAX_JSON_BYTES",
    "MAX_MODEL_BYTES",
    "RANKCLUST_CLASSES",
    "SKLEARN_WHITELIST",
    "load",
    "save",
]

#: Version of the archive layout; bumped on incompatible changes.
FORMAT_VERSION = 1

#: Default budget of :func:`load` in bytes: the decompressed size of both members plus every
#: array inside ``arrays.npz``, checked before each is allocated (overridable per call).
MAX_MODEL_BYTES = 2 * 2**30

#: Largest ``model.json``: parsed JSON takes several times its size in memory, and models
#: keep their bulk in ``arrays.npz``.
MAX_JSON_BYTES = 64 * 2**20

#: rankclust classes that may be built from a model file, as ``"module:name"``: the
#: estimators and the helper objects they keep in their fitted state. Saving an instance of
#: any other rankclust class raises ``TypeError``.
RANKCLUST_CLASSES: frozenset[str] = frozenset(
    {
        "rankclust.cluster._covariate_mixture:ItemCovariatePLMixture",
        "rankclust.cluster.baselines:CompletionMallowsMixture",
        "rankclust.cluster.baselines:RestrictedLengthMixture",
        "rankclust.cluster.chains:ChainKMeans",
        "rankclust.cluster.komeans:KOMeans",
        "rankclust.cluster.mixture:MallowsMixture",
        "rankclust.cluster.mixture:PlackettLuceMixture",
        "rankclust.label_ranking.baselines:ConsensusLabelRanker",
        "rankclust.label_ranking.baselines:ConstraintClassification",
        "rankclust.label_ranking.baselines:PairwiseLabelRanker",
        "rankclust.label_ranking.iblr:IBLRMallows",
        "rankclust.label_ranking.iblr:IBLRPlackettLuce",
        "rankclust.label_ranking.partial:DecisionTreePartialLabelRanker",
        "rankclust.label_ranking.partial:KNeighborsPartialLabelRanker",
        "rankclust.label_ranking.tree:LabelRankingTree",
        "rankclust.models.mallows:Mallows",
        "rankclust.models.plackett_luce:PlackettLuce",
        "rankclust.models.pl_tree:PlackettLuceTree",
        "rankclust.models.plackett_luce_covariates:ItemCovariatePlackettLuce",
        "rankclust.ordinal.baselines:CPCMMC",
        "rankclust.ordinal.baselines:CPMMC",
        "rankclust.ordinal.baselines:MPCKMeans",
        "rankclust.ordinal.baselines:SMMCPC",
        "rankclust.ordinal.baselines:WSVORC",
        "rankclust.ordinal.m2sorc:M2SORC",
        "rankclust.pairwise._bradley_terry:BradleyTerry",
        "rankclust.pairwise._covariate_bt:ItemCovariateBradleyTerry",
        "rankclust.pairwise._mixture:BradleyTerryMixture",
        "rankclust.supervised.baselines:FeatureKMeansRanking",
        "rankclust.supervised.baselines:NaiveKMeans",
        "rankclust.supervised.baselines:OneRank",
        "rankclust.supervised.pl_mixture:PrototypePLMixture",
        "rankclust.supervised.rank_clustering:RankClusteringTree",
        "rankclust.supervised.rank_tree:RankTree",
        # helper objects inside fitted estimators
        "rankclust.ordinal._features:FeatureMap",
        "rankclust.supervised._ktree:KTree",
    }
)

#: Modules whose public functions (their ``__all__``, defined in the module itself) may be
#: stored as values, e.g. a distance passed as a parameter.
FUNCTION_MODULES: tuple[str, ...] = (
    "rankclust.consensus",
    "rankclust.distances",
    "rankclust.metrics",
)

#: scikit-learn classes that may appear in a saved model, by public import path. Instances are
#: rebuilt as ``cls(**params)`` plus their saved attributes and validated by
#: :func:`rankclust._loaded_state.check_sklearn_state`, so only classes whose state is plain
#: data (arrays, numbers, nested whitelisted objects) and has a validator belong here.
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
_MAX_DEPTH = 100  # nesting of tagged values; real models stay below 15
# a plain numpy dtype string: byte order, kind, item size (no subarrays, no fields)
_DTYPE_STR = re.compile(r"[<>|=]?[biufcSUVMm]\d{0,4}(\[[a-z]{1,2}\])?")


# --------------------------------------------------------------------------------------------
# class and function registry
# --------------------------------------------------------------------------------------------
def _sklearn_public_path(cls: type) -> str | None:
    """The whitelisted public path of a scikit-learn class, or None."""
    if not cls.__module__.startswith("sklearn."):
        return None
    top = cls.__module__.split(".")[1]
    path = f"sklearn.{top}.{cls.__qualname__}"
    return path if path in SKLEARN_WHITELIST else None


def _class_path(cls: type, where: str) -> str:
    path = f"{cls.__module__}:{cls.__qualname__}"
    if path in RANKCLUST_CLASSES:
        return path
    public = _sklearn_public_path(cls)
    if public is not None:
        module, _, name = public.rpartition(".")
        return f"{module}:{name}"
    raise TypeError(
        f"cannot save {where}: class {cls.__module__}.{cls.__qualname__} is neither a "
        f"registered rankclust class (rankclust.persistence.RANKCLUST_CLASSES) nor on the "
        f"scikit-learn whitelist (rankclust.persistence.SKLEARN_WHITELIST)"
    )


def _registered(module: str, name: str) -> Any:
    """``module.name`` for a registered path: one import of a registered module, one lookup."""
    try:
        return vars(importlib.import_module(module)).get(name)
    except ImportError:
        return None


def _resolve_class(path: Any) -> type:
    """The class of a stored path, which must be registered exactly (no attribute walking)."""
    if not isinstance(path, str) or path.count(":") != 1:
        raise ValueError(f"malformed class path {path!r:.80}")
    module, name = path.split(":")
    if path in RANKCLUST_CLASSES:
        cls = _registered(module, name)
        ok = isinstance(cls, type) and (cls.__module__, cls.__qualname__) == (module, name)
    elif f"{module}.{name}" in SKLEARN_WHITELIST:
        cls = _registered(module, name)
        ok = isinstance(cls, type) and _sklearn_public_path(cls) == f"{module}.{name}"
    else:
        raise ValueError(
            f"refusing to load class {path!r:.80}: only registered rankclust classes and "
            f"whitelisted scikit-learn classes may be loaded"
        )
    if not ok:
        raise ValueError(f"saved model needs {module}.{name}, which is not available")
    return cls


def _function_path(fn: Any, where: str) -> str:
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", "")
    if _lookup_function(module, name) is not fn:
        raise TypeError(
            f"cannot save {where}: only public functions of {', '.join(FUNCTION_MODULES)} "
            f"can be saved (got {module}.{name or fn!r})"
        )
    return f"{module}:{name}"


def _lookup_function(module: str, name: str) -> Any:
    """The public function ``module.name`` of :data:`FUNCTION_MODULES`, or None."""
    if module not in FUNCTION_MODULES:
        return None
    mod = importlib.import_module(module)
    fn = vars(mod).get(name) if name in getattr(mod, "__all__", ()) else None
    if not isinstance(fn, types.FunctionType):
        return None
    return fn if (fn.__module__, fn.__qualname__) == (module, name) else None


def _resolve_function(path: Any) -> Callable:
    if not isinstance(path, str) or path.count(":") != 1:
        raise ValueError(f"malformed function path {path!r:.80}")
    fn = _lookup_function(*path.split(":"))
    if fn is None:
        raise ValueError(
            f"refusing to load function {path.replace(':', '.')[:80]}: only public functions "
            f"of {', '.join(FUNCTION_MODULES)} may be loaded"
        )
    return fn


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
        if isinstance(value, np.ndarray | np.generic | Rankings):
            return self.arraylike(value, where)
        if isinstance(value, list | set | frozenset | dict) or (
            isinstance(value, tuple) and not hasattr(value, "_fields")
        ):
            return self.container(value, where)
        if isinstance(
            value, complex | np.dtype | np.random.RandomState | np.random.Generator | type
        ):
            return self.small_value(value, where)
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

    def arraylike(self, value: np.ndarray | np.generic | Rankings, where: str) -> dict:
        """A numpy array or scalar, or Rankings (their arrays stored as arrays)."""
        if isinstance(value, np.ndarray):
            return self.array(value, where)
        if isinstance(value, np.generic):
            return {"__npscalar__": self.array(np.asarray(value), where)}
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

    def container(self, value: list | tuple | set | frozenset | dict, where: str) -> Any:
        """A list, plain tuple, set or dict, element by element (sets in ``repr`` order)."""
        if isinstance(value, list):
            return [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, tuple):
            return {"__tuple__": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if isinstance(value, set | frozenset):
            items = sorted(value, key=repr)
            return {
                "__set__": [self.encode(v, f"{where}{{}}") for v in items],
                "frozen": isinstance(value, frozenset),
            }
        return {
            "__dict__": [
                [self.encode(k, f"{where} key"), self.encode(v, f"{where}[{k!r}]")]
                for k, v in value.items()
            ]
        }

    def small_value(self, value: Any, where: str) -> dict:
        """A complex number, dtype, random state or generator, or a whitelisted type."""
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
        name = f"{value.__module__}.{value.__qualname__}"
        if name not in _TYPE_WHITELIST:
            raise TypeError(f"cannot save {where}: type {name}")
        return {"__type__": name}

    def function(self, fn: Any, where: str) -> dict:
        return {"__function__": _function_path(fn, where)}

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


# --------------------------------------------------------------------------------------------
# decoding
# --------------------------------------------------------------------------------------------
class _Refusal(ValueError):
    """A refusal whose message already names the place in the model."""


# what malformed data raises from the constructors and checks the decoder calls
_DATA_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError)


def _refusal(where: str, exc: BaseException) -> _Refusal:
    if isinstance(exc, _Refusal):
        return exc
    message = " ".join(str(exc).split()) or type(exc).__name__  # one line
    return _Refusal(f"{where}: {message}")


def _check_state_name(cls: type, name: Any, estimator: bool) -> None:
    """A saved attribute name may not be a dunder nor shadow anything the class defines.

    Methods, properties and other descriptors are refused for every class (a file must not
    replace code the loader or a prediction calls); for estimators every class attribute is
    (``_parameter_constraints`` steers validation). Slots are attributes, not shadows.
    """
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
        raise ValueError(f"refusing attribute name {name!r:.80}")
    attr = inspect.getattr_static(cls, name, _NOT_SAVED)
    if attr is _NOT_SAVED or isinstance(attr, types.MemberDescriptorType):
        return
    if estimator or callable(attr) or hasattr(type(attr), "__get__"):
        raise ValueError(f"refusing attribute {name!r}: it would shadow {cls.__name__}.{name}")


def _finish_object(obj: Any, path: str) -> None:
    """Validate a rebuilt object (and rebuild what is not stored); see the module docstring."""
    cls = type(obj)
    check_n_jobs(obj)
    if path not in RANKCLUST_CLASSES:
        module, name = path.split(":")
        check_sklearn_state(obj, f"{module}.{name}")
        return
    # methods of the registered class itself, never attributes from the file
    if hasattr(cls, "_parameter_constraints"):
        cls._validate_params(obj)
    validate = getattr(cls, "_validate_loaded_state", None)
    if validate is None:
        raise ValueError(f"{cls.__name__} defines no _validate_loaded_state; cannot load it")
    validate(obj)
    rebuild = getattr(cls, "_rebuild_after_load", None)
    if rebuild is not None:
        rebuild(obj)


def _shape(value: Any) -> tuple[int, ...]:
    if not (
        isinstance(value, list)
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        raise ValueError(f"malformed shape {value!r:.80}")
    return tuple(value)


class _Decoder:
    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays

    def array(self, node: dict, where: str, depth: int) -> np.ndarray:
        if "__objarray__" in node:
            items = [self.decode(x, f"{where}[...]", depth + 1) for x in node["__objarray__"]]
            shape = _shape(node["shape"])
            if math.prod(shape) != len(items):
                raise ValueError(f"shape {shape} does not hold {len(items)} values")
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out.reshape(shape)
        key = node["__ndarray__"]
        if not isinstance(key, str) or key not in self.arrays:
            raise ValueError(f"refers to a missing array {key!r:.40}")
        return self.arrays[key]

    def decode(self, node: Any, where: str, depth: int = 0) -> Any:
        if node is None or isinstance(node, bool | int | float | str):
            return node
        if depth > _MAX_DEPTH:
            raise _Refusal(f"{where}: nested deeper than {_MAX_DEPTH} levels")
        if isinstance(node, list):
            return [self.decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(node)]
        if not isinstance(node, dict):
            raise _Refusal(f"{where}: unexpected JSON value {node!r:.80}")
        try:
            return self.tagged(node, where, depth)
        except _DATA_ERRORS as exc:
            raise _refusal(where, exc) from None

    def tagged(self, node: dict, where: str, depth: int) -> Any:
        # the first tag of _TAGS that the node holds decides (a node with several tags is
        # read by the first, in this fixed order)
        for tag, method in _TAGS:
            if tag in node:
                return getattr(self, method)(node, where, depth)
        raise ValueError(f"unknown tagged value {sorted(node)[:5]}")

    def npscalar(self, node: dict, where: str, depth: int) -> Any:
        a = self.array(node["__npscalar__"], where, depth)
        if not (isinstance(a, np.ndarray) and a.ndim == 0):
            raise ValueError("a numpy scalar must be a 0-d array")
        return a[()]

    def float_(self, node: dict, where: str, depth: int) -> float:
        text = node["__float__"]
        if text not in ("nan", "inf", "-inf"):
            raise ValueError(f"unexpected float {text!r:.40}")
        return float(text)

    def complex_(self, node: dict, where: str, depth: int) -> complex:
        re_im = node["__complex__"]
        if not (isinstance(re_im, list) and len(re_im) == 2):
            raise ValueError("a complex number is [real, imag]")
        return complex(*(float(self.decode(v, where, depth + 1)) for v in re_im))

    def tuple_(self, node: dict, where: str, depth: int) -> tuple:
        return tuple(self.decode(node["__tuple__"], where, depth + 1))

    def set_(self, node: dict, where: str, depth: int) -> set | frozenset:
        items = self.decode(node["__set__"], where, depth + 1)
        return frozenset(items) if node.get("frozen") else set(items)

    def dict_(self, node: dict, where: str, depth: int) -> dict:
        out = {}
        for pair in node["__dict__"]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ValueError("a dict is a list of [key, value] pairs")
            key = _hashable(self.decode(pair[0], f"{where} key", depth + 1))
            out[key] = self.decode(pair[1], f"{where}[{key!r:.40}]", depth + 1)
        return out

    def rankings(self, node: dict, where: str, depth: int) -> Rankings:
        r = node["__rankings__"]
        weights = None if r["weights"] is None else self.array(r["weights"], where, depth)
        items = r["items"]
        if items is not None and not all(isinstance(x, str) for x in items):
            raise ValueError("item names must be strings")
        return Rankings(
            self.array(r["ranks"], where, depth), kind=r["kind"], weights=weights, items=items
        )

    def dtype(self, node: dict, where: str, depth: int) -> np.dtype:
        text = node["__dtype__"]
        if not (isinstance(text, str) and _DTYPE_STR.fullmatch(text)):
            raise ValueError(f"refusing dtype {text!r:.40}")
        return np.dtype(text)

    def type_(self, node: dict, where: str, depth: int) -> type:
        name = node["__type__"]
        if not isinstance(name, str) or name not in _TYPE_WHITELIST:
            raise ValueError(f"refusing to load type {name!r:.80}")
        return _TYPE_WHITELIST[name]

    def randomstate(self, node: dict, where: str, depth: int) -> np.random.RandomState:
        rs = np.random.RandomState()
        rs.set_state(self.decode(node["__randomstate__"], where, depth + 1))
        return rs

    def generator(self, node: dict, where: str, depth: int) -> np.random.Generator:
        name = node["__generator__"]
        if name not in _BIT_GENERATORS:
            raise ValueError(f"refusing bit generator {name!r:.40}")
        bitgen = getattr(np.random, name)()
        bitgen.state = self.decode(node["state"], where, depth + 1)
        return np.random.Generator(bitgen)

    def function(self, node: dict, where: str, depth: int) -> Any:
        return _resolve_function(node["__function__"])

    def sktree(self, node: dict, where: str, depth: int) -> Any:
        from sklearn.tree._tree import Tree

        args = self.decode(node["__sktree__"], f"{where}.args", depth + 1)
        state = self.decode(node["state"], where, depth + 1)
        check_sklearn_tree(args, state)
        tree = Tree(*args)
        tree.__setstate__(state)
        return tree

    def neighbors_tree(self, node: dict, where: str, depth: int) -> dict:
        if set(node) != {"__neighbors_tree__"}:
            raise ValueError("malformed search-tree placeholder")
        return dict(node)  # placeholder; rebuilt by check_sklearn_state of the owner

    def namedtuple(self, node: dict, where: str, depth: int) -> tuple:
        cls = _resolve_class(node["__namedtuple__"])
        if not (issubclass(cls, tuple) and hasattr(cls, "_fields")):
            raise ValueError(f"{node['__namedtuple__']} is not a named tuple")
        return cls(*self.decode(node["values"], where, depth + 1))

    def sparse(self, node: dict, where: str, depth: int) -> Any:
        import scipy.sparse as sp

        fmt = node["__sparse__"]
        if fmt not in ("csr", "csc"):
            raise ValueError(f"unknown sparse format {fmt!r:.40}")
        shape = _shape(node["shape"])
        if len(shape) != 2:
            raise ValueError("a sparse matrix has two dimensions")
        name = f"{fmt}_{'array' if node.get('array_api') else 'matrix'}"
        parts = tuple(self.array(node[k], where, depth) for k in ("data", "indices", "indptr"))
        out = getattr(sp, name)(parts, shape=shape)
        out.check_format(full_check=True)  # indices in range: sparsetools does not check
        return out

    def object(self, node: dict, where: str, depth: int) -> Any:
        path = node["__object__"]
        cls = _resolve_class(path)
        params, state = node.get("params"), node.get("state", {})
        if not isinstance(state, dict):
            raise ValueError("state must be a JSON object")
        estimator = hasattr(cls, "get_params")
        if estimator:
            if not isinstance(params, dict):
                raise ValueError(f"{cls.__name__} needs its parameters")
            unknown = set(params) - set(cls._get_param_names())
            if unknown:
                raise ValueError(f"unknown parameters {sorted(unknown)[:5]} of {cls.__name__}")
            # an estimator's __init__ only stores its arguments (scikit-learn's convention)
            obj = cls(**{k: self.decode(v, f"{where}.{k}", depth + 1) for k, v in params.items()})
        else:
            if params is not None:
                raise ValueError(f"{cls.__name__} takes no parameters")
            obj = cls.__new__(cls)
        for name, value in state.items():
            _check_state_name(cls, name, estimator)
            object.__setattr__(obj, name, self.decode(value, f"{where}.{name}", depth + 1))
        _finish_object(obj, path)
        return obj


# tag -> _Decoder method, in the order the tags are tried (the order of the former if-chain)
_TAGS: tuple[tuple[str, str], ...] = (
    ("__ndarray__", "array"),
    ("__objarray__", "array"),
    ("__npscalar__", "npscalar"),
    ("__float__", "float_"),
    ("__complex__", "complex_"),
    ("__tuple__", "tuple_"),
    ("__set__", "set_"),
    ("__dict__", "dict_"),
    ("__rankings__", "rankings"),
    ("__dtype__", "dtype"),
    ("__type__", "type_"),
    ("__randomstate__", "randomstate"),
    ("__generator__", "generator"),
    ("__function__", "function"),
    ("__sparse__", "sparse"),
    ("__sktree__", "sktree"),
    ("__neighbors_tree__", "neighbors_tree"),
    ("__object__", "object"),
    ("__namedtuple__", "namedtuple"),
)


def _hashable(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_hashable(k) for k in key)
    return key


# --------------------------------------------------------------------------------------------
# reading the archive within a byte budget
# --------------------------------------------------------------------------------------------
_CHUNK = 16 * 2**20


class _Budget:
    """Bytes :func:`load` may still allocate for decompressed members and arrays."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = self.left = max_bytes

    def take(self, n: int, what: str) -> None:
        if n > self.left:
            raise _Refusal(
                f"{what} needs {n} bytes, over the budget (max_bytes={self.max_bytes}, "
                f"{self.left} left)"
            )
        self.left -= n


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget) -> bytes:
    """A member's bytes, after checking its declared size (zipfile never yields more)."""
    budget.take(info.file_size, f"member {info.filename}")
    with zf.open(info) as f:
        data = f.read(info.file_size)
    if len(data) != info.file_size:
        raise _Refusal(f"member {info.filename} is shorter than declared")
    return data


def _read_npy(zf: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget) -> np.ndarray:
    """One ``.npy`` member: header first, then exactly the bytes its shape and dtype need."""
    fmt = np.lib.format
    name = f"array {info.filename[:-4]!r}"
    budget.take(info.file_size, name)
    with zf.open(info) as f:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(f)
        else:
            raise _Refusal(f"{name}: unsupported npy version {version}")
        if dtype.hasobject:
            raise _Refusal(f"{name}: object arrays are refused (they would need pickle)")
        count = math.prod(shape)
        nbytes = count * dtype.itemsize
        if f.tell() + nbytes != info.file_size:
            raise _Refusal(
                f"{name}: header declares shape {shape} of {dtype} ({nbytes} bytes) but the "
                f"member holds {info.file_size - f.tell()}"
            )
        flat = np.empty(count, dtype=dtype)
        raw = flat.view(np.uint8) if nbytes else None
        for start in range(0, nbytes, _CHUNK):
            chunk = f.read(min(_CHUNK, nbytes - start))
            if not chunk:
                raise _Refusal(f"{name}: data ends early")
            raw[start : start + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
    if fortran:
        return flat.reshape(shape[::-1]).transpose()
    return flat.reshape(shape)


def _read_archive(path: str | os.PathLike, max_bytes: int) -> tuple[bytes, dict]:
    """``model.json`` bytes and the arrays of ``arrays.npz``, within ``max_bytes``."""
    budget = _Budget(max_bytes)
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise _Refusal("not a rankclust model file") from None
    with zf:
        infos = {i.filename: i for i in zf.infolist()}
        if len(zf.infolist()) != 2 or set(infos) != {_JSON_MEMBER, _NPZ_MEMBER}:
            raise _Refusal("not a rankclust model file")
        json_info = infos[_JSON_MEMBER]
        if json_info.file_size > MAX_JSON_BYTES:
            raise _Refusal(
                f"model.json declares {json_info.file_size} bytes, over MAX_JSON_BYTES "
                f"({MAX_JSON_BYTES})"
            )
        try:
            raw_json = _read_member(zf, json_info, budget)
            npz = _read_member(zf, infos[_NPZ_MEMBER], budget)
        except OSError as exc:  # a header offset outside the file: seek fails
            raise _Refusal(f"corrupt archive ({exc})") from None
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(io.BytesIO(npz)) as inner:
        for info in inner.infolist():
            key = info.filename[:-4]
            if not info.filename.endswith(".npy") or key in arrays:
                raise _Refusal(f"arrays.npz: unexpected member {info.filename!r:.80}")
            arrays[key] = _read_npy(inner, info, budget)
    return raw_json, arrays


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------
def save(model: Any, path: str | os.PathLike) -> None:
    """Save a fitted estimator (or any other registered object) to ``path``.

    Parameters
    ----------
    model : object
        An instance of a class in :data:`RANKCLUST_CLASSES` or :data:`SKLEARN_WHITELIST`,
        fitted or not.
    path : str or path-like
        Destination file (a zip archive; the suffix is up to you, e.g. ``model.zip``).
        Overwritten if it exists.

    Raises
    ------
    TypeError
        When the model, or something inside it, cannot be stored safely (a class outside the
        registry and the whitelist, a lambda, an array of arbitrary Python objects); the
        message names the attribute.

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


# what a malformed archive raises from zipfile, zlib and numpy's npy header parser
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,
    RuntimeError,  # an encrypted member
    *_DATA_ERRORS,
)


def load(path: str | os.PathLike, *, max_bytes: int = MAX_MODEL_BYTES) -> Any:
    """Load a model written by :func:`save`, treating the file as untrusted data.

    Parameters
    ----------
    path : str or path-like
    max_bytes : int, default=MAX_MODEL_BYTES (2 GiB)
        Budget for everything the loader decompresses and allocates from the file: both zip
        members and every array in ``arrays.npz``, each checked against what is left before
        it is read (``model.json`` is also capped at :data:`MAX_JSON_BYTES`).

    Returns
    -------
    model : object
        An instance of the saved class with its parameters and fitted attributes restored,
        its state validated (see the module docstring and docs/reliability.md,
        "Threat model").

    Raises
    ------
    ValueError
        One line naming the file (and the attribute inside the model): the file is not a
        rankclust model, names a class or function that may not be loaded, holds an attribute
        that would shadow a method, exceeds ``max_bytes``, or holds state a prediction could
        not use safely (wrong shape or dtype, NaN, an index out of range).
    FileNotFoundError
        When ``path`` does not exist.

    Notes
    -----
    Complexity: O(size of the model) time and memory. No code named by the file runs: the
    only calls are the registered classes' constructors and their validation and rebuild
    methods.
    """
    import rankclust

    file = os.fspath(path)
    try:
        raw_json, arrays = _read_archive(path, max_bytes)
        meta = json.loads(raw_json)
        if not isinstance(meta, dict) or meta.get("format") != "rankclust-model":
            raise _Refusal("not a rankclust model file")
        version = meta.get("format_version", 0)
        if not isinstance(version, int) or isinstance(version, bool):
            raise _Refusal(f"malformed format_version {version!r:.40}")
        if version > FORMAT_VERSION:
            raise _Refusal(
                f"written by a newer rankclust (format {version}); upgrade rankclust to load it"
            )
        if meta.get("rankclust_version") != rankclust.__version__:
            warnings.warn(
                f"model saved with rankclust {meta.get('rankclust_version')!s:.40}, loading "
                f"with {rankclust.__version__}; check its predictions",
                UserWarning,
                stacklevel=2,
            )
        model = meta.get("model")
        if not (isinstance(model, dict) and "__object__" in model):
            raise _Refusal("not a rankclust model file")
        return _Decoder(arrays).decode(model, "model")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{file}: corrupt model.json ({exc})") from None
    except RecursionError:
        raise ValueError(f"{file}: model.json is nested too deeply") from None
    except _ARCHIVE_ERRORS as exc:
        raise ValueError(f"{file}: {_refusal('archive', exc)}") from None
