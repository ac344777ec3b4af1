"""The method registries: CLI method names bound to estimator classes, and how to build one.

A class is imported only when its method is used, so ``rankclust --help`` imports no method
package.
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rankclust.cli._errors import CLIError

__all__ = [
    "CLUSTER_METHODS",
    "LABEL_RANKING_METHODS",
    "ORDINAL_METHODS",
    "PAIR_METHODS",
    "SUPERVISED_METHODS",
    "Method",
    "has_criteria",
    "has_param",
    "make_estimator",
    "method_help",
    "method_registry",
    "parse_set",
    "rankings_method",
    "resolve_method",
]


@dataclass(frozen=True)
class Method:
    """A CLI method name bound to an estimator class that is imported only when used.

    Attributes
    ----------
    name : str
        The name on the command line.
    module : str
        The public module of the estimator (used in messages).
    cls : str
        The class name.
    description : str
        One line for ``--help``.
    kinds : tuple of str or None
        Kinds of rankings the estimator accepts (None: any).
    params : mapping
        Fixed hyper-parameters that make this method (e.g. ``ranking_model="mallows"``);
        ``--set`` may still override them.
    ties : bool
        The estimator fits rankings with ties (bucket orders); the others refuse them.
    """

    name: str
    module: str
    cls: str
    description: str
    kinds: tuple[str, ...] | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    ties: bool = False

    @property
    def path(self) -> str:
        return f"{self.module}.{self.cls}"

    def load(self) -> type:
        """The estimator class (its module is imported now)."""
        return getattr(importlib.import_module(self.module), self.cls)


def _methods(module: str, rows: Mapping[str, tuple]) -> dict[str, Method]:
    """The methods of one module: ``{name: (class, description[, params[, kinds[, ties]]])}``."""
    out = {}
    for name, (cls, description, *rest) in rows.items():
        params = rest[0] if rest else {}
        kinds = rest[1] if len(rest) > 1 else None
        ties = rest[2] if len(rest) > 2 else False
        out[name] = Method(name, module, cls, description, kinds, params, ties)
    return out


#: Unsupervised clustering of rankings (``rankclust cluster/select-k/significance``).
CLUSTER_METHODS: dict[str, Method] = _methods("rankclust.cluster", {
    "mixture": ("MallowsMixture", "mixture of Mallows models for top-t, subset and complete "
                "rankings, with or without ties, by EM (Busse et al. 2007)", {}, None, True),
    "chains": ("ChainKMeans", "k-means for chains with pair-order centroids (Ukkonen 2011)",
               {}, ("subset",)),
    "pl-mixture": ("PlackettLuceMixture", "mixture of Plackett-Luce models (Davidson-Luce with "
                   "ties), by EM", {}, None, True),
    "komeans": ("KOMeans", "k-o'means: k-means with total-order centres (Kamishima & Akaho)",
                {}, ("subset",)),
})  # fmt: skip

#: Label rankers (``rankclust labelrank``), Cheng, Hühn & Hüllermeier (2009) and baselines.
LABEL_RANKING_METHODS: dict[str, Method] = _methods("rankclust.label_ranking", {
    "iblr": ("IBLRMallows",
             "instance-based label ranking with a local Mallows model (IB-Mal)"),
    "iblr-pl": ("IBLRPlackettLuce",
                "instance-based label ranking with a local Plackett-Luce model (IB-PL)"),
    "lrt": ("LabelRankingTree", "label ranking tree with Mallows leaves (LRT)"),
    "rpc": ("PairwiseLabelRanker", "ranking by pairwise comparison (baseline)"),
    "cc": ("ConstraintClassification", "constraint classification (baseline)"),
    "consensus": ("ConsensusLabelRanker", "one consensus ranking for every instance (baseline)"),
})  # fmt: skip

#: Supervised clustering of label-ranking data (``rankclust supervise``), Grbovic et al. 2013;
#: the paper's names in brackets.
SUPERVISED_METHODS: dict[str, Method] = _methods("rankclust.supervised", {
    "km-mallows": ("FeatureKMeansRanking", "k-means on features, Mallows central ranking per "
                   "cluster [Km_Mal]", {"ranking_model": "mallows"}),
    "km-pl": ("FeatureKMeansRanking", "k-means on features, Plackett-Luce central ranking per "
              "cluster [Km_PL]", {"ranking_model": "plackett_luce"}),
    "naive-km": ("NaiveKMeans", "k-means on features and label positions together [naive_Km]"),
    "naive-rt": ("RankClusteringTree", "cluster the rankings naively, then a tree restricted "
                 "to the K rankings [naive_RT]", {"clusterer": "naive"}),
    "ebms-rt": ("RankClusteringTree", "Mallows-mixture clusters of the rankings, then a tree "
                "[ebms_RT]", {"clusterer": "mallows_mixture"}),
    "komeans-rt": ("RankClusteringTree", "k-o'means clusters of the rankings, then a tree "
                   "[Ko'm_RT]", {"clusterer": "komeans"}),
    "rt-prune": ("RankTree", "label ranking tree pruned to K rankings [RT_prun]",
                 {"mode": "prune"}),
    "rt-iter": ("RankTree", "label ranking tree grown and re-centred iteratively [RT_iter]",
                {"mode": "iterate"}),
    "mm-pl": ("PrototypePLMixture", "prototypes in feature space with a Plackett-Luce model "
              "per cluster [MM-PL]"),
    "one-rank": ("OneRank", "one central ranking for everybody (baseline) [1 Rank]"),
})  # fmt: skip

#: Ordinal-regression clustering (``rankclust ordinal``), Xiao, Liu & Hao 2016.
ORDINAL_METHODS: dict[str, Method] = _methods("rankclust.ordinal", {
    "m2sorc": ("M2SORC", "maximum-margin semi-supervised ordinal regression clustering"),
})  # fmt: skip

#: Clustering of assessors from pairwise comparisons (``cluster``/``select-k`` with
#: ``--format pairs``; the only method there, and its default).
PAIR_METHODS: dict[str, Method] = _methods("rankclust.pairwise", {
    "bt-mixture": ("BradleyTerryMixture", "with --format pairs: mixture of Bradley-Terry "
                   "models clustering the assessors of pairwise comparisons, by EM (K=1: one "
                   "Bradley-Terry model)"),
})  # fmt: skip

# Names of registries a method package may define (``{name: estimator class}``); their
# entries are added to (or replace) the defaults above, so a package decides its own names.
_PACKAGE_REGISTRIES = {
    "cluster": ("rankclust.cluster", ("CLUSTERERS", "METHODS", "ESTIMATORS")),
    "labelrank": ("rankclust.label_ranking", ("LABEL_RANKERS", "METHODS", "ESTIMATORS")),
    "supervise": ("rankclust.supervised", ("SUPERVISED_CLUSTERERS", "METHODS", "ESTIMATORS")),
    "ordinal": ("rankclust.ordinal", ("ORDINAL_CLUSTERERS", "METHODS", "ESTIMATORS")),
}
_DEFAULTS = {
    "cluster": CLUSTER_METHODS,
    "labelrank": LABEL_RANKING_METHODS,
    "supervise": SUPERVISED_METHODS,
    "ordinal": ORDINAL_METHODS,
}


def method_registry(family: str) -> dict[str, Method]:
    """The methods of a command family: the defaults plus the package's own registry."""
    methods = dict(_DEFAULTS[family])
    module, names = _PACKAGE_REGISTRIES[family]
    pkg = importlib.import_module(module)
    for attr in names:
        reg = getattr(pkg, attr, None)
        if not isinstance(reg, dict):
            continue
        for name, cls in reg.items():
            if isinstance(cls, type):
                old = methods.get(name)
                methods[name] = Method(
                    name, cls.__module__, cls.__name__,
                    old.description if old else _first_line(cls.__doc__),
                    old.kinds if old else None,
                    old.params if old and old.cls == cls.__name__ else {},
                    old.ties if old and old.cls == cls.__name__ else False,
                )  # fmt: skip
        break
    return methods


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().splitlines()[0] if doc and doc.strip() else ""


