"""The ``rankclust`` command: cluster rankings, rank labels, and reproduce the papers.

Run ``rankclust --help`` or ``rankclust COMMAND --help``. Every command reads a file, fits
one of the library's estimators, prints a readable summary and optionally writes figures
(``--plots DIR``), the full result as JSON (``--json FILE``) and the fitted model
(``--save FILE``, see :mod:`rankclust.persistence`).

Exit codes: 0 success; 1 an unexpected internal error (a bug: please report it with the
traceback shown by ``--debug``); 2 bad usage or bad input (missing file, malformed line,
unknown item, K larger than the number of rankings, a method that is not in this build, an
option the command or its method cannot honour), with a one-line message on stderr that
names the option or the file line. A reader that closes standard output early (``| head``)
ends the printing only: every requested file is still written and the exit code stays 0.

This module holds no mathematics: it parses arguments, reads files with :mod:`rankclust.io`,
calls estimators looked up in the method registries below, and formats with
:mod:`rankclust._report` and :mod:`rankclust.plotting`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import json
import re
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

__all__ = [
    "CLUSTER_METHODS",
    "LABEL_RANKING_METHODS",
    "ORDINAL_METHODS",
    "PAPERS",
    "QUICK_ARGS",
    "SUPERVISED_METHODS",
    "CLIError",
    "Method",
    "build_parser",
    "load_rankings",
    "main",
    "make_estimator",
    "method_registry",
]

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_SIGPIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left


class CLIError(Exception):
    """Bad usage or bad input: printed as one line, exit code 2."""


# --------------------------------------------------------------------------------------------
# method registries
# --------------------------------------------------------------------------------------------
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
    fallbacks : tuple of str
        Further modules to look in when ``module`` does not export ``cls`` (yet).
    """

    name: str
    module: str
    cls: str
    description: str
    kinds: tuple[str, ...] | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    fallbacks: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return f"{self.module}.{self.cls}"

    def load(self) -> type:
        """The estimator class; ``CLIError`` when it is not in this build."""
        for module in (self.module, *self.fallbacks):
            try:
                mod = importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name and module.startswith(exc.name):
                    continue  # this module is not part of the build
                raise
            cls = getattr(mod, self.cls, None)
            if isinstance(cls, type):
                return cls
        raise CLIError(f"not available yet: {self.path} is not installed in this build")


def _methods(*methods: Method) -> dict[str, Method]:
    return {m.name: m for m in methods}


#: Unsupervised clustering of rankings (``rankclust cluster/select-k/significance``).
CLUSTER_METHODS: dict[str, Method] = _methods(
    Method("mixture", "rankclust.cluster", "MallowsMixture",
           "mixture of Mallows models for top-t, subset and complete rankings, by EM "
           "(Busse et al. 2007)", fallbacks=("rankclust.cluster.mixture",)),
    Method("chains", "rankclust.cluster", "ChainKMeans",
           "k-means for chains with pair-order centroids (Ukkonen 2011)", ("subset",)),
    Method("pl-mixture", "rankclust.cluster", "PlackettLuceMixture",
           "mixture of Plackett-Luce models, by EM", fallbacks=("rankclust.cluster.mixture",)),
    Method("komeans", "rankclust.cluster", "KOMeans",
           "k-o'means: k-means with total-order centres (Kamishima & Akaho)", ("subset",)),
)  # fmt: skip

#: Label rankers (``rankclust labelrank``), Cheng, Hühn & Hüllermeier (2009) and baselines.
LABEL_RANKING_METHODS: dict[str, Method] = _methods(
    Method("iblr", "rankclust.label_ranking", "IBLRMallows",
           "instance-based label ranking with a local Mallows model (IB-Mal)"),
    Method("iblr-pl", "rankclust.label_ranking", "IBLRPlackettLuce",
           "instance-based label ranking with a local Plackett-Luce model (IB-PL)"),
    Method("lrt", "rankclust.label_ranking", "LabelRankingTree",
           "label ranking tree with Mallows leaves (LRT)"),
    Method("rpc", "rankclust.label_ranking", "PairwiseLabelRanker",
           "ranking by pairwise comparison (baseline)"),
    Method("cc", "rankclust.label_ranking", "ConstraintClassification",
           "constraint classification (baseline)"),
    Method("consensus", "rankclust.label_ranking", "ConsensusLabelRanker",
           "one consensus ranking for every instance (baseline)"),
)  # fmt: skip

#: Supervised clustering of label-ranking data (``rankclust supervise``), Grbovic et al. 2013;
#: the paper's names in brackets.
SUPERVISED_METHODS: dict[str, Method] = _methods(
    Method("km-mallows", "rankclust.supervised", "FeatureKMeansRanking",
           "k-means on features, Mallows central ranking per cluster [Km_Mal]",
           params={"ranking_model": "mallows"}),
    Method("km-pl", "rankclust.supervised", "FeatureKMeansRanking",
           "k-means on features, Plackett-Luce central ranking per cluster [Km_PL]",
           params={"ranking_model": "plackett_luce"}),
    Method("naive-km", "rankclust.supervised", "NaiveKMeans",
           "k-means on features and label positions together [naive_Km]"),
    Method("naive-rt", "rankclust.supervised", "RankClusteringTree",
           "cluster the rankings naively, then a tree restricted to the K rankings [naive_RT]",
           params={"clusterer": "naive"}),
    Method("ebms-rt", "rankclust.supervised", "RankClusteringTree",
           "Mallows-mixture clusters of the rankings, then a tree [ebms_RT]",
           params={"clusterer": "mallows_mixture"}),
    Method("komeans-rt", "rankclust.supervised", "RankClusteringTree",
           "k-o'means clusters of the rankings, then a tree [Ko'm_RT]",
           params={"clusterer": "komeans"}),
    Method("rt-prune", "rankclust.supervised", "RankTree",
           "label ranking tree pruned to K rankings [RT_prun]", params={"mode": "prune"}),
    Method("rt-iter", "rankclust.supervised", "RankTree",
           "label ranking tree grown and re-centred iteratively [RT_iter]",
           params={"mode": "iterate"}),
    Method("mm-pl", "rankclust.supervised", "PrototypePLMixture",
           "prototypes in feature space with a Plackett-Luce model per cluster [MM-PL]"),
    Method("one-rank", "rankclust.supervised", "OneRank",
           "one central ranking for everybody (baseline) [1 Rank]"),
)  # fmt: skip

#: Ordinal-regression clustering (``rankclust ordinal``), Xiao, Liu & Hao 2016.
ORDINAL_METHODS: dict[str, Method] = _methods(
    Method("m2sorc", "rankclust.ordinal", "M2SORC",
           "maximum-margin semi-supervised ordinal regression clustering"),
)  # fmt: skip

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

#: ``rankclust reproduce PAPER``: the experiment script of each paper is
#: ``experiments/*<paper>*.py``.
#: How each paper's script is run quickly (``--full`` drops these; ``-- ARGS`` appends).
QUICK_ARGS: dict[str, tuple[str, ...]] = {
    "cheng2009": ("--quick",),
    "grbovic2013": ("tables", "--quick"),
    "ukkonen2011": ("--quick",),
    "busse2007": ("--quick",),
    "xiao2016": ("--quick",),
}

PAPERS: dict[str, str] = {
    "cheng2009": "Cheng, Hühn & Hüllermeier 2009: label ranking trees and instance-based learning",
    "grbovic2013": "Grbovic et al. 2013: supervised clustering of label ranking data",
    "ukkonen2011": "Ukkonen 2011: clustering algorithms for chains",
    "busse2007": "Busse, Orbanz & Buhmann 2007: cluster analysis of heterogeneous rank data",
    "xiao2016": "Xiao, Liu & Hao 2016: maximum-margin semi-supervised ordinal clustering",
}


def method_registry(family: str) -> dict[str, Method]:
    """The methods of a command family: the defaults plus the package's own registry."""
    methods = dict(_DEFAULTS[family])
    module, names = _PACKAGE_REGISTRIES[family]
    try:
        pkg = importlib.import_module(module)
    except ModuleNotFoundError:
        return methods
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
                )  # fmt: skip
        break
    return methods


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().splitlines()[0] if doc and doc.strip() else ""


def _resolve_method(family: str, name: str) -> tuple[Method, type]:
    methods = method_registry(family)
    if name not in methods:
        raise CLIError(f"unknown method {name!r}; choose from {', '.join(methods)}")
    method = methods[name]
    return method, method.load()


