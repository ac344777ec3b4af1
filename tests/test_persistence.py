"""Tests for rankclust.persistence: round trips, the whitelist, and refusing unsafe files."""

from __future__ import annotations

import importlib
import inspect
import io
import json
import zipfile
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from rankclust import Rankings, persistence
from rankclust.distances import kendall_distance
from rankclust.persistence import load, save
from tests.conftest import random_rankings


# ---------------------------------------------------------------------------- helpers
def _roundtrip(model, tmp_path, name="model.zip"):
    path = tmp_path / name
    save(model, path)
    return load(path)


def _rewrite_json(path, edit):
    """Apply ``edit`` to the model.json of an archive in place."""
    with zipfile.ZipFile(path) as zf:
        meta = json.loads(zf.read("model.json"))
        npz = zf.read("arrays.npz")
    edit(meta)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("model.json", json.dumps(meta))
        zf.writestr("arrays.npz", npz)


def _class_or_skip(module, name):
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        pytest.skip(f"{module}.{name} is not in this build yet")


# ---------------------------------------------------------------------------- value encoding
class _Holder(BaseEstimator):
    """A rankclust-side estimator used to exercise every value type."""

    def __init__(self, a=1, *, b="x", c=None):
        self.a = a
        self.b = b
        self.c = c

    def _validate_loaded_state(self):
        """Nothing to check: no prediction reads this test object's state."""


# Defined in this test module, so it is outside rankclust: pretend it is a rankclust class.
_Holder.__module__ = "rankclust._test_holder"


@pytest.fixture
def holder_module(monkeypatch):
    """A module ``rankclust._test_holder`` with the test classes, registered as loadable."""
    import sys
    import types

    mod = types.ModuleType("rankclust._test_holder")
    mod._Holder = _Holder
    mod._Record = _Record
    monkeypatch.setitem(sys.modules, "rankclust._test_holder", mod)
    extra = {"rankclust._test_holder:_Holder", "rankclust._test_holder:_Record"}
    monkeypatch.setattr(persistence, "RANKCLUST_CLASSES", persistence.RANKCLUST_CLASSES | extra)
    return mod


@dataclass(frozen=True)
class _Record:
    value: float
    values: np.ndarray

    def _validate_loaded_state(self):
        """Nothing to check."""


_Record.__module__ = "rankclust._test_holder"


def test_roundtrip_of_every_value_type(tmp_path, holder_module):
    rng = np.random.default_rng(0)
    R = Rankings([[0, 1, -1], [1, 1, 0]], kind="top", weights=[2.0, 0.5], items=["a", "b", "c"])
    h = _Holder(a=3, b=np.float64(2.5), c=(1, "two", None))
    h.ranks_ = R
    h.plain_ = Rankings([[0, 1]])
    h.matrix_ = rng.normal(size=(3, 4))
    h.ints_ = np.arange(5, dtype=np.int32)
    h.strings_ = np.array(["x", "yy"])
    h.objects_ = np.array(["u", "v"], dtype=object)
    h.structured_ = np.zeros(2, dtype=[("left", "<i8"), ("w", "<f8")])
    h.scalar_ = np.int64(7)
    h.floats_ = [1.5, float("nan"), float("inf"), -float("inf")]
    h.mapping_ = {"k": [1, 2], 3: {"nested": True}, (1, 2): "tuple key"}
    h.set_ = {1, 2, 3}
    h.frozen_ = frozenset({"a"})
    h.complex_ = 1 + 2j
    h.dtype_ = np.dtype("float32")
    h.type_ = np.float64
    h.rs_ = np.random.RandomState(5)
    h.gen_ = np.random.default_rng(11)
    h.sparse_ = sp.csr_matrix(np.eye(3))
    h.sparse_array_ = sp.csc_array(np.triu(np.ones((2, 3))))
    h.sub_ = _Holder(a=[1, 2])
    h.record_ = _Record(value=0.5, values=np.ones(2))
    h.fn_ = kendall_distance
    h._private = np.array([9.0])

    g = _roundtrip(h, tmp_path)
    assert type(g) is _Holder
    assert g.get_params() == {"a": 3, "b": 2.5, "c": (1, "two", None)}
    assert isinstance(g.b, np.float64)
    assert g.ranks_ == R and g.ranks_.is_weighted and g.ranks_.items == ("a", "b", "c")
    assert g.plain_ == Rankings([[0, 1]]) and not g.plain_.is_weighted
    np.testing.assert_array_equal(g.matrix_, h.matrix_)
    assert g.ints_.dtype == np.int32
    np.testing.assert_array_equal(g.strings_, ["x", "yy"])
    assert g.objects_.dtype == object and g.objects_.tolist() == ["u", "v"]
    assert g.structured_.dtype == h.structured_.dtype
    assert g.scalar_ == 7 and isinstance(g.scalar_, np.int64)
    assert g.floats_[0] == 1.5 and np.isnan(g.floats_[1]) and g.floats_[2:] == [np.inf, -np.inf]
    assert g.mapping_ == h.mapping_
    assert g.set_ == {1, 2, 3} and g.frozen_ == frozenset({"a"})
    assert g.complex_ == 1 + 2j
    assert g.dtype_ == np.float32 and g.type_ is np.float64
    assert g.rs_.randint(1000) == np.random.RandomState(5).randint(1000)
    assert g.gen_.integers(10**9) == np.random.default_rng(11).integers(10**9)
    assert (g.sparse_ != h.sparse_).nnz == 0 and sp.isspmatrix_csr(g.sparse_)
    assert isinstance(g.sparse_array_, sp.csc_array)
    np.testing.assert_array_equal(g.sparse_array_.toarray(), h.sparse_array_.toarray())
    assert type(g.sub_) is _Holder and g.sub_.a == [1, 2]
    assert type(g.record_) is _Record and g.record_.value == 0.5
    np.testing.assert_array_equal(g.record_.values, np.ones(2))
    assert g.fn_ is kendall_distance
    np.testing.assert_array_equal(g._private, [9.0])


