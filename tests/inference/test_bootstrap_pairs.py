"""Bootstrap of the Bradley-Terry models over assessors (rankclust.inference._bootstrap_pairs)."""

from __future__ import annotations

import numpy as np
import pytest

from rankclust.inference import bootstrap
from rankclust.inference._bootstrap_pairs import _Units
from rankclust.pairwise import BradleyTerry, BradleyTerryMixture, Comparisons

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _bt_data(n_assessors: int, per: int, groups: int = 1, seed: int = 0) -> Comparisons:
    """Assessors drawn from one Bradley-Terry model (groups=1) or two opposite ones."""
    rng = np.random.default_rng(seed)
    z = np.linspace(1.0, -1.0, 5)
    w, lo, a = [], [], []
    for who in range(n_assessors):
        zz = z if groups == 1 or who % 3 else -z  # group 2: every third assessor
        for _ in range(per):
            i, j = rng.choice(5, size=2, replace=False)
            won = rng.random() < 1 / (1 + np.exp(zz[j] - zz[i]))
            w.append(i if won else j)
            lo.append(j if won else i)
            a.append(who)
    return Comparisons.from_arrays(w, lo, assessor=a, items=list("abcde"))


def test_a_replicate_draws_whole_assessors():
    C = Comparisons.from_arrays([0, 1, 2, 0, 2], [1, 2, 0, 2, 1], assessor=[0, 0, 1, 2, 2],
                                count=[1, 2, 1, 3, 1])  # fmt: skip
    units = _Units(C)
    D = units.duplicated(C, np.array([2.0, 0.0, 1.0]))  # assessor 0 twice, assessor 2 once
    assert D.n_assessors == 3
    rows = sorted(zip(D.assessor.tolist(), D.winner.tolist(), D.loser.tolist(),
                      D.count.tolist(), strict=True))  # fmt: skip
    assert rows == [(0, 0, 1, 1.0), (0, 1, 2, 2.0), (1, 0, 1, 1.0), (1, 1, 2, 2.0),
                    (2, 0, 2, 3.0), (2, 2, 1, 1.0)]  # fmt: skip
    mult = units.multiplicity(np.random.default_rng(0), 3)
    assert mult.sum() == 3  # as many assessors as there are


def test_single_model_intervals_match_the_standard_errors_on_homogeneous_assessors():
    C = _bt_data(150, 20)
    bt = BradleyTerry(alpha=0.1).fit(C)
    res = bootstrap(bt, C, 300, random_state=0)
    assert res.replicates["scores"].shape == (300, 5) and not res.is_mixture
    np.testing.assert_allclose(res.estimates["scores"], bt.scores_)
    ratio = res.replicates["scores"].std(axis=0) / bt.standard_errors(C)[:5]
    assert np.all((ratio > 0.8) & (ratio < 1.25)), ratio
    low, high = res.interval("scores")
    assert np.all((low < bt.scores_) & (bt.scores_ < high))
    assert res.center_probability > 0.5 and res.membership_stability is None


def test_heterogeneous_assessors_widen_the_intervals_beyond_the_standard_errors():
    """Assessors of two opposite groups, fitted by one model: resampling the assessors sees
    the between-assessor variation that the standard errors (independent comparisons) miss."""
    C = _bt_data(150, 20, groups=2)
    bt = BradleyTerry(alpha=0.1).fit(C)
    res = bootstrap(bt, C, 300, random_state=0)
    ratio = res.replicates["scores"].std(axis=0) / bt.standard_errors(C)[:5]
    # the extreme items, whose worths the two groups reverse (the middle one is 0 in both)
    assert np.all(ratio[[0, 4]] > 1.5), ratio


def test_rows_are_resampled_without_an_assessor_column():
    C0 = _bt_data(60, 10)
    C = Comparisons.from_arrays(C0.winner, C0.loser)
    bt = BradleyTerry(alpha=0.1).fit(C)
    res = bootstrap(bt, C, 50, random_state=0)
    assert res.replicates["worths"].shape == (50, 5)
    np.testing.assert_allclose(res.replicates["worths"].sum(axis=1), 1.0)


def test_mixture_intervals_matching_and_stability():
    C = _bt_data(90, 20, groups=2)
    mix = BradleyTerryMixture(2, random_state=0).fit(C)
    res = bootstrap(mix, C, 30, random_state=0)
    assert res.is_mixture and res.replicates["scores"].shape == (30, 2, 5)
    big = int(np.argmax(mix.weights_))  # two thirds of the assessors
    low, high = res.interval("weights")
    assert low[big] < 2 / 3 < high[big]
    # matched: each replicate's component k has the sign pattern of the fitted component k
    signs = np.sign(res.replicates["scores"][:, :, 0]) == np.sign(mix.scores_[:, 0])
    assert signs.all()
    assert res.membership_stability.shape == (90,) and res.membership_stability.mean() > 0.95
    assert np.all(res.center_probability > 0.9)  # a clear consensus each
    a = bootstrap(mix, C, 4, random_state=3, n_jobs=1)
    b = bootstrap(mix, C, 4, random_state=3, n_jobs=2)
    np.testing.assert_array_equal(a.replicates["scores"], b.replicates["scores"])
    cold = bootstrap(mix, C, 3, random_state=0, warm_start=False, match="parameters")
    assert cold.matchings.shape == (3, 2) and not cold.warm_start


def test_bad_input():
    C = _bt_data(10, 5)
    bt = BradleyTerry(alpha=0.1).fit(C)
    with pytest.raises(ValueError, match="non-parametrically"):
        bootstrap(bt, C, 5, method="parametric")
    with pytest.raises(TypeError, match="on Comparisons"):
        bootstrap(bt, np.zeros((3, 2)), 5)
    with pytest.raises(TypeError, match="BradleyTerry or BradleyTerryMixture"):
        from rankclust.models import PlackettLuce

        bootstrap(PlackettLuce(), C, 5)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap(bt, C, 0)
    mix = BradleyTerryMixture(2, random_state=0).fit(C)
    with pytest.raises(ValueError, match="number of assessors"):
        bootstrap(mix, _bt_data(12, 5), 5)
