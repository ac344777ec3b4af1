"""Shared fixtures: the real data beside the repository, random rankings, edge cases."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

from rankclust import Rankings

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"

# No hypothesis deadline anywhere: a deadline would time numba's first compile of a kernel (or
# its cache write), which depends on the machine, not on the code. Settings given in a test
# inherit this profile.
settings.register_profile("rankclust", deadline=None)
settings.load_profile("rankclust")

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


def assert_same_partition(a, b) -> None:
    """Assert that two label arrays describe the same partition, whatever the numbering.

    For estimators whose cluster numbering is not part of their contract: which label a
    cluster gets can follow rounding (and so the processor), the partition may not.
    """
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"shapes differ: {a.shape} vs {b.shape}"
    pairs = np.unique(np.stack([a, b]), axis=1)  # distinct (label in a, label in b) pairs
    assert len(np.unique(pairs[0])) == len(np.unique(pairs[1])) == pairs.shape[1], (
        f"not the same partition: label pairs {pairs.T.tolist()[:10]}"
    )


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)
