"""Shared fixtures: the real data beside the repository, random rankings, edge cases."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from rankclust import Rankings

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"

# Tests that read licensed data find it through the data home (DESIGN.md section 7).
if SHARED_DATA.is_dir() and "RANKCLUST_DATA" not in os.environ:
    os.environ["RANKCLUST_DATA"] = str(SHARED_DATA)


@pytest.fixture
def shared_data() -> Path:
    """Path of ``../shared/data``; skips the test cleanly when it is not there."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not next to the repository")
    return SHARED_DATA


def random_rankings(
    rng: np.random.Generator,
    n: int,
    m: int,
    *,
    kind: str = "subset",
    p_missing: float = 0.0,
    min_length: int = 0,
) -> Rankings:
    """Random permutations with entries deleted independently with ``p_missing``.

    For ``kind="top"`` the deletions cut each ranking to a random prefix instead.
    """
    perms = np.argsort(rng.random((n, m)), axis=1)  # orderings
    ranks = np.argsort(perms, axis=1)
    if kind == "top":
        lengths = (
            rng.integers(max(min_length, 1), m + 1, size=n) if p_missing > 0 else np.full(n, m)
        )
        ranks = np.where(ranks < lengths[:, None], ranks, -1)
    elif p_missing > 0:
        drop = rng.random((n, m)) < p_missing
        ranks = np.where(drop, -1, ranks)
        short = (ranks >= 0).sum(axis=1) < min_length
        ranks[short] = np.argsort(perms[short], axis=1)
    return Rankings(ranks, kind=kind)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)
