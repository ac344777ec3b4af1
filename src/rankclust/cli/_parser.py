"""The argument parser of ``rankclust``: every command, its options, and why a command
refuses an option that another command takes.

Building the parser imports no method package and no reader, so ``rankclust --help`` is fast.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from typing import Any

from rankclust.cli._console import MAX_SHOWN_ITEMS
from rankclust.cli._errors import EXIT_USAGE
from rankclust.cli._input import PAIR_FORMATS, READ_FORMATS
from rankclust.cli._methods import (
    CLUSTER_METHODS,
    LABEL_RANKING_METHODS,
    PAIR_METHODS,
    SUPERVISED_METHODS,
    method_help,
)
from rankclust.cli.commands.cluster import cmd_cluster
from rankclust.cli.commands.demo import cmd_demo
from rankclust.cli.commands.labelrank import cmd_labelrank
from rankclust.cli.commands.ordinal import cmd_ordinal
from rankclust.cli.commands.predict import FEATURE_FORMATS, RANKING_FORMATS, cmd_predict
from rankclust.cli.commands.reproduce import PAPERS, cmd_reproduce
from rankclust.cli.commands.select_k import cmd_select_k
from rankclust.cli.commands.significance import cmd_significance
from rankclust.cli.commands.supervise import cmd_supervise

__all__ = ["build_parser", "option_strings"]


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


def _level_arg(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(
            f"--ci-level must be a coverage between 0 and 1 (e.g. 0.95), got {text!r}"
        )
    return v


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
    "cluster": ("input", "fit", "ci", "save", "outputs", "wide", "seed", "base"),
    "select-k": ("input", "fit", "ci", "save", "outputs", "wide", "seed", "base"),
    "labelrank": ("label-input", "fit", "save", "eval", "outputs", "wide", "seed", "base"),
    "supervise": ("label-input", "fit", "save", "eval", "outputs", "wide", "seed", "base"),
    "ordinal": ("fit", "save", "outputs", "seed", "base"),
    "significance": ("input", "fit", "outputs", "seed", "base"),
    "demo": ("plots", "wide", "seed", "base"),
    "reproduce": ("base",),
    "predict": ("base",),  # its input, --out and --json: _add_predict below
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
                       help=f"show rankings whole (default: their first {MAX_SHOWN_ITEMS} "
                            "items, then '... (n more)')")  # fmt: skip
    elif name == "input":
        g = p.add_argument_group("input")
        g.add_argument("file", metavar="FILE",
                       help="PrefLib .soc/.soi/.toc/.toi, label-ranking CSV, or CSV of orderings")  # fmt: skip
        g.add_argument("--format", default="auto",
                       choices=["auto", *READ_FORMATS, *PAIR_FORMATS],
                       help="input layout (default: detected from the suffix and the content, "
                            "refused when uncertain); 'orderings': one ranking per row, best "
                            "first, items as 1-based numbers or names; 'ranks': column j = "
                            "rank of item j; 'kamishima': the SUSHI .order layout; 'pairs' "
                            "(cluster, select-k): pairwise comparisons, a CSV with the header "
                            "winner,loser[,assessor][,count][,tie] or assessor,bottom_item,"
                            "top_item (BayesMallows)")  # fmt: skip
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
    elif name == "ci":
        g = p.add_argument_group("uncertainty (mixtures)")
        g.add_argument("--ci", type=_pos_int, default=None, metavar="B",
                       help="bootstrap the fitted mixture with B non-parametric replicates "
                            "(e.g. 200): percentile intervals of the proportions, dispersions "
                            "and worths, the probability of each central ranking, the "
                            "stability of the cluster memberships; Wald intervals for K=1")  # fmt: skip
        g.add_argument("--ci-level", type=_level_arg, default=None, metavar="LEVEL",
                       help="coverage of the --ci intervals, in (0, 1) (default 0.95)")  # fmt: skip
        g.add_argument("--n-jobs", type=int, default=None, metavar="N",
                       help="parallel processes for the bootstrap replicates of --ci (and "
                            "--lrt); -1: all cores; default 1")  # fmt: skip
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


def _add_k(p: argparse.ArgumentParser, default: int | None = None) -> None:
    """``-k/--k``: required, or with a default."""
    if default is None:
        p.add_argument("-k", "--k", type=_pos_int, required=True, help="number of clusters K")
    else:
        p.add_argument("-k", "--k", type=_pos_int, default=default,
                       help=f"number of clusters (default {default})")  # fmt: skip


def _add_method(
    p: argparse.ArgumentParser, methods: Any, default: str | None, help: str | None = None
) -> None:
    """``--method`` of a command: one of ``methods`` (names), ``default`` when not given."""
    text = help or f"one of {', '.join(methods)} (default {default})"
    p.add_argument("--method", default=default, metavar="METHOD", help=text)


def option_strings(p: argparse.ArgumentParser) -> set[str]:
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

    def command(name: str, handler: Callable[..., int] | None = None, **kw: Any
                ) -> argparse.ArgumentParser:  # fmt: skip
        p = sub.add_parser(name, **kw)
        for group in _OPTION_GROUPS[name]:
            _add_group(p, group)
        if handler is not None:
            p.set_defaults(handler=handler)
        commands[name] = p
        return p

    _add_cluster(command)
    _add_select_k(command)
    _add_labelrank(command)
    _add_supervise(command)
    _add_ordinal(command)
    _add_significance(command)
    _add_demo(command)
    _add_reproduce(command)
    _add_predict(command)

    # every option of one command is refused by the others, with a reason
    everything = set().union(*(option_strings(c) for c in commands.values()))
    for name, p in commands.items():
        for option in sorted(everything - option_strings(p)):
            reason = _REFUSALS.get((name, option), f"not an option of 'rankclust {name}'")
            p.add_argument(option, action=_Refuse, reason=reason, dest=f"_refused{option}")
    return parser


_CLUSTER_METHOD_HELP = (
    f"one of {', '.join(CLUSTER_METHODS)} (default mixture) for rankings; "
    f"{', '.join(PAIR_METHODS)} (the default) for --format pairs"
)


def _add_cluster(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``cluster`` command."""
    p = command("cluster", cmd_cluster, help="cluster rankings into K groups",
                description="Cluster rankings into K groups and print the clusters, their "
                            "sizes and central rankings; with --format pairs, cluster the "
                            "assessors of pairwise comparisons. Methods: "
                            + method_help(CLUSTER_METHODS | PAIR_METHODS))  # fmt: skip
    _add_k(p)
    _add_method(p, CLUSTER_METHODS, None, help=_CLUSTER_METHOD_HELP)
    p.add_argument("--distance", default=None, metavar="NAME",
                   help="--method mixture: the distance of the Mallows components, one of "
                        "the registered Mallows distances (kendall, the default, fits "
                        "partial and tied rankings; spearman, footrule and the others fit "
                        "rankings without ties, partial ones with at most 8! completions)")  # fmt: skip
    _add_features(p)