# --------------------------------------------------------------------------------------------
# console helpers
# --------------------------------------------------------------------------------------------
class _Console:
    """Where the command writes: results to stdout, chatter and progress to stderr."""

    def __init__(
        self, quiet: bool, out: TextIO | None = None, err: TextIO | None = None, *,
        wide: bool = False,
    ):  # fmt: skip
        self.quiet = quiet
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        #: show rankings whole (``--wide``) instead of their first ``_MAX_SHOWN_ITEMS`` items
        self.max_items: int | None = None if wide else _MAX_SHOWN_ITEMS
        #: the reader of standard output went away (``rankclust ... | head``)
        self.out_closed = False
        self.err_closed = False

    def print(self, text: str = "") -> None:
        """Print a line of results; a closed pipe ends the printing, not the command.

        Each line is flushed, so a reader that stops early (``| head``) is noticed here; the
        command then goes on quietly and still writes every file it was asked for.
        """
        if self.out_closed:
            return
        try:
            print(text, file=self.out, flush=True)
        except BrokenPipeError:
            self.out_closed = True
            _silence(self.out)

    def info(self, text: str) -> None:
        if not self.quiet:
            self.note(text)

    def note(self, text: str) -> None:
        """A line on standard error (warnings, progress); a closed pipe silences it too."""
        if self.err_closed:
            return
        try:
            print(text, file=self.err, flush=True)
        except BrokenPipeError:
            self.err_closed = True
            _silence(self.err)

    def progress(self, iterable: Iterable, *, total: int | None = None, desc: str = "") -> Any:
        from tqdm.auto import tqdm

        return tqdm(
            iterable, total=total, desc=desc, file=_PipeSafe(self),
            disable=self.quiet or self.err_closed, leave=False,
            dynamic_ncols=True,
        )  # fmt: skip

    @contextlib.contextmanager
    def task(self, text: str) -> Iterator[None]:
        """Announce a long step and its duration (silent with --quiet)."""
        self.info(f"{text} ...")
        start = time.perf_counter()
        yield
        self.info(f"  done in {time.perf_counter() - start:.1f} s")


class _PipeSafe:
    """Standard error for the progress bars: a closed pipe silences them, it stops nothing."""

    def __init__(self, console: _Console):
        self._console = console

    def write(self, text: str) -> int:
        self._call("write", text)
        return len(text)

    def flush(self) -> None:
        self._call("flush")

    def _call(self, name: str, *args: Any) -> None:
        console = self._console
        if console.err_closed:
            return
        try:
            getattr(console.err, name)(*args)
        except BrokenPipeError:
            console.err_closed = True
            _silence(console.err)

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ...
        return getattr(self._console.err, name)


# Items of a ranking shown in text output without --wide.
_MAX_SHOWN_ITEMS = 12


def _silence(stream: TextIO) -> None:
    """Send whatever is still buffered for a closed pipe to /dev/null.

    Without this, Python flushes the buffer again at exit and prints "Exception ignored
    ... BrokenPipeError" (the idiom of the Python documentation on SIGPIPE).
    """
    import os

    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's capture buffer)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _one_line(message: str) -> str:
    lines = [ln.strip() for ln in str(message).strip().splitlines() if ln.strip()]
    return lines[0] if lines else "error"


@contextlib.contextmanager
def _warnings_as_lines(console: _Console) -> Iterator[None]:
    """Show warnings (malformed lines skipped, non-convergence) as one line each."""

    def show(message, category, filename, lineno, file=None, line=None):
        if not console.quiet:
            console.note(f"rankclust: warning: {_one_line(str(message))}")

    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = show
        yield


# --------------------------------------------------------------------------------------------
# reading input
# --------------------------------------------------------------------------------------------
# The --format choices: rankclust.io.FORMATS (kept literal so that --help imports no reader).
_READ_FORMATS = ("preflib", "orderings", "ranks", "label-ranking", "kamishima")
# The read summary of each input file (rankclust.io.ReadReport), shown by _input_note.
_READ_REPORTS: dict[str, Any] = {}


def _check_file(path: str) -> Path:
    p = Path(path)
    if not p.exists():
        raise CLIError(f"{path}: no such file")
    if p.is_dir():
        raise CLIError(f"{path}: is a directory, expected a file")
    return p


def _input_limits() -> Any:
    """The input limits in force (defaults and ``RANKCLUST_MAX_*``; see rankclust.io)."""
    from rankclust._limits import resolve_limits

    return resolve_limits()


def _item_names(items_file: str | None, encoding: str | None) -> list[str] | None:
    from rankclust.io import read_item_names

    return read_item_names(_check_file(items_file), encoding=encoding) if items_file else None


def load_rankings(
    path: str,
    *,
    fmt: str = "auto",
    kind: str | None = None,
    items_file: str | None = None,
    encoding: str | None = None,
    strict: bool = True,
) -> Any:
    """Read rankings with :func:`rankclust.io.read_rankings` (all detection lives there).

    Parameters
    ----------
    path : str
    fmt : {"auto", "preflib", "orderings", "ranks", "label-ranking", "kamishima"}
    kind : {"top", "subset"}, optional
        Override the meaning of absent items.
    items_file : str, optional
        Item names, one per line, in item order.
    encoding : str, optional
        The files' text encoding (default: byte-order mark, else UTF-8).
    strict : bool, default=True
        Refuse the first malformed line; if False skip malformed lines (reported in the
        summary and in one warning).

    The one-line read summary (rows read, used, refused and why) is printed by
    ``_input_note`` once the command has accepted the input.

    Returns
    -------
    Rankings
    """
    from rankclust.io import read_rankings

    p = _check_file(path)
    items = _item_names(items_file, encoding)
    R, report = read_rankings(
        p, fmt, encoding=encoding, items=items, kind=kind, strict=strict, return_report=True
    )
    _READ_REPORTS[str(path)] = report  # printed by _input_note once the input is accepted
    return R


def load_label_ranking(
    path: str, items_file: str | None = None, *, encoding: str | None = None
) -> tuple[np.ndarray, Any]:
    """Features and label rankings from a label-ranking CSV (``n,p,k`` header)."""
    from rankclust.io import read_label_rankings

    p = _check_file(path)
    items = _item_names(items_file, encoding)
    X, Y, report = read_label_rankings(
        p, encoding=encoding, items=items, finite_features=True, return_report=True
    )
    _READ_REPORTS[str(path)] = report
    return X, Y


def _read_numeric_csv(path: str, *, what: str, integer: bool = False) -> np.ndarray:
    """A rectangular numeric CSV (optional header) as a 2-d array; errors name the line."""
    from rankclust.io import read_numeric_csv

    return read_numeric_csv(_check_file(path), what=what, integer=integer)


# --------------------------------------------------------------------------------------------
# building and fitting estimators
# --------------------------------------------------------------------------------------------
def _parse_set(values: Sequence[str] | None) -> dict[str, Any]:
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


def _check_k(k: int, n: int, what: str = "rankings", option: str = "-k") -> None:
    if k < 1:
        raise CLIError(f"{option}: K must be at least 1, got {k}")
    if k > n:
        raise CLIError(f"{option}: K={k} is larger than the number of {what} ({n})")


def _data_row_lines(path: str, n_rows: int) -> list[int] | None:
    """The file line of each data row, or None when the lines cannot be told.

    The readers return rows, not line numbers, so the lines are recounted here: the
    non-blank lines that do not start with ``#`` are the rows in order, after at most one
    header line. The count must match ``n_rows`` exactly; otherwise (rows merged or skipped
    by the reader, a multi-line header) None, and messages name the data row instead.
    """
    report = _READ_REPORTS.get(str(path))  # the reader's own count, when it read this file
    if report is not None and report.row_lines is not None:
        return list(report.row_lines) if len(report.row_lines) == n_rows else None
    import gzip

    try:
        data = Path(path).read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = [
        k for k, ln in enumerate(text.splitlines(), start=1)
        if ln.strip() and not ln.lstrip().startswith("#")
    ]  # fmt: skip
    if len(lines) == n_rows + 1:  # a header line
        lines = lines[1:]
    return lines if len(lines) == n_rows else None


def _where(path: str, row: int, n_rows: int) -> str:
    """``FILE:LINE`` of data row ``row`` (0-based), else ``FILE: data row N``."""
    lines = _data_row_lines(path, n_rows)
    return f"{path}:{lines[row]}" if lines is not None else f"{path}: data row {row + 1}"


def _refuse_ties(path: str, R: Any, need: str, unit: str = "ranking") -> None:
    """Refuse tied rankings naming the file line of the first one and who needs no ties."""
    tied = np.flatnonzero(R.has_ties)
    if tied.size:
        n_more = tied.size - 1
        more = f" (and {n_more} more {unit}{'s' if n_more > 1 else ''})" if n_more else ""
        raise CLIError(
            f"{_where(path, int(tied[0]), R.n_rankings)}: this {unit} ranks items as tied"
            f"{more}; {need} needs rankings without ties: break the ties in the file or leave "
            f"those {unit}s out"
        )


