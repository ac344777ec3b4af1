"""The contract of the ranking mixtures (rankclust.cluster._mixture_contract)."""

import numpy as np
import pytest

from rankclust.cluster._mixture_contract import MixtureContract, MixtureRun, component_order
from rankclust.cluster.baselines import CompletionMallowsMixture
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture, _RankingMixture
from rankclust.datasets import make_mallows_mixture


def test_component_order_by_weight_then_index():
    np.testing.assert_array_equal(component_order(np.array([0.2, 0.5, 0.3])), [1, 2, 0])
    np.testing.assert_array_equal(component_order(np.array([0.25, 0.5, 0.25])), [1, 0, 2])


def test_mixture_run_log_likelihood_is_minus_objective():
    run = MixtureRun(objective=12.5, n_iter=3, converged=True, weights=np.array([1.0]))
    assert run.log_likelihood == -12.5


def test_every_mixture_follows_the_contract():
    for cls in (MallowsMixture, PlackettLuceMixture, CompletionMallowsMixture):
        assert issubclass(cls, MixtureContract)


def test_driver_hooks_are_abstract():
    hooks = _RankingMixture.__abstractmethods__
    assert {"_prepare", "_init_params", "_loglik_and_cache", "_m_step", "_set_fitted"} <= hooks

    class Incomplete(_RankingMixture):
        def _prepare(self, Ru):
            return Ru

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()


@pytest.mark.parametrize("completion", ["hard", "sample"])
def test_completion_mixture_common_attributes(completion):
    R, _ = make_mallows_mixture(120, 5, 2, lengths=(2, 5), kind="top", random_state=0)
    est = CompletionMallowsMixture(
        2, completion=completion, n_init=2, max_iter=10, random_state=0
    ).fit(R)
    # components numbered by decreasing weight, as in every mixture
    assert np.all(np.diff(est.weights_) <= 0) and est.weights_.sum() == pytest.approx(1.0)
    assert est.centers_.n_rankings == 2 and est.center_positions_.shape == (2, 5)
    assert np.isfinite(est.log_likelihood_) and est.n_iter_ >= 1
    assert est.labels_.shape == (120,)