def test_arrays_are_in_npz_and_json_is_plain(tmp_path, holder_module):
    h = _Holder()
    h.big_ = np.arange(1000.0)
    path = tmp_path / "m.zip"
    save(h, path)
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["arrays.npz", "model.json"]
        meta = json.loads(zf.read("model.json"))
        arrays = np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False)
        assert any(np.array_equal(arrays[k], h.big_) for k in arrays.files)
    assert meta["format"] == "rankclust-model"
    assert meta["model"]["__object__"] == "rankclust._test_holder:_Holder"
    assert "1000" not in json.dumps(meta)  # the array is not inlined


# ---------------------------------------------------------------------------- refusing to save
def test_save_refuses_lambda_and_foreign_objects(tmp_path, holder_module):
    h = _Holder(c=lambda x: x)
    with pytest.raises(TypeError, match=r"_Holder\.c.*only public functions of"):
        save(h, tmp_path / "m.zip")
    h = _Holder()
    h.thing_ = io.StringIO()
    with pytest.raises(TypeError, match=r"thing_.*StringIO.*whitelist"):
        save(h, tmp_path / "m.zip")
    h = _Holder()
    h.objs_ = np.array([object()], dtype=object)
    with pytest.raises(TypeError, match="objs_"):
        save(h, tmp_path / "m.zip")
    with pytest.raises(TypeError):
        save(np.zeros(3), tmp_path / "m.zip")


def test_save_refuses_non_whitelisted_sklearn_class(tmp_path):
    from sklearn.ensemble import RandomForestRegressor

    with pytest.raises(TypeError, match=r"RandomForestRegressor.*whitelist"):
        save(RandomForestRegressor(n_estimators=2), tmp_path / "m.zip")


# ---------------------------------------------------------------------------- refusing to load
@pytest.mark.parametrize(
    "path",
    [
        "os:system",
        "builtins:eval",
        "subprocess:Popen",
        "sklearn.ensemble:RandomForestRegressor",
        "collections:OrderedDict",
        "rankclust:__class__",
        "nonsense",
    ],
)
def test_load_refuses_class_outside_whitelist(tmp_path, path):
    from sklearn.preprocessing import StandardScaler

    file = tmp_path / "m.zip"
    save(StandardScaler().fit([[0.0], [1.0]]), file)

    def edit(meta):
        meta["model"]["__object__"] = path

    _rewrite_json(file, edit)
    with pytest.raises(ValueError, match=r"refusing|malformed|not available"):
        load(file)