def _check_kind(method: Method, R: Any) -> None:
    if method.kinds is not None and R.kind not in method.kinds:
        raise CLIError(
            f"method {method.name!r} needs rankings of kind {'/'.join(method.kinds)!r} but the "
            f"file was read as kind {R.kind!r}; pass --kind {method.kinds[0]} to read it so"
        )


def _check_rank_input(method: Method, R: Any, path: str) -> None:
    """Kind and ties of ``cluster``/``select-k`` input, checked before any fit.

    No ranking clusterer fits tied rankings yet, so a file with ties is refused here with
    the file and the first tied ranking, not by the estimator after the file was read.
    """
    _check_kind(method, R)
    _refuse_ties(path, R, f"--method {method.name}")


# --------------------------------------------------------------------------------------------
# outputs
# --------------------------------------------------------------------------------------------
class _Outputs:
    """Figures, JSON and the saved model of one command run."""

    def __init__(self, args: argparse.Namespace, console: _Console):
        self.args = args
        self.console = console
        self.plots_dir = Path(args.plots) if getattr(args, "plots", None) else None
        self.written: list[Path] = []

    def want_plots(self) -> bool:
        return self.plots_dir is not None

    def figure(self, name: str, draw: Callable[[], Any]) -> None:
        """Draw with ``draw()`` (returns an Axes or Figure) and save ``name`` in the plot dir."""
        if self.plots_dir is None:
            return
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        self.plots_dir.mkdir(parents=True, exist_ok=True)
        drawn = draw()
        fig = drawn if hasattr(drawn, "savefig") else drawn.figure
        path = self.plots_dir / name
        fig.savefig(path, dpi=120)
        plt.close(fig)
        self.written.append(path)

    def json(self, result: dict) -> None:
        path = getattr(self.args, "json", None)
        if path:
            from rankclust._report import write_json

            write_json(result, path)
            self.written.append(Path(path))

    def save(self, model: Any) -> None:
        path = getattr(self.args, "save", None)
        if path:
            from rankclust.persistence import save

            try:
                save(model, path)
            except TypeError as exc:  # the model holds something that cannot be stored safely
                raise CLIError(f"cannot save the model: {exc}") from None
            self.written.append(Path(path))

    def report(self) -> None:
        if self.written:
            self.console.info("wrote " + ", ".join(str(p) for p in self.written))


_MAX_PAIRWISE_ITEMS = 40
_MAX_PAIRWISE_PANELS = 10


def _cluster_figures(out: _Outputs, est: Any, R: Any, prefix: str = "") -> None:
    if not out.want_plots():
        return
    from rankclust._report import cluster_sizes
    from rankclust.plotting import plot_central_rankings, plot_pairwise_matrices

    centers = getattr(est, "centers_", None)
    if centers is None:
        centers = getattr(est, "central_rankings_", None)
    labels = np.asarray(getattr(est, "labels_", []))
    items = R.items
    matched = len(labels) == R.n_rankings and len(labels) > 0 and bool((labels >= 0).all())
    if centers is not None:
        pos = centers.ranks if hasattr(centers, "ranks") else np.asarray(centers)
        sizes = None
        if matched:  # ballots counted with their weights
            sizes = cluster_sizes(labels, len(pos), R.weights if R.is_weighted else None)[-1]
        out.figure(
            f"{prefix}central_rankings.png",
            lambda: plot_central_rankings(centers, items=items, cluster_sizes=sizes),
        )
    if matched:
        k = max(int(labels.max()) + 1, len(pos) if centers is not None else 0)  # empty: kept
        if R.n_items > _MAX_PAIRWISE_ITEMS or k > _MAX_PAIRWISE_PANELS:
            out.console.info(
                f"(no pairwise figure for {R.n_items} items and {k} clusters: too large to read)"
            )
            return
        C = R.pairwise_counts(labels=labels, n_groups=k)
        out.figure(f"{prefix}pairwise_by_cluster.png", lambda: plot_pairwise_matrices(C, items, centers=centers, cluster_sizes=cluster_sizes(labels, k, R.weights if R.is_weighted else None)[-1]))  # fmt: skip


# --------------------------------------------------------------------------------------------
# commands
# --------------------------------------------------------------------------------------------
def _input_note(R: Any, path: str) -> str:
    report = _READ_REPORTS.get(str(path))
    if report is not None and report.n_rankings == R.n_rankings:
        return f"{report.summary()} (kind {R.kind!r})"
    w = f", {R.weights.sum():g} ballots" if R.is_weighted else ""
    return f"{path}: {R.n_rankings} rankings over {R.n_items} items (kind {R.kind!r}{w})"


def cmd_cluster(args: argparse.Namespace, console: _Console) -> int:
    from rankclust._report import cluster_summary, result_dict

    method, cls = _resolve_method("cluster", args.method)
    est = make_estimator(
        cls, n_clusters=args.k, random_state=args.random_state, n_init=args.n_init,
        extra=_parse_set(args.set), fixed=method.params,
    )  # fmt: skip
    R = load_rankings(args.file, fmt=args.format, kind=args.kind, items_file=args.items,
                      encoding=args.encoding, strict=not args.skip_malformed)  # fmt: skip
    _check_rank_input(method, R, args.file)
    _check_k(args.k, R.n_rankings)
    console.info(_input_note(R, args.file))
    with console.task(f"fitting {cls.__name__} with K={args.k}"):
        est.fit(R)
    _print_summary(console, cluster_summary(
        est, R, title=f"{cls.__name__} ({method.name})", max_items=console.max_items,
    ), R.n_items)  # fmt: skip
    out = _Outputs(args, console)
    _cluster_figures(out, est, R)
    out.json(result_dict(est, R=R, extra={"command": "cluster", "input": args.file,
                                          "method": method.name}))  # fmt: skip
    out.save(est)
    out.report()
    return EXIT_OK


def _parse_ks(text: str, largest: int | None = None, *, build: bool = True) -> list[int]:
    """``"1..8"``, ``"2-6"`` or ``"2,3,5"`` as a sorted list of distinct ints.

    A value above ``largest`` (the number of rankings) is refused before any range is
    built: ``1..10**30`` must not be materialised. ``build=False`` checks the syntax only
    (before the file is read, when ``largest`` is not known yet).
    """
    ks: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)\s*(?:\.\.|-|:)\s*(\d+)", part)
        if m and m.group(1).isascii() and m.group(2).isascii():
            lo, hi = _k_value(m.group(1)), _k_value(m.group(2))
            if lo > hi:
                raise CLIError(f"--ks: empty range {part!r}")
            _check_ks_bound(hi, largest)
            ks.update(range(lo, hi + 1) if build else (lo, hi))
        elif part.isdigit() and part.isascii():
            _check_ks_bound(_k_value(part), largest)
            ks.add(int(part))
        else:
            raise CLIError(f"--ks: cannot read {part!r} (use e.g. 1..8 or 2,3,5)")
    if not ks:
        raise CLIError("--ks: no values")
    return sorted(ks)


def _k_value(digits: str) -> int:
    if len(digits.lstrip("0")) > 18:
        raise CLIError(f"--ks: {digits[:20]}... is too large")
    return int(digits)


def _check_ks_bound(k: int, largest: int | None) -> None:
    if largest is not None:
        _check_k(k, largest, option="--ks")


_SELECTION_CRITERIA = (("bic_", "bic"), ("icl_", "icl"), ("aic_", "aic"))
_TABLE_COLUMNS = ("log_likelihood", "bic", "icl", "aic")


def select_k_table(
    cls: type,
    R: Any,
    ks: Sequence[int],
    *,
    console: _Console,
    make: Callable[[int], Any],
    criterion: str = "bic",
) -> tuple[list[dict[str, Any]], dict[int, Any], Any]:
    """Fit one model per K; rows ``{"k", "log_likelihood", "bic", "icl", "aic"}`` (or
    ``{"k", "objective"}`` for a method without criteria), the fitted models, and the
    module's selection result (None without one).

    When the estimator's module provides ``select_k(estimator, R, ks=, criterion=,
    callback=)`` (the mixtures do), it is called **once** over all K, so that each fit
    starts also from the K - 1 fit (warm starts) and the table is the one ``select_k``
    returns for the same seed; its callback advances the progress bar.
    """
    from rankclust.cluster._base import objective_of

    selector = getattr(importlib.import_module(cls.__module__), "select_k", None)
    rows: list[dict[str, Any]] = []
    models: dict[int, Any] = {}
    if callable(selector):
        with console.progress(None, total=len(ks), desc=f"{cls.__name__} K") as bar:

            def advance(k: int, est: Any, row: dict) -> None:
                bar.update(1)

            res = selector(make(ks[0]), R, ks=list(ks), criterion=criterion, callback=advance)
        for row in res.table:
            rows.append({"k": row["k"], **{c: float(row[c]) for c in _TABLE_COLUMNS}})
        return rows, dict(res.estimators), res
    for k in console.progress(ks, total=len(ks), desc=f"{cls.__name__} K"):
        row: dict[str, Any] = {"k": k}
        est = make(k).fit(R)
        for attr, name in _SELECTION_CRITERIA:
            if getattr(est, attr, None) is not None:
                row[name] = float(getattr(est, attr))
        if len(row) == 1:
            row["objective"] = objective_of(est, R)
        rows.append(row)
        models[k] = est
    return rows, models, None


