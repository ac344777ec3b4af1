"""Checks of the input against what a command or method needs, made before any fit."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankclust.cli._errors import CLIError
from rankclust.cli._input import where
from rankclust.cli._methods import Method, method_registry

__all__ = [
    "check_distance_input",
    "check_k",
    "check_kind",
    "check_rank_input",
    "distance_option",
    "refuse_ties",
]


def check_k(k: int, n: int, what: str = "rankings", option: str = "-k") -> None:
    """K between 1 and the number of rows ``n``."""
    if k < 1:
        raise CLIError(f"{option}: K must be at least 1, got {k}")
    if k > n:
        raise CLIError(f"{option}: K={k} is larger than the number of {what} ({n})")


def refuse_ties(path: str, R: Any, need: str, unit: str = "ranking", others: str = "") -> None:
    """Refuse tied rankings naming the file line of the first one and who needs no ties
    (``others``: a closing clause naming what accepts ties)."""
    tied = np.flatnonzero(R.has_ties)
    if tied.size:
        n_more = tied.size - 1
        more = f" (and {n_more} more {unit}{'s' if n_more > 1 else ''})" if n_more else ""
        raise CLIError(
            f"{where(path, int(tied[0]), R.n_rankings)}: this {unit} ranks items as tied"
            f"{more}; {need} needs rankings without ties: break the ties in the file or leave "
            f"those {unit}s out{others}"
        )


def check_kind(method: Method, R: Any) -> None:
    """The rankings are of a kind the method accepts."""
    if method.kinds is not None and R.kind not in method.kinds:
        raise CLIError(
            f"method {method.name!r} needs rankings of kind {'/'.join(method.kinds)!r} but the "
            f"file was read as kind {R.kind!r}; pass --kind {method.kinds[0]} to read it so"
        )


def check_rank_input(method: Method, R: Any, path: str) -> None:
    """Kind and ties of ``cluster``/``select-k`` input, checked before any fit.

    A method whose estimator does not fit tied rankings refuses a file with ties here, with
    the file, the first tied ranking and the methods that accept ties, not after the file
    was read by the estimator.
    """
    check_kind(method, R)
    if method.ties:
        return
    tied = [m.name for m in method_registry("cluster").values() if m.ties]
    others = f", or use --method {' or '.join(tied)} (they accept ties)" if tied else ""
    refuse_ties(path, R, f"--method {method.name}", others=others)


def distance_option(args: Any, cls: type, *, several: bool = False) -> list[str]:
    """The distances of ``--distance`` (``[]`` when not given), checked before the file is
    read: only a Mallows mixture has one, names come from the registry
    (:data:`rankclust.models.mallows.MALLOWS_DISTANCES`); with ``several``
    (``select-k``) a comma-separated list or ``all``. ``--ci``, ``--lrt`` and ``--features``
    take one distance."""
    text = getattr(args, "distance", None)
    if text is None:
        return []
    from rankclust.cluster.mixture import MallowsMixture

    if not issubclass(cls, MallowsMixture):
        raise CLIError(
            f"--distance: only --method mixture (Mallows components) has a distance, not "
            f"{cls.__name__}"
        )
    from rankclust.models.mallows import MALLOWS_DISTANCES

    names = [t.strip() for t in text.split(",")] if several else [text.strip()]
    if several and names == ["all"]:
        names = list(MALLOWS_DISTANCES)
    for name in names:
        if name not in MALLOWS_DISTANCES:
            listed = ", ".join(MALLOWS_DISTANCES) + (", or all" if several else "")
            raise CLIError(f"--distance: unknown distance {name!r}; choose from {listed}")
    if len(set(names)) != len(names):
        raise CLIError(f"--distance: {text!r} names a distance twice")
    if len(names) > 1 and getattr(args, "ci", None) is not None:
        raise CLIError("--ci: the intervals are those of one fitted mixture; give one --distance")
    if len(names) > 1 and getattr(args, "lrt", None) is not None:
        raise CLIError(
            "--lrt: the likelihood-ratio tests compare K with K-1 for one distance; give "
            "one --distance"
        )
    if len(names) > 1 and getattr(args, "features", None) is not None:
        raise CLIError(
            "--features: a mixture of experts is compared over K for one distance; give "
            "one --distance"
        )
    return names


def check_distance_input(path: str, R: Any, distances: list[str]) -> None:
    """A distance other than Kendall fits rankings without ties whose partial rows have at
    most ``COMPLETION_CAP`` completions each: refuse the first other row, naming its line of
    the file."""
    others = [d for d in distances if d != "kendall"]
    if not others:
        return
    from rankclust.models.mallows import COMPLETION_CAP, first_row_over_cap

    need = f"--distance {others[0]}"
    refuse_ties(path, R, need, others=" (--distance kendall accepts ties)")
    over = first_row_over_cap(R)
    if over is not None:
        i, t, n = over
        raise CLIError(
            f"{where(path, i, R.n_rankings)}: this ranking lists {t} of {R.n_items} items, "
            f"{n} completions; {need} sums over at most {COMPLETION_CAP} per partial "
            "ranking (--distance kendall fits any partial ranking)"
        )