def test_load_refuses_foreign_function_and_type(tmp_path, holder_module):
    file = tmp_path / "m.zip"
    save(_Holder(c=kendall_distance), file)

    def edit_fn(meta):
        meta["model"]["params"]["c"] = {"__function__": "os:system"}

    _rewrite_json(file, edit_fn)
    with pytest.raises(ValueError, match=r"refusing to load function os\.system"):
        load(file)

    def edit_type(meta):
        meta["model"]["params"]["c"] = {"__type__": "os.PathLike"}

    _rewrite_json(file, edit_type)
    with pytest.raises(ValueError, match="refusing to load type"):
        load(file)


def test_load_refuses_pickled_arrays(tmp_path, holder_module):
    h = _Holder()
    h.x_ = np.arange(3)
    file = tmp_path / "m.zip"
    save(h, file)
    buf = io.BytesIO()
    np.savez(buf, a0=np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(file) as zf:
        js = zf.read("model.json")
    with zipfile.ZipFile(file, "w") as zf:
        zf.writestr("model.json", js)
        zf.writestr("arrays.npz", buf.getvalue())
    with pytest.raises(ValueError, match="pickle"):
        load(file)


def test_load_rejects_non_model_files(tmp_path):
    bad = tmp_path / "x.zip"
    bad.write_text("hello")
    with pytest.raises(ValueError, match="not a rankclust model"):
        load(bad)
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("other.txt", "x")
    with pytest.raises(ValueError, match="not a rankclust model"):
        load(bad)
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "missing.zip")


def test_version_mismatch_warns(tmp_path):
    from sklearn.preprocessing import StandardScaler

    file = tmp_path / "m.zip"
    save(StandardScaler().fit([[0.0], [2.0]]), file)

    def edit(meta):
        meta["rankclust_version"] = "0.0.1"

    _rewrite_json(file, edit)
    with pytest.warns(UserWarning, match="saved with rankclust 0.0.1"):
        assert load(file).mean_[0] == 1.0

    def edit_format(meta):
        meta["format_version"] = 99

    _rewrite_json(file, edit_format)
    with pytest.raises(ValueError, match="newer rankclust"):
        load(file)


# ---------------------------------------------------------------------------- sklearn whitelist
def test_sklearn_estimators_roundtrip(tmp_path):
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeRegressor

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), rng.normal(size=60)
    Xt = rng.normal(size=(10, 3))
    for est in (
        KNeighborsRegressor(n_neighbors=3, algorithm="kd_tree"),
        KNeighborsRegressor(n_neighbors=3, algorithm="ball_tree"),
        DecisionTreeRegressor(max_depth=4, random_state=0),
        make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=2)),
    ):
        est.fit(X, y)
        back = _roundtrip(est, tmp_path)
        np.testing.assert_array_equal(back.predict(Xt), est.predict(Xt))


def _whitelisted_instances():
    """One small instance of every class in SKLEARN_WHITELIST, and the method to compare."""
    from sklearn.cluster import KMeans, MiniBatchKMeans
    from sklearn.decomposition import PCA, TruncatedSVD
    from sklearn.kernel_approximation import Nystroem, RBFSampler
    from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import LabelEncoder, MinMaxScaler, StandardScaler
    from sklearn.svm import SVC, LinearSVC
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    return [
        (KMeans(3, n_init=1, random_state=0), "predict"),
        (MiniBatchKMeans(3, n_init=1, random_state=0), "predict"),
        (PCA(2), "transform"),
        (TruncatedSVD(2), "transform"),
        (Nystroem(n_components=5, random_state=0), "transform"),
        (RBFSampler(n_components=5, random_state=0), "transform"),
        (LinearRegression(), "predict"),
        (LogisticRegression(), "predict_proba"),
        (Ridge(), "predict"),
        (GaussianNB(), "predict_proba"),
        (KNeighborsClassifier(3, algorithm="ball_tree"), "predict_proba"),
        (KNeighborsRegressor(3, algorithm="brute"), "predict"),
        (NearestNeighbors(n_neighbors=3), "kneighbors"),
        (make_pipeline(MinMaxScaler(), LogisticRegression()), "predict"),
        (LabelEncoder(), "transform"),
        (MinMaxScaler(), "transform"),
        (StandardScaler(), "transform"),
        (LinearSVC(), "decision_function"),
        (SVC(probability=True, random_state=0), "predict_proba"),
        (SVC(kernel="poly", degree=2), "decision_function"),
        (DecisionTreeClassifier(max_depth=3, random_state=0), "predict_proba"),
        (DecisionTreeRegressor(max_depth=3, random_state=0), "predict"),
    ]