def cmd_select_k(args: argparse.Namespace, console: _Console) -> int:
    from rankclust._report import cluster_summary, result_dict, selection_summary

    method, cls = _resolve_method("cluster", args.method)
    _parse_ks(args.ks, build=False)  # a malformed --ks fails before the file is read
    extra = _parse_set(args.set)
    if not _has_criteria(cls):
        # an objective that only decreases with K chooses no K, so there is no model to keep
        for option, given in (("--save", args.save), ("--criterion", args.criterion)):
            if given is not None:
                raise CLIError(
                    f"{option}: --method {method.name} has no information criterion, so "
                    "select-k chooses no K and keeps no model; read the elbow of the "
                    "objective, then fit that K with 'rankclust cluster -k K"
                    + (" --save FILE'" if option == "--save" else "'")
                )

    def make(k: int) -> Any:
        return make_estimator(cls, n_clusters=k, random_state=args.random_state,
                              n_init=args.n_init, extra=extra, fixed=method.params)  # fmt: skip

    make(1)  # bad --n-init and --set values fail here, before the file is read
    R = load_rankings(args.file, fmt=args.format, kind=args.kind, items_file=args.items,
                      encoding=args.encoding, strict=not args.skip_malformed)  # fmt: skip
    _check_rank_input(method, R, args.file)
    ks = _parse_ks(args.ks, largest=R.n_rankings)
    _check_k(ks[-1], R.n_rankings, option="--ks")
    console.info(_input_note(R, args.file))
    wanted = args.criterion or "bic"
    rows, models, res = select_k_table(cls, R, ks, console=console, make=make, criterion=wanted)
    criterion = wanted if wanted in rows[0] else None
    console.print(selection_summary(
        rows, title=f"Model selection: {cls.__name__} ({method.name})",
        choose_by=(criterion,) if criterion else (),
    ))  # fmt: skip
    best_k = None
    if res is not None:
        best_k = res.best_k
        for note in res.notes:
            console.print(note)
    elif criterion is not None:
        best_k = min(rows, key=lambda r: (r[criterion], r["k"]))["k"]
    if best_k is not None:
        console.print()
        _print_summary(console, cluster_summary(
            models[best_k], R, title=f"best K={best_k} by {criterion.upper()}",
            max_items=console.max_items,
        ), R.n_items)  # fmt: skip
    else:
        console.print(
            f"({cls.__name__} has no {wanted.upper()}; its objective decreases with K "
            "and cannot choose K by itself - look for the elbow"
            + (" in model_selection.png)" if args.plots else ", e.g. with --plots DIR)")
        )
    out = _Outputs(args, console)
    if out.want_plots():
        from rankclust.plotting import plot_bic

        crits = None if criterion is not None else ["objective"]
        out.figure(
            "model_selection.png", lambda: plot_bic(rows, criteria=crits, mark_best=crits is None)
        )
        if best_k is not None:
            _cluster_figures(out, models[best_k], R)
    best = models[best_k] if best_k is not None else None
    extra_json: dict[str, Any] = {"command": "select-k", "input": args.file,
                                  "method": method.name, "selection": rows,
                                  "best_k": best_k, "criterion": criterion}  # fmt: skip
    if res is not None:
        extra_json.update(best_k_by=res.best_k_by, at_edge=res.at_edge, notes=res.notes)
    if best is not None:
        out.json(result_dict(best, R=R, extra=extra_json))
        out.save(best)
    else:
        out.json(extra_json)
    out.report()
    return EXIT_OK


_DEFAULT_TEST_SIZE = 0.3


def _check_eval_options(args: argparse.Namespace) -> None:
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


def _ranking_score(est: Any, X: np.ndarray, Y: Any, *, predict: str = "predict") -> float:
    from rankclust.metrics import kendall_tau

    if predict == "predict" and hasattr(est, "score"):
        return float(est.score(X, Y))
    return float(kendall_tau(Y, getattr(est, predict)(X)))


def _evaluate(
    args: argparse.Namespace, console: _Console, make: Callable[[], Any], X: np.ndarray, Y: Any,
    *, predict: str,
) -> list[float]:  # fmt: skip
    splits = _holdout_or_cv(args, len(X))
    scores = []
    for train, test in console.progress(splits, total=len(splits), desc="folds"):
        est = make()
        est.fit(X[train], Y[train])
        scores.append(_ranking_score(est, X[test], Y[test], predict=predict))
    return scores


def _score_lines(scores: Sequence[float], args: argparse.Namespace) -> str:
    how = (
        f"{args.cv}-fold cross-validation" if args.cv else f"hold-out ({_test_size(args):g} test)"
    )
    if len(scores) == 1:
        return f"Kendall tau on {how}: {scores[0]:.4f}"
    return (
        f"Kendall tau, {how}: mean {np.mean(scores):.4f}, std {np.std(scores):.4f} "
        f"(folds: {', '.join(f'{s:.3f}' for s in scores)})"
    )


def cmd_labelrank(args: argparse.Namespace, console: _Console) -> int:
    from rankclust._report import model_summary, result_dict

    method, cls = _resolve_method("labelrank", args.method)
    _check_eval_options(args)
    extra = _parse_set(args.set)

    def make() -> Any:
        return make_estimator(cls, random_state=args.random_state, n_init=args.n_init,
                              extra=extra, fixed=method.params)  # fmt: skip

    make()  # bad --n-init and --set values fail here, before the file is read
    X, Y = load_label_ranking(args.file, args.items, encoding=args.encoding)
    _refuse_ties(args.file, Y, "every label ranker", unit="row")
    console.info(_input_note(Y, args.file))

    scores = _evaluate(args, console, make, X, Y, predict="predict")
    console.print(f"{cls.__name__} ({method.name})")
    console.print(_score_lines(scores, args))
    with console.task("fitting on all rows"):
        est = make().fit(X, Y)
    n_show = min(5, len(X))
    pred = np.asarray(est.predict(X[:n_show]))
    console.print(
        f"in-sample predictions for the first {n_show} rows (training rows: the model was "
        "fitted on all rows; best label first):"
    )
    from rankclust._report import ranking_text

    lines = _data_row_lines(args.file, len(X))
    for i, row in enumerate(pred):
        where = f"row {i + 1}" + (f" (line {lines[i]})" if lines is not None else "")
        text = ranking_text(np.asarray(row) - 1, Y.items, max_items=console.max_items)
        console.print(f"  {where}: {text}")
    _print_cut_note(console, Y.n_items)
    if getattr(est, "center_", None) is not None or getattr(est, "scores_", None) is not None:
        console.print(model_summary(est, Y.items))
    out = _Outputs(args, console)
    if out.want_plots():
        from rankclust.plotting import plot_feature_clusters, plot_pairwise_matrix

        top = np.argmin(np.where(np.asarray(est.predict(X)) > 0, est.predict(X), np.inf), axis=1)
        out.figure("feature_space_predicted_top_label.png",
                   lambda: plot_feature_clusters(X, top, names=Y.items,
                                                 title="Predicted top label"))  # fmt: skip
        out.figure("pairwise_labels.png",
                   lambda: plot_pairwise_matrix(Y.pairwise_counts(), Y.items))  # fmt: skip
    out.json(result_dict(est, items=Y.items, extra={
        "command": "labelrank", "input": args.file, "method": method.name,
        "kendall_tau": scores, "kendall_tau_mean": float(np.mean(scores)),
    }))  # fmt: skip
    out.save(est)
    out.report()
    return EXIT_OK