def _add_features(p: argparse.ArgumentParser) -> None:
    """``--features FILE`` of ``cluster`` and ``select-k`` (mixtures of experts)."""
    p.add_argument("--features", metavar="FILE.csv",
                   help="respondent covariates: a numeric CSV (header optional), one row per "
                        "ranking in file order; --method mixture / pl-mixture then fit a "
                        "mixture of experts (mixing weights a multinomial logit of the "
                        "covariates) and print the gate's coefficients with standard errors")  # fmt: skip


def _add_select_k(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``select-k`` command."""
    p = command("select-k", cmd_select_k,
                help="choose K by BIC/ICL/AIC (or an elbow of the objective)",
                description="Fit one model per K and compare information criteria.")  # fmt: skip
    _add_features(p)
    p.add_argument("--ks", default="1..8", help="values of K: 1..8, 2-6 or 2,3,5 (default 1..8)")
    p.add_argument("--criterion", choices=["bic", "icl", "aic"], default=None,
                   help="criterion that chooses K (default bic; lower is better; methods "
                        "with a criterion only)")  # fmt: skip
    _add_method(p, CLUSTER_METHODS, None, help=_CLUSTER_METHOD_HELP)
    p.add_argument("--distance", default=None, metavar="NAMES",
                   help="--method mixture: the distance(s) of the Mallows components, "
                        "comma-separated or 'all' (every registered Mallows distance); "
                        "several are compared in one table of the criterion per distance "
                        "and K, and the distance and K are chosen together")  # fmt: skip
    p.add_argument("--lrt", type=_pos_int, default=None, metavar="B",
                   help="also test each K against K-1 by the parametric-bootstrap "
                        "likelihood-ratio test with B replicates (mixtures; e.g. 99)")  # fmt: skip


def _add_labelrank(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``labelrank`` command."""
    p = command("labelrank", cmd_labelrank, help="predict label rankings from features",
                description="Fit a label ranker on a label-ranking CSV (n,p,k header; "
                            "features then the rank of each label) and report Kendall "
                            "tau. Methods: " + method_help(LABEL_RANKING_METHODS))  # fmt: skip
    _add_method(p, LABEL_RANKING_METHODS, "iblr")


def _add_supervise(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``supervise`` command."""
    p = command("supervise", cmd_supervise, help="supervised clustering of label-ranking data",
                description="Cluster feature vectors so that each cluster has one central "
                            "label ranking (Grbovic et al. 2013). Methods: "
                            + method_help(SUPERVISED_METHODS))  # fmt: skip
    _add_k(p)
    _add_method(p, SUPERVISED_METHODS, "rt-iter")


def _add_ordinal(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``ordinal`` command."""
    p = command("ordinal", cmd_ordinal,
                help="ordinal clustering of feature vectors guided by ranking pairs",
                description="Cluster the rows of a numeric CSV into K ordered clusters; "
                            "--pairs gives rows known to be ordered (M2SORC, Xiao et al. "
                            "2016).")  # fmt: skip
    p.add_argument("file", metavar="FILE.csv", help="numeric CSV of features (header optional)")
    p.add_argument("--pairs", metavar="PAIRS.csv",
                   help="CSV of 0-based row pairs 'i,j': row i belongs to a higher cluster than j")  # fmt: skip
    _add_k(p, default=3)
    _add_method(p, {"m2sorc": None}, "m2sorc", help="m2sorc (default)")


def _add_significance(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``significance`` command."""
    p = command("significance", cmd_significance,
                help="randomisation test: is the clustering better than chance?",
                description="Fit on the data and on random data sets with the same "
                            "pair counts (swap MCMC, Ukkonen 2011) and report the p-value. "
                            "Top-t ballots keep their listed candidates and their top-t "
                            "pair counts, and are fitted as ballots.")  # fmt: skip
    _add_k(p)
    _add_method(p, CLUSTER_METHODS, None,
                help=f"one of {', '.join(CLUSTER_METHODS)} (default: chains for chains, "
                     "mixture for top-t ballots)")  # fmt: skip
    p.add_argument(
        "--n-samples", type=_pos_int, default=99, help="random data sets h (default 99)"
    )
    p.add_argument("--n-steps", type=_pos_int, default=None, help="swap steps per data set")
    p.add_argument("--statistic", default=None,
                   help="fitted attribute used as the statistic (default objective_)")  # fmt: skip
    p.add_argument("--greater-is-better", action="store_true",
                   help="larger statistic = better clustering (e.g. a log-likelihood); needs "
                        "--statistic")  # fmt: skip


def _add_demo(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``demo`` command."""
    command("demo", cmd_demo, help="run everything on shipped data",
                description="Fit ranking models, cluster ballots with model selection, "
                            "rank labels and cluster label-ranking data, on data shipped "
                            "with the package; figures go to --plots (default "
                            "demo_output/).")  # fmt: skip


def _add_reproduce(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``reproduce`` command."""
    p = command("reproduce", cmd_reproduce, help="re-run a paper's experiments (quick)",
                description="Run experiments/*PAPER*.py (or experiments/*/*PAPER*.py) --quick "
                            "from a source checkout; "
                            "arguments after -- go to the script. "
                            "Papers: " + "; ".join(f"{k}: {v}" for k, v in PAPERS.items()))  # fmt: skip
    p.add_argument("paper", metavar="PAPER", help=", ".join(PAPERS))
    p.add_argument("--full", action="store_true", help="run without --quick (slow)")
    p.add_argument("--experiments-dir", metavar="DIR", help="where the experiment scripts are")


def _add_predict(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``predict`` command; ``command(name, **kw)`` creates a command parser with the
    common options."""
    p = command(
        "predict",
        help="apply a saved model to new rows",
        description="Apply a model saved with --save (cluster, labelrank, supervise, ordinal) "
        "to FILE: rankings for clusterers (columns matched to the model's items by name; a "
        "file without item names is taken by position), a numeric CSV of features for label "
        "rankers, supervised and ordinal clusterers. Writes one row per input row: cluster "
        "(and probabilities where the model gives them) and/or the predicted ranking as "
        "label names, best first.",
    )
    p.add_argument("model", metavar="MODEL", help="model file written by --save")
    p.add_argument("file", metavar="FILE", help="rankings or features to predict")
    p.add_argument("--format", default=None,
                   choices=sorted(set(RANKING_FORMATS) | set(FEATURE_FORMATS) | {"pairs"}),
                   help="input layout: for rankings as in 'cluster' (default auto); for "
                        "features 'features' (default) or 'label-ranking'; 'pairs' for a "
                        "model of pairwise comparisons (its default)")  # fmt: skip
    p.add_argument("--kind", choices=["top", "subset"], default=None,
                   help="meaning of absent items (default: the model's)")  # fmt: skip
    p.add_argument("--items", metavar="FILE", help="item names of FILE, one per line")
    p.add_argument("--encoding", default=None, metavar="NAME",
                   help="text encoding of FILE and --items (default: from a byte-order mark, "
                        "else UTF-8; other bytes are refused, never guessed)")  # fmt: skip
    p.add_argument("--out", metavar="FILE.csv", help="write the predictions as CSV")
    p.add_argument("--json", metavar="FILE.json", help="write the predictions as JSON")
    p.set_defaults(handler=cmd_predict)