def test_every_whitelisted_sklearn_class_roundtrips(tmp_path):
    from rankclust.persistence import SKLEARN_WHITELIST

    rng = np.random.default_rng(1)
    X, Xt = rng.normal(size=(60, 4)), rng.normal(size=(10, 4))
    y = np.arange(60) % 3
    covered = set()
    for est, method in _whitelisted_instances():
        if method == "transform" and type(est).__name__ == "LabelEncoder":
            est.fit(y)
            args = (y[:7],)
        else:
            est.fit(X, y)
            args = (Xt,)
        back = _roundtrip(est, tmp_path)
        assert back.get_params().keys() == est.get_params().keys()
        _assert_same(getattr(back, method)(*args), getattr(est, method)(*args), method)
        covered.add(f"{type(est).__module__.split('.')[1]}.{type(est).__name__}")
    assert {p.split(".", 1)[1] for p in SKLEARN_WHITELIST} == covered


# ---------------------------------------------------------------------------- rankclust estimators
_FAMILIES = ("models", "cluster", "label_ranking", "supervised", "ordinal", "pairwise")


def _discover_estimators():
    """Every public estimator class in the rankclust method packages present in this build."""
    import inspect
    import pkgutil

    found = {}
    for family in _FAMILIES:
        try:
            pkg = importlib.import_module(f"rankclust.{family}")
        except ImportError:
            continue
        modules = [pkg]
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name.startswith("_"):
                continue
            try:
                modules.append(importlib.import_module(f"{pkg.__name__}.{info.name}"))
            except ImportError:
                continue
        for mod in modules:
            for name, obj in vars(mod).items():
                if (
                    inspect.isclass(obj)
                    and issubclass(obj, BaseEstimator)
                    and obj.__module__.startswith("rankclust.")
                    and not name.startswith("_")
                    and not inspect.isabstract(obj)
                ):
                    found[f"{obj.__module__}.{obj.__qualname__}"] = (family, obj)
    return sorted(found.items())


_ESTIMATORS = _discover_estimators()
_SMALL = {"n_clusters": 2, "n_components": 2, "n_init": 1, "max_iter": 20, "random_state": 0}


def _small_instance(cls):
    params = cls().get_params(deep=False)
    return cls(**{k: v for k, v in _SMALL.items() if k in params})


def _fit_for_family(est, family, rng):
    """Fit on small random data of the family's task; returns the inputs for prediction."""
    R = random_rankings(rng, 40, 5)
    if family == "pairwise":
        from rankclust.pairwise import Comparisons

        C = Comparisons.from_rankings(R)
        est.fit(C)
        return (C,)
    if family == "models" and "X" in inspect.signature(est.fit).parameters:
        X = np.c_[rng.integers(0, 2, size=40), rng.normal(size=40)]  # covariates of rankers
        est.fit(R, X)
        return (R, X)
    if family in ("models", "cluster"):
        try:
            est.fit(R)
        except ValueError as exc:
            if "kind" not in str(exc):
                raise
            R = R.with_kind("top")  # a model of top-t data only
            est.fit(R)
        return (R,)
    X = rng.normal(size=(40, 3))
    if family in ("label_ranking", "supervised"):
        est.fit(X, R)
        return (X,)
    from rankclust.ordinal import link_constraints_from_labels, ranking_pairs_from_labels

    y = np.repeat(np.arange(2), 20)
    X[:, 0] += 4.0 * y
    try:
        est.fit(X, pairs=ranking_pairs_from_labels(y, 6, random_state=0))
    except TypeError:  # a pairwise-constrained baseline
        must, cannot = link_constraints_from_labels(y, 4, 4, random_state=0)
        est.fit(X, must_link=must, cannot_link=cannot)
    return (X,)


def _outputs(est, args):
    out = {}
    for method in ("predict", "predict_ranking", "predict_proba", "logpdf", "transform"):
        if hasattr(est, method):
            try:
                out[method] = np.asarray(getattr(est, method)(*args))
            except (NotImplementedError, ValueError, TypeError, AttributeError):
                continue
    return out