def cmd_supervise(args: argparse.Namespace, console: _Console) -> int:
    from rankclust._report import cluster_summary, result_dict

    method, cls = _resolve_method("supervise", args.method)
    _check_eval_options(args)
    extra = _parse_set(args.set)
    k = args.k if _has_param(cls, "n_clusters") else None

    def make() -> Any:
        return make_estimator(cls, n_clusters=k, random_state=args.random_state,
                              n_init=args.n_init, extra=extra, fixed=method.params)  # fmt: skip

    make()  # bad --n-init and --set values fail here, before the file is read
    if k is None and args.k != 1:  # a single-cluster method cannot honour another K
        raise CLIError(f"-k {args.k}: --method {method.name} fits a single cluster; pass -k 1")
    X, Y = load_label_ranking(args.file, args.items, encoding=args.encoding)
    _refuse_ties(args.file, Y, "every supervised clusterer", unit="row")
    _check_k(args.k, len(X), "rows")
    console.info(_input_note(Y, args.file))
    predict = "predict_ranking" if hasattr(cls, "predict_ranking") else "predict"
    scores = _evaluate(args, console, make, X, Y, predict=predict)
    with console.task(f"fitting {cls.__name__} on all rows"):
        est = make().fit(X, Y)
    _print_summary(console, cluster_summary(
        est, Y, title=f"{cls.__name__} ({method.name})", max_items=console.max_items,
    ), Y.n_items)  # fmt: skip
    console.print(_score_lines(scores, args))
    out = _Outputs(args, console)
    if out.want_plots():
        from rankclust.plotting import plot_feature_clusters

        _cluster_figures(out, est, Y)
        out.figure("feature_clusters.png", lambda: plot_feature_clusters(X, est.labels_))
    out.json(result_dict(est, R=Y, extra={
        "command": "supervise", "input": args.file, "method": method.name,
        "kendall_tau": scores, "kendall_tau_mean": float(np.mean(scores)),
    }))  # fmt: skip
    out.save(est)
    out.report()
    return EXIT_OK


def cmd_ordinal(args: argparse.Namespace, console: _Console) -> int:
    from rankclust._report import format_table, result_dict

    method, cls = _resolve_method("ordinal", args.method)
    est = make_estimator(cls, n_clusters=args.k, random_state=args.random_state,
                         n_init=args.n_init, extra=_parse_set(args.set),
                         fixed=method.params)  # fmt: skip
    X = _read_numeric_csv(args.file, what="features")
    pairs = _read_numeric_csv(args.pairs, what="pairs", integer=True) if args.pairs else None
    if pairs is not None:
        if pairs.shape[1] != 2:
            raise CLIError(f"{args.pairs}: expected 2 columns (i, j), got {pairs.shape[1]}")
        bad = (pairs < 0) | (pairs >= len(X))
        if bad.any():
            r = int(np.argwhere(bad)[0, 0])
            raise CLIError(
                f"{args.pairs}: pair {r + 1} refers to row {int(pairs[r][bad[r]][0])}, outside "
                f"0..{len(X) - 1} of {args.file}"
            )
    _check_k(args.k, len(X), "rows")
    console.info(f"{args.file}: {X.shape[0]} rows, {X.shape[1]} features; "
                 f"{0 if pairs is None else len(pairs)} ranking pairs")  # fmt: skip
    with console.task(f"fitting {cls.__name__} with K={args.k}"):
        est.fit(X, pairs=pairs)
    labels = np.asarray(est.labels_)
    sizes = np.bincount(labels, minlength=args.k)
    console.print(f"{cls.__name__} ({method.name}): {args.k} ordered clusters, {len(X)} rows")
    console.print(format_table(["cluster (low to high)", "size"],
                               [[k, int(s)] for k, s in enumerate(sizes)]))  # fmt: skip
    if pairs is not None and len(pairs):
        kept = float(np.mean(labels[pairs[:, 0]] > labels[pairs[:, 1]]))
        console.print(
            f"ranking pairs respected (row i in a higher cluster than row j): {kept:.1%}"
        )
    if getattr(est, "objective_", None) is not None:
        console.print(f"objective {est.objective_:.6g}, iterations {getattr(est, 'n_iter_', '-')}")
    out = _Outputs(args, console)
    if out.want_plots():
        from rankclust.plotting import plot_feature_clusters

        out.figure("feature_clusters.png", lambda: plot_feature_clusters(X, labels))
    out.json(result_dict(est, extra={"command": "ordinal", "input": args.file,
                                     "pairs": args.pairs, "method": method.name,
                                     "sizes": sizes}))  # fmt: skip
    out.save(est)
    out.report()
    return EXIT_OK


def _check_significance_input(method: Method, R: Any, path: str) -> None:
    """Kind, ties and size of the swap test's data, checked before any fit or sampling."""
    if R.kind == "top" and method.kinds is not None and "top" not in method.kinds:
        short = R.lengths <= 1
        n_short, total = float(R.weights[short].sum()), float(R.weights.sum())
        raise CLIError(
            f"method {method.name!r} clusters chains, but {path} was read as top-t ballots "
            "(kind 'top'); test the ballots as ballots with --method mixture or --method "
            "pl-mixture, or pass --kind subset to read them as chains (then the "
            f"{n_short:g} of {total:g} ballots that list one candidate carry no information)"
        )
    _check_kind(method, R)
    _refuse_ties(path, R, "the randomisation test (it swaps adjacent items)")
    w = R.weights
    if not np.allclose(w, np.round(w)):
        raise CLIError(f"{path}: the randomisation test needs whole-number ballot counts")
    limit = _input_limits().max_rows
    if w.sum() > limit:
        raise CLIError(
            f"{path}: the randomisation test moves single ballots and would expand the "
            f"{w.sum():.0f} ballots row by row, more than the limit of {limit} rows "
            "(RANKCLUST_MAX_ROWS)"
        )


def cmd_significance(args: argparse.Namespace, console: _Console) -> int:
    from rankclust._report import result_dict

    if args.greater_is_better and args.statistic is None:
        raise CLIError(
            "--greater-is-better: the default statistic (the objective) is better when lower; "
            "name the statistic with --statistic ATTR, e.g. --statistic log_likelihood_"
        )
    if args.method is not None:  # bad --method, --n-init and --set fail before reading
        method, cls = _resolve_method("cluster", args.method)
        make_estimator(cls, n_clusters=args.k, n_init=args.n_init, extra=_parse_set(args.set),
                       fixed=method.params)  # fmt: skip
    R = load_rankings(args.file, fmt=args.format, kind=args.kind, items_file=args.items,
                      encoding=args.encoding, strict=not args.skip_malformed)  # fmt: skip
    # ballots are tested as ballots, chains as chains
    name = args.method or ("mixture" if R.kind == "top" else "chains")
    method, cls = _resolve_method("cluster", name)
    _check_significance_input(method, R, args.file)
    _check_k(args.k, R.n_rankings)
    if args.method is None:
        console.info(f"kind {R.kind!r}: testing with --method {name}")
    try:
        from rankclust.cluster import randomization_test
        from rankclust.cluster._base import objective_of
    except ImportError:
        raise CLIError(
            "not available yet: rankclust.cluster.randomization_test is not installed in this "
            "build"
        ) from None
    est = make_estimator(cls, n_clusters=args.k, random_state=args.random_state,
                         n_init=args.n_init, extra=_parse_set(args.set),
                         fixed=method.params)  # fmt: skip
    console.info(_input_note(R, args.file))
    console.info(f"drawing {args.n_samples} random data sets by swap MCMC, then fitting each")
    bar = console.progress(range(args.n_samples + 1), total=args.n_samples + 1, desc="fits")

    def statistic(fitted: Any, D: Any) -> float:
        bar.update(1)  # one tick per fit: the real data, then each random data set
        return objective_of(fitted, D, args.statistic)

    try:
        res = randomization_test(
            est, R, n_samples=args.n_samples, n_steps=args.n_steps, statistic=statistic,
            greater_is_better=args.greater_is_better, random_state=args.random_state,
        )  # fmt: skip
    finally:
        bar.close()
    null = np.asarray(res.null_distribution)
    console.print(f"Randomisation test: {cls.__name__} ({method.name}), K={args.k}, "
                  f"h={len(null)} random data sets, {res.n_steps} swap steps each")  # fmt: skip
    console.print(f"  observed statistic: {res.statistic:.6g}")
    console.print(f"  null distribution:  mean {null.mean():.6g}, min {null.min():.6g}, "
                  f"max {null.max():.6g}")  # fmt: skip
    console.print(f"  p-value: {res.pvalue:.4g} (smallest possible {1 / (len(null) + 1):.4g})")
    out = _Outputs(args, console)
    if out.want_plots():
        from rankclust.plotting import plot_randomization_test

        label = args.statistic or "reconstruction error"
        out.figure("randomization_test.png", lambda: plot_randomization_test(
            null, res.statistic, res.pvalue, statistic=label))  # fmt: skip
    out.json({"command": "significance", "input": args.file, "method": method.name,
              "k": args.k, "p_value": res.pvalue, "statistic": res.statistic,
              "null_distribution": null, "n_steps": res.n_steps,
              "acceptance_rate": res.acceptance_rate,
              "estimator": result_dict(est)["estimator"]})  # fmt: skip
    out.report()
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# reproduce
# --------------------------------------------------------------------------------------------
def _experiments_dir(explicit: str | None) -> Path | None:
    if explicit:  # the user's folder or an error: never another folder's scripts
        path = Path(explicit)
        if not path.is_dir():
            what = "is not a directory" if path.exists() else "no such directory"
            raise CLIError(f"--experiments-dir {explicit}: {what}")
        return path
    candidates = [Path.cwd() / "experiments"]
    import rankclust

    candidates.append(Path(rankclust.__file__).resolve().parents[2] / "experiments")
    return next((c for c in candidates if c.is_dir()), None)


