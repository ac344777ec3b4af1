"""Checks of the input against what a command or method needs, made before any fit."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankclust.cli._errors import CLIError
from rankclust.cli._input import where
from rankclust.cli._methods import Method, method_registry

__all__ = ["check_k", "check_kind", "check_rank_input", "refuse_ties"]


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