def _assert_same(a, b, where):
    if isinstance(b, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(b, list | tuple):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same(x, y, f"{where}[{i}]")
    elif isinstance(b, dict):
        assert a.keys() == b.keys(), where
        for k in b:
            _assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(b, float) and np.isnan(b):
        assert np.isnan(a), where
    elif isinstance(b, Rankings | int | float | str | bool | np.generic) or b is None:
        assert a == b, where
    else:  # a nested object: same class, same state
        assert type(a) is type(b), where
        state = getattr(b, "__dict__", None)
        if state is not None:
            _assert_same(vars(a), state, where)


def test_some_estimators_are_discovered():
    # grows as the method packages land; PlackettLuce and ChainKMeans are there first
    names = {name.rsplit(".", 1)[1] for name, _ in _ESTIMATORS}
    assert names & {"PlackettLuce", "ChainKMeans", "Mallows"}


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "family,cls", [v for _, v in _ESTIMATORS], ids=[k for k, _ in _ESTIMATORS]
)
def test_every_rankclust_estimator_roundtrips(tmp_path, rng, family, cls):
    est = _small_instance(cls)
    try:
        args = _fit_for_family(est, family, rng)
    except (ValueError, TypeError) as exc:  # the estimator needs other data; not our concern
        pytest.skip(f"{cls.__name__} does not fit the generic test data: {exc}")
    back = _roundtrip(est, tmp_path)
    assert type(back) is cls
    assert back.get_params() == est.get_params()
    fitted = [k for k in vars(est) if k.endswith("_") and not k.startswith("_")]
    assert fitted and all(hasattr(back, k) for k in fitted)
    for k in fitted:  # every fitted attribute comes back equal
        _assert_same(getattr(back, k), getattr(est, k), k)
    expected = _outputs(est, args)
    got = _outputs(back, args)
    assert got.keys() == expected.keys()
    for method, value in expected.items():
        np.testing.assert_array_equal(got[method], value, err_msg=method)


def test_unfitted_estimator_roundtrips(tmp_path):
    if not _ESTIMATORS:
        pytest.skip("no rankclust estimator in this build yet")
    _, (_, cls) = _ESTIMATORS[0]
    est = _small_instance(cls)
    back = _roundtrip(est, tmp_path)
    assert back.get_params() == est.get_params()


def test_registry_covers_every_estimator_and_each_has_a_validator():
    from rankclust.persistence import RANKCLUST_CLASSES, _resolve_class

    registered = {f"{cls.__module__}:{cls.__qualname__}" for _, (_, cls) in _ESTIMATORS}
    assert registered <= RANKCLUST_CLASSES, registered - RANKCLUST_CLASSES
    for path in RANKCLUST_CLASSES:
        cls = _resolve_class(path)
        assert "_validate_loaded_state" in dir(cls), path


@pytest.mark.parametrize(
    "path",
    [
        "rankclust.cli:subprocess.Popen",
        "rankclust.persistence:io.FileIO",
        "rankclust.__main__:main",
        "rankclust.models.mallows:Mallows.__class__",
        "rankclust.models:Mallows",  # the class, but not at its registered path
        "sklearn.svm:SVC.__init__",
    ],
)
def test_resolve_class_does_not_walk_attributes(path):
    import sys

    from rankclust.persistence import _resolve_class

    with pytest.raises(ValueError, match="refusing to load class"):
        _resolve_class(path)
    assert "rankclust.__main__" not in sys.modules


def test_decoder_reads_a_node_by_its_first_tag_in_a_fixed_order():
    """A (hostile) node holding several tags is read by the first of the fixed tag order,
    never by one the file chooses; an unknown tag is refused."""
    from rankclust.persistence import _Decoder

    dec = _Decoder({})
    assert dec.decode({"__tuple__": [1, 2], "__set__": [3]}, "x") == (1, 2)
    value = dec.decode({"__float__": "nan", "__tuple__": [1]}, "x")
    assert isinstance(value, float) and value != value
    with pytest.raises(ValueError, match="x: unknown tagged value"):
        dec.decode({"__pickle__": "..."}, "x")
    with pytest.raises(ValueError, match="x: refusing to load type"):
        dec.decode({"__type__": "builtins.eval", "__object__": "os:system"}, "x")