def cmd_reproduce(args: argparse.Namespace, console: _Console) -> int:
    paper = args.paper.lower()
    if paper not in PAPERS:
        raise CLIError(f"unknown paper {args.paper!r}; choose from {', '.join(PAPERS)}")
    exp = _experiments_dir(args.experiments_dir)
    if exp is None:
        raise CLIError(
            "no experiments/ folder found (run from a source checkout of rankclust, or pass "
            "--experiments-dir)"
        )
    scripts = sorted(p for p in exp.glob(f"*{paper}*.py") if p.is_file())
    if not scripts:
        raise CLIError(f"not available yet: no experiments/*{paper}*.py script in {exp}")
    cmd_extra = list(args.script_args or [])
    status = EXIT_OK
    for script in scripts:
        quick = [] if args.full else list(QUICK_ARGS.get(paper, ("--quick",)))
        cmd = [sys.executable, str(script), *quick, *cmd_extra]
        console.info(f"running {' '.join(cmd[1:])} ({PAPERS[paper]})")
        proc = subprocess.run(cmd, cwd=exp.parent, check=False)
        if proc.returncode != 0:
            console.print(f"{script.name} exited with code {proc.returncode}")
            status = EXIT_INTERNAL
            continue
        results = (
            sorted((exp / "results").glob(f"{script.stem}*")) if (exp / "results").is_dir() else []
        )
        where = ", ".join(str(p) for p in results) if results else str(exp / "results")
        console.print(f"{script.name}: results are written to {where}")
    return status


# --------------------------------------------------------------------------------------------
# demo
# --------------------------------------------------------------------------------------------
_DEMO_LABEL_SET = "glass"
# Label rankers the demo runs (the others are slower on this set and shown by name only).
_DEMO_LABEL_RANKERS = ("iblr", "lrt", "cc", "consensus")
_DEMO_SUPERVISED = "rt-iter"


def _demo_ballots(random_state: int) -> tuple[Any, str, np.ndarray | None]:
    """Ballots to cluster: a shipped ballot set if the package has one, else synthetic ones.

    Returns the rankings, a description and the generating components (None for real data).
    """
    from rankclust import datasets

    for name in ("load_apa", "load_ballots", "load_preflib_sample"):
        loader = getattr(datasets, name, None)
        if loader is not None:
            try:
                R = loader()
            except (FileNotFoundError, OSError):
                continue
            R = R[0] if isinstance(R, tuple) else R
            return R, f"shipped ballots ({name})", None
    R, truth = datasets.make_mallows_mixture(
        600, n_items=6, n_clusters=3, thetas=[1.2, 0.9, 0.7], lengths=(2, 6), kind="top",
        random_state=random_state,
    )  # fmt: skip
    from rankclust.rankings import Rankings

    names = ["Ada", "Ben", "Cleo", "Dev", "Eli", "Fay"]
    R = Rankings(R.ranks, kind=R.kind, items=names)
    return (
        R,
        "600 synthetic top-t ballots over 6 candidates from a 3-component Mallows mixture",
        truth,
    )


def cmd_demo(args: argparse.Namespace, console: _Console) -> int:
    from rankclust._report import cluster_summary, format_table, model_summary, selection_summary
    from rankclust.datasets import load_label_ranking as load_lr
    from rankclust.rankings import Rankings

    start = time.perf_counter()
    args.plots = args.plots or "demo_output"
    out = _Outputs(args, console)
    rs = args.random_state if args.random_state is not None else 0

    # 1. one ranking model on shipped rankings ----------------------------------------------
    X, Y = load_lr(_DEMO_LABEL_SET)
    labels = [f"label {j + 1}" for j in range(Y.n_items)]
    Y = Rankings(Y.ranks, kind=Y.kind, items=labels)
    console.print(f"== 1. Ranking models on the shipped label-ranking set {_DEMO_LABEL_SET!r}: "
                  f"{Y.n_rankings} rankings of {Y.n_items} labels ==")  # fmt: skip
    fitted = []
    for path, name in (("rankclust.models.mallows", "Mallows"),
                       ("rankclust.models.plackett_luce", "PlackettLuce")):  # fmt: skip
        cls = Method(name.lower(), path, name, "").load()
        with console.task(f"fitting {name}"):
            model = cls().fit(Y)
        console.print(model_summary(model, labels))
        fitted.append((name, model))
    console.print()
    from rankclust.plotting import plot_bic, plot_central_rankings, plot_pairwise_matrix

    centers = np.array([getattr(m, "center_", getattr(m, "ranking_", None)) for _, m in fitted])
    out.figure("1_models_central_rankings.png", lambda: plot_central_rankings(
        centers, items=labels, row_labels=[n for n, _ in fitted],
        title=f"Central rankings of {_DEMO_LABEL_SET!r}", order="given"))  # fmt: skip
    out.figure("1_pairwise_preferences.png", lambda: plot_pairwise_matrix(
        Y.pairwise_counts(), labels, title=f"Pairwise preferences in {_DEMO_LABEL_SET!r}"))  # fmt: skip

    # 2. cluster ballots with model selection -----------------------------------------------
    R, source, truth = _demo_ballots(rs)
    console.print(f"== 2. Clustering ballots: {source} ==")
    methods = method_registry("cluster")
    chosen = None
    for name in ("mixture", "pl-mixture", "chains"):
        try:
            chosen = (methods[name], methods[name].load())
            break
        except CLIError:
            continue
    if chosen is None:
        console.print("no clustering method in this build yet")
    else:
        method, cls = chosen
        data = R if method.kinds is None or R.kind in method.kinds else R.with_kind("subset")
        if data is not R:
            console.print(
                f"({method.name} clusters chains: the ballots are read as kind 'subset')"
            )

        def make(k: int) -> Any:
            return make_estimator(cls, n_clusters=k, random_state=rs,
                                  n_init=2 if _has_param(cls, "n_init") else None)  # fmt: skip

        rows, models, _ = select_k_table(cls, data, [1, 2, 3, 4, 5], console=console, make=make)
        crit = "bic" if "bic" in rows[0] else None
        console.print(selection_summary(
            rows, title=f"{cls.__name__} ({method.name}): model selection",
            choose_by=(crit,) if crit else (),
        ))  # fmt: skip
        if crit is not None:
            best_k = min(rows, key=lambda r: (r[crit], r["k"]))["k"]
        else:
            best_k = 3  # an objective cannot choose K: show the K the data were made with
        best = models[best_k]
        _print_summary(console, cluster_summary(
            best, data, title=f"{cls.__name__} with K={best_k}", max_items=console.max_items,
        ), data.n_items)  # fmt: skip
        if truth is not None:
            from sklearn.metrics import adjusted_rand_score

            ari = adjusted_rand_score(truth, best.labels_)
            console.print(f"adjusted Rand index against the generating components: {ari:.3f}")
        out.figure(
            "2_model_selection.png",
            lambda: plot_bic(rows, criteria=None if crit else ["objective"], mark_best=bool(crit)),
        )
        _cluster_figures(out, best, data, prefix="2_")
    console.print()

    # 3. label ranking ---------------------------------------------------------------------
    console.print(f"== 3. Label ranking on {_DEMO_LABEL_SET!r}: {X.shape[0]} rows, "
                  f"{X.shape[1]} features, {Y.n_items} labels ==")  # fmt: skip
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(np.arange(len(X)), test_size=0.3, random_state=rs)
    rankers = method_registry("labelrank")
    rows = []
    for name in _DEMO_LABEL_RANKERS:
        method = rankers.get(name)
        try:
            cls = method.load() if method is not None else None
        except CLIError:
            cls = None
        if cls is None:
            continue
        with console.task(f"fitting {cls.__name__}"):
            est = make_estimator(cls, random_state=rs, fixed=method.params)
            est.fit(X[train], Y[train])
        rows.append([name, cls.__name__, round(_ranking_score(est, X[test], Y[test]), 3)])
    if rows:
        console.print("Kendall tau on a 30% hold-out (1 = every predicted ranking correct):")
        console.print(format_table(["method", "estimator", "Kendall tau"], rows))
        others = [n for n in rankers if n not in _DEMO_LABEL_RANKERS]
        if others:
            console.print(f"(also: rankclust labelrank FILE --method {'|'.join(others)})")
    else:
        console.print("no label ranker in this build yet")
    console.print()

    # 4. supervised clustering ---------------------------------------------------------------
    console.print(f"== 4. Supervised clustering of {_DEMO_LABEL_SET!r} ==")
    sup = None
    supervised = method_registry("supervise")
    for name in (_DEMO_SUPERVISED, *supervised):
        try:
            sup = (supervised[name], supervised[name].load())
            break
        except (CLIError, KeyError):
            continue
    if sup is None:
        console.print("no supervised clusterer in this build yet")
    else:
        method, cls = sup
        with console.task(f"fitting {cls.__name__} with K=3"):
            est = make_estimator(cls, n_clusters=3, random_state=rs, fixed=method.params)
            est.fit(X[train], Y[train])
        tau = _ranking_score(est, X[test], Y[test], predict="predict_ranking")
        est.fit(X, Y)
        _print_summary(console, cluster_summary(
            est, Y, title=f"{cls.__name__} ({method.name}), K=3", max_items=console.max_items,
        ), Y.n_items)  # fmt: skip
        console.print(f"Kendall tau of the cluster rankings on the 30% hold-out: {tau:.3f}")
        from rankclust.plotting import plot_feature_clusters

        out.figure("4_feature_clusters.png", lambda: plot_feature_clusters(
            X, est.labels_, title=f"{cls.__name__} clusters of {_DEMO_LABEL_SET!r}"))  # fmt: skip
        _cluster_figures(out, est, Y, prefix="4_")
    console.print()
    console.print(f"figures written to {out.plots_dir}/ ({len(out.written)} files); "
                  f"demo took {time.perf_counter() - start:.1f} s")  # fmt: skip
    return EXIT_OK


