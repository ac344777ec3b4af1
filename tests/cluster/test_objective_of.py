"""objective_of: the objective protocol of randomization_test and select-k, public."""

from __future__ import annotations

import pytest

from rankclust.cluster import ChainKMeans, make_planted_chains, objective_of


@pytest.fixture(scope="module")
def fitted():
    R, _ = make_planted_chains(n_samples=60, n_items=8, n_clusters=2, random_state=0)
    return ChainKMeans(n_clusters=2, random_state=0).fit(R), R


def test_default_is_objective_then_inertia(fitted):
    km, _ = fitted
    assert objective_of(km) == km.objective_

    class OnlyInertia:
        inertia_ = 3.5

    assert objective_of(OnlyInertia()) == 3.5


def test_statistic_by_name_or_callable(fitted):
    km, R = fitted
    assert objective_of(km, R, "inertia_") == km.inertia_
    assert objective_of(km, R, lambda est, data: data.n_rankings + est.n_clusters) == 62.0


def test_refusals_name_the_problem(fitted):
    km, R = fitted
    with pytest.raises(ValueError, match="has no fitted attribute 'nope_'"):
        objective_of(km, R, "nope_")
    with pytest.raises(ValueError, match="neither objective_ nor inertia_"):
        objective_of(object())
    with pytest.raises(ValueError, match="statistic"):
        objective_of(km, R, 5)