def resolve_method(family: str, name: str) -> tuple[Method, type]:
    """The method called ``name`` in ``family`` and its estimator class."""
    methods = method_registry(family)
    if name not in methods:
        raise CLIError(f"unknown method {name!r}; choose from {', '.join(methods)}")
    method = methods[name]
    return method, method.load()


def rankings_method(name: str | None) -> str:
    """The ``--method`` of ``cluster``/``select-k`` on rankings: ``mixture`` when omitted; a
    method of pairwise comparisons is refused with the option that reads them."""
    if name in PAIR_METHODS:
        raise CLIError(f"--method {name} fits pairwise comparisons: add --format pairs")
    return name or "mixture"


def method_help(methods: Mapping[str, Method]) -> str:
    """``name: description; ...`` for a command's ``--help``."""
    return "; ".join(f"{m.name}: {m.description}" for m in methods.values())


def parse_set(values: Sequence[str] | None) -> dict[str, Any]:
    """The ``--set KEY=VALUE`` options as parameters (a value is read as JSON, else a string)."""
    out: dict[str, Any] = {}
    for item in values or ():
        if "=" not in item:
            raise CLIError(f"--set expects KEY=VALUE, got {item!r}")
        key, _, raw = item.partition("=")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def make_estimator(
    cls: type,
    *,
    n_clusters: int | None = None,
    random_state: int | None = None,
    n_init: int | None = None,
    extra: Mapping[str, Any] | None = None,
    fixed: Mapping[str, Any] | None = None,
) -> Any:
    """Instantiate ``cls`` with the CLI's common options mapped to its own parameter names.

    ``fixed`` are the parameters that define a method (``Method.params``); ``extra`` are the
    user's ``--set`` values, which win.
    """
    valid = cls().get_params(deep=False) if _default_constructible(cls) else None
    names = set(valid) if valid is not None else set(inspect.signature(cls).parameters)
    params: dict[str, Any] = {}
    if n_clusters is not None:
        key = next((k for k in ("n_clusters", "n_components") if k in names), None)
        if key is None:
            raise CLIError(f"{cls.__name__} has no number-of-clusters parameter")
        params[key] = n_clusters
    if random_state is not None and "random_state" in names:
        params["random_state"] = random_state
    if n_init is not None:
        if "n_init" not in names:
            raise CLIError(f"--n-init: {cls.__name__} has no n_init parameter (no restarts)")
        params["n_init"] = n_init
    for key, value in {**(fixed or {}), **(extra or {})}.items():
        if key not in names:
            option = f"--set {key}=...: " if key in (extra or {}) else ""
            raise CLIError(
                f"{option}{cls.__name__} has no parameter {key!r}; it has: "
                f"{', '.join(sorted(names))}"
            )
        params[key] = value
    return cls(**params)


def _default_constructible(cls: type) -> bool:
    try:
        cls()
    except TypeError:
        return False
    return True


def has_param(cls: type, name: str) -> bool:
    """Whether the constructor of ``cls`` takes ``name``."""
    return name in inspect.signature(cls).parameters


def has_criteria(cls: type) -> bool:
    """Whether the method chooses K by an information criterion (its module has ``select_k``,
    as the mixtures do); a k-means objective only decreases with K."""
    return callable(getattr(importlib.import_module(cls.__module__), "select_k", None))