def _has_criteria(cls: type) -> bool:
    """Whether the method chooses K by an information criterion (its module has ``select_k``,
    as the mixtures do); a k-means objective only decreases with K."""
    return callable(getattr(importlib.import_module(cls.__module__), "select_k", None))


def _print_cut_note(console: _Console, n_items: int) -> None:
    if console.max_items is not None and n_items > console.max_items:
        console.print(
            f"(rankings are cut after {console.max_items} of their {n_items} items; --wide "
            "shows them whole)"
        )


def _print_summary(console: _Console, text: str, n_items: int) -> None:
    console.print(text)
    _print_cut_note(console, n_items)


def _has_param(cls: type, name: str) -> bool:
    return name in inspect.signature(cls).parameters


# --------------------------------------------------------------------------------------------
# argument parser
# --------------------------------------------------------------------------------------------
def _int_arg(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _pos_int(text: str) -> int:
    v = _int_arg(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


_MAX_SEED = 2**32 - 1  # numpy's RandomState takes seeds in 0 .. 2**32 - 1


def _seed_arg(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = -1
    if not 0 <= v <= _MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"--random-state must be a non-negative integer (0 to {_MAX_SEED}), got {text!r}"
        )
    return v


def _method_help(methods: dict[str, Method]) -> str:
    return "; ".join(f"{m.name}: {m.description}" for m in methods.values())


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (the option and what is wrong)."""

    def error(self, message: str) -> Any:  # argparse's signature; never returns
        m = re.match(r"argument (\S+?)(?:/\S+)?: (.*)", message, re.S)
        if m and m.group(2).startswith(m.group(1)):  # our message names the option already
            message = m.group(2)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class _Refuse(argparse.Action):
    """An option the command cannot honour: refused while parsing, with the reason."""

    def __init__(self, option_strings: Sequence[str], dest: str, reason: str = "", **kw: Any):
        super().__init__(option_strings, dest, nargs="?", help=argparse.SUPPRESS, **kw)
        self.reason = reason

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string}: {self.reason}")


# Options each command takes (beyond its own positional arguments and command-specific
# options). Every option that some command has and another has not is refused by the other
# with a reason, so nothing on the command line is silently ignored; tests/test_cli_hygiene.py
# walks every command x option pair.
_OPTION_GROUPS: dict[str, tuple[str, ...]] = {
    "cluster": ("input", "fit", "save", "outputs", "wide", "seed", "base"),
    "select-k": ("input", "fit", "save", "outputs", "wide", "seed", "base"),
    "labelrank": ("label-input", "fit", "save", "eval", "outputs", "wide", "seed", "base"),
    "supervise": ("label-input", "fit", "save", "eval", "outputs", "wide", "seed", "base"),
    "ordinal": ("fit", "save", "outputs", "seed", "base"),
    "significance": ("input", "fit", "outputs", "seed", "base"),
    "demo": ("plots", "wide", "seed", "base"),
    "reproduce": ("base",),
    "predict": ("base",),  # its input, --out and --json: rankclust/cli_predict.py
}

# Why a command refuses an option it does not take (default: "not an option of COMMAND").
_REFUSALS: dict[tuple[str, str], str] = {
    ("significance", "--save"): "significance keeps no fitted model (it fits the data and "
    "every random data set); save a model with 'rankclust cluster FILE -k K --save FILE'",
    ("demo", "--json"): "demo writes only its figures (--plots DIR); every other command "
    "takes --json FILE",
    ("demo", "--save"): "demo keeps no model; every fitting command takes --save FILE",
    ("reproduce", "--random-state"): "the experiment script chooses its seeds; pass the "
    "script's own options after --, e.g. 'rankclust reproduce PAPER -- --help'",
    ("reproduce", "--plots"): "the experiment scripts write their results and figures to "
    "experiments/results/",
    ("reproduce", "--json"): "the experiment scripts write their results to experiments/results/",
}


def _add_group(p: argparse.ArgumentParser, name: str) -> None:
    """Add the options of group ``name`` to the command parser ``p``."""
    if name == "base":
        g = p.add_argument_group("common options")
        g.add_argument("--quiet", "-q", action="store_true", help="no progress bars or messages")
        g.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    elif name == "seed":
        p.add_argument("--random-state", type=_seed_arg, default=None, metavar="N",
                       help="seed for every random choice, 0 to 2**32-1 (default: not fixed)")  # fmt: skip
    elif name in ("outputs", "plots"):
        g = p.add_argument_group("outputs")
        g.add_argument("--plots", metavar="DIR", help="write figures (PNG) to DIR")
        if name == "outputs":
            g.add_argument("--json", metavar="FILE",
                           help="write the full result to FILE as JSON")  # fmt: skip
    elif name == "wide":
        p.add_argument("--wide", action="store_true",
                       help=f"show rankings whole (default: their first {_MAX_SHOWN_ITEMS} "
                            "items, then '... (n more)')")  # fmt: skip
    elif name == "input":
        g = p.add_argument_group("input")
        g.add_argument("file", metavar="FILE",
                       help="PrefLib .soc/.soi/.toc/.toi, label-ranking CSV, or CSV of orderings")  # fmt: skip
        g.add_argument("--format", default="auto", choices=["auto", *_READ_FORMATS],
                       help="input layout (default: detected from the suffix and the content, "
                            "refused when uncertain); 'orderings': one ranking per row, best "
                            "first, items as 1-based numbers or names; 'ranks': column j = "
                            "rank of item j; 'kamishima': the SUSHI .order layout")  # fmt: skip
        g.add_argument("--encoding", default=None, metavar="NAME",
                       help="text encoding of FILE and --items (default: from a byte-order "
                            "mark, else UTF-8; other bytes are refused, never guessed)")  # fmt: skip
        g.add_argument("--skip-malformed", action="store_true",
                       help="skip malformed lines instead of stopping at the first one; the "
                            "read summary lists them")  # fmt: skip
        g.add_argument("--kind", choices=["top", "subset"], default=None,
                       help="meaning of absent items: below the listed ones ('top', ballots) "
                            "or unknown ('subset', chains)")  # fmt: skip
        g.add_argument("--items", metavar="FILE", help="item names, one per line, in item order")
    elif name == "label-input":
        p.add_argument("file", metavar="FILE.csv", help="label-ranking CSV")
        p.add_argument("--items", metavar="FILE", help="label names, one per line")
        p.add_argument("--encoding", default=None, metavar="NAME",
                       help="text encoding of FILE.csv and --items (default: from a "
                            "byte-order mark, else UTF-8)")  # fmt: skip
    elif name == "fit":
        g = p.add_argument_group("estimator")
        g.add_argument("--n-init", type=_pos_int, default=None, metavar="N",
                       help="restarts (estimators that have n_init)")  # fmt: skip
        g.add_argument("--set", action="append", metavar="KEY=VALUE",
                       help="any other estimator parameter (JSON value), repeatable")  # fmt: skip
    elif name == "save":
        p.add_argument("--save", metavar="FILE",
                       help="save the fitted model (rankclust.persistence)")  # fmt: skip
    elif name == "eval":
        g = p.add_argument_group("evaluation")
        g.add_argument("--test-size", type=float, default=None,
                       help="hold-out fraction for the reported Kendall tau (default 0.3)")  # fmt: skip
        g.add_argument("--cv", type=_pos_int, default=None, metavar="N",
                       help="N-fold cross-validation instead of a hold-out")  # fmt: skip
    else:  # pragma: no cover - a typo in _OPTION_GROUPS
        raise KeyError(name)


def _option_strings(p: argparse.ArgumentParser) -> set[str]:
    """The long options of a command parser (``--x``), hidden refusals excluded."""
    return {
        s for a in p._actions if not isinstance(a, _Refuse) for s in a.option_strings
        if s.startswith("--")
    }  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``rankclust`` (imports no method module)."""
    from rankclust import __version__

    parser = _Parser(
        prog="rankclust",
        description="Learn from and cluster preference data: rankings, partial rankings, "
                    "label rankings.",
        epilog="Run 'rankclust demo' to see everything on data shipped with the package. "
               "Exit codes: 0 ok, 1 internal error, 2 bad usage or input.",
    )  # fmt: skip
    parser.add_argument("--version", action="version", version=f"rankclust {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands: dict[str, argparse.ArgumentParser] = {}

    def command(name: str, **kw: Any) -> argparse.ArgumentParser:
        p = sub.add_parser(name, **kw)
        for group in _OPTION_GROUPS[name]:
            _add_group(p, group)
        commands[name] = p
        return p

    cluster_names = ", ".join(CLUSTER_METHODS)
    p = command("cluster", help="cluster rankings into K groups",
                description="Cluster rankings into K groups and print the clusters, their "
                            "sizes and central rankings. Methods: "
                            + _method_help(CLUSTER_METHODS))  # fmt: skip
    p.add_argument("-k", "--k", type=_pos_int, required=True, help="number of clusters K")
    p.add_argument("--method", default="mixture", metavar="METHOD",
                   help=f"one of {cluster_names} (default mixture)")  # fmt: skip
    p.set_defaults(handler=cmd_cluster)

    p = command("select-k", help="choose K by BIC/ICL/AIC (or an elbow of the objective)",
                description="Fit one model per K and compare information criteria.")  # fmt: skip
    p.add_argument("--ks", default="1..8", help="values of K: 1..8, 2-6 or 2,3,5 (default 1..8)")
    p.add_argument("--criterion", choices=["bic", "icl", "aic"], default=None,
                   help="criterion that chooses K (default bic; lower is better; methods "
                        "with a criterion only)")  # fmt: skip
    p.add_argument("--method", default="mixture", metavar="METHOD",
                   help=f"one of {cluster_names} (default mixture)")  # fmt: skip
    p.set_defaults(handler=cmd_select_k)

    p = command("labelrank", help="predict label rankings from features",
                description="Fit a label ranker on a label-ranking CSV (n,p,k header; "
                            "features then the rank of each label) and report Kendall "
                            "tau. Methods: " + _method_help(LABEL_RANKING_METHODS))  # fmt: skip
    p.add_argument("--method", default="iblr", metavar="METHOD",
                   help=f"one of {', '.join(LABEL_RANKING_METHODS)} (default iblr)")  # fmt: skip
    p.set_defaults(handler=cmd_labelrank)

    p = command("supervise", help="supervised clustering of label-ranking data",
                description="Cluster feature vectors so that each cluster has one central "
                            "label ranking (Grbovic et al. 2013). Methods: "
                            + _method_help(SUPERVISED_METHODS))  # fmt: skip
    p.add_argument("-k", "--k", type=_pos_int, required=True, help="number of clusters K")
    p.add_argument("--method", default="rt-iter", metavar="METHOD",
                   help=f"one of {', '.join(SUPERVISED_METHODS)} (default rt-iter)")  # fmt: skip
    p.set_defaults(handler=cmd_supervise)

    p = command("ordinal", help="ordinal clustering of feature vectors guided by ranking pairs",
                description="Cluster the rows of a numeric CSV into K ordered clusters; "
                            "--pairs gives rows known to be ordered (M2SORC, Xiao et al. "
                            "2016).")  # fmt: skip
    p.add_argument("file", metavar="FILE.csv", help="numeric CSV of features (header optional)")
    p.add_argument("--pairs", metavar="PAIRS.csv",
                   help="CSV of 0-based row pairs 'i,j': row i belongs to a higher cluster than j")  # fmt: skip
    p.add_argument("-k", "--k", type=_pos_int, default=3, help="number of clusters (default 3)")
    p.add_argument("--method", default="m2sorc", metavar="METHOD", help="m2sorc (default)")
    p.set_defaults(handler=cmd_ordinal)

    p = command("significance", help="randomisation test: is the clustering better than chance?",
                description="Fit on the data and on random data sets with the same "
                            "pair counts (swap MCMC, Ukkonen 2011) and report the p-value. "
                            "Top-t ballots keep their listed candidates and their top-t "
                            "pair counts, and are fitted as ballots.")  # fmt: skip
    p.add_argument("-k", "--k", type=_pos_int, required=True, help="number of clusters K")
    p.add_argument("--method", default=None, metavar="METHOD",
                   help=f"one of {cluster_names} (default: chains for chains, mixture for "
                        "top-t ballots)")  # fmt: skip
    p.add_argument(
        "--n-samples", type=_pos_int, default=99, help="random data sets h (default 99)"
    )
    p.add_argument("--n-steps", type=_pos_int, default=None, help="swap steps per data set")
    p.add_argument("--statistic", default=None,
                   help="fitted attribute used as the statistic (default objective_)")  # fmt: skip
    p.add_argument("--greater-is-better", action="store_true",
                   help="larger statistic = better clustering (e.g. a log-likelihood); needs "
                        "--statistic")  # fmt: skip
    p.set_defaults(handler=cmd_significance)

    p = command("demo", help="run everything on shipped data",
                description="Fit ranking models, cluster ballots with model selection, "
                            "rank labels and cluster label-ranking data, on data shipped "
                            "with the package; figures go to --plots (default "
                            "demo_output/).")  # fmt: skip
    p.set_defaults(handler=cmd_demo)

    p = command("reproduce", help="re-run a paper's experiments (quick)",
                description="Run experiments/*PAPER*.py --quick from a source checkout; "
                            "arguments after -- go to the script. "
                            "Papers: " + "; ".join(f"{k}: {v}" for k, v in PAPERS.items()))  # fmt: skip
    p.add_argument("paper", metavar="PAPER", help=", ".join(PAPERS))
    p.add_argument("--full", action="store_true", help="run without --quick (slow)")
    p.add_argument("--experiments-dir", metavar="DIR", help="where the experiment scripts are")
    p.set_defaults(handler=cmd_reproduce)
    from rankclust.cli_predict import add_predict_parser  # its own module: data in, no fit

    add_predict_parser(command)

    # every option of one command is refused by the others, with a reason
    everything = set().union(*(_option_strings(c) for c in commands.values()))
    for name, p in commands.items():
        for option in sorted(everything - _option_strings(p)):
            reason = _REFUSALS.get((name, option), f"not an option of 'rankclust {name}'")
            p.add_argument(option, action=_Refuse, reason=reason, dest=f"_refused{option}")
    return parser


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankclust`` command; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 on an internal error, 2 on bad usage or input.
    """
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    passthrough: list[str] = []
    if "--" in argv:  # everything after "--" goes to the experiment script (reproduce)
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1 :]
    try:
        args = parser.parse_args(argv)
        if passthrough and args.command != "reproduce":
            parser.error(f"unexpected arguments after --: {' '.join(passthrough)}")
    except SystemExit as exc:  # --help, --version, or a usage error (already printed)
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE
    except BrokenPipeError:  # `rankclust --help | head -1`
        _silence(sys.stdout)
        return EXIT_SIGPIPE
    args.script_args = passthrough
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    console = _Console(quiet=args.quiet, wide=getattr(args, "wide", False))
    prog = f"rankclust {args.command}"
    try:
        with _warnings_as_lines(console):
            return int(args.handler(args, console))
    except BrokenPipeError:
        # the reader of our output went away outside console.print: end as a pipe writer does
        _silence(sys.stdout)
        return EXIT_SIGPIPE
    except CLIError as exc:
        if args.debug:
            raise
        print(f"{prog}: error: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, OSError) as exc:
        # bad input reported by the library (DataFormatError and UnicodeDecodeError are
        # ValueErrors); anything else is a bug and keeps its traceback (exit code 1)
        if args.debug:
            raise
        message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        where = f"{exc.filename}: " if isinstance(exc, OSError) and exc.filename else ""
        print(f"{prog}: error: {where}{_one_line(message)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
