"""The method-comparison statistics shared by the experiment scripts (experiments/_compare.py)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

_PATH = Path(__file__).resolve().parents[1] / "experiments" / "_compare.py"
_spec = importlib.util.spec_from_file_location("experiments_compare", _PATH)
compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare)

# Demsar (2006), Table 5: q_alpha of the Nemenyi test for k = 2..10 methods
DEMSAR_Q = {
    0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
}


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_nemenyi_q_matches_demsar_table(alpha):
    got = [compare.nemenyi_q(k, alpha) for k in range(2, 11)]
    np.testing.assert_allclose(got, DEMSAR_Q[alpha], atol=1.5e-3)


def test_friedman_matches_scipy_without_ties():
    rng = np.random.default_rng(0)
    table = rng.random((12, 5))  # continuous scores: no ties within a row
    res = compare.friedman_nemenyi(table, higher_is_better=False)
    chi2, _ = stats.friedmanchisquare(*table.T)
    assert res["chi2"] == pytest.approx(chi2)
    n, k = table.shape
    ff = (n - 1) * chi2 / (n * (k - 1) - chi2)  # Iman-Davenport
    assert res["F"] == pytest.approx(ff)
    assert res["p"] == pytest.approx(stats.f.sf(ff, k - 1, (k - 1) * (n - 1)))
    assert res["cd"] == pytest.approx(compare.nemenyi_q(k, 0.10) * np.sqrt(k * (k + 1) / (6 * n)))


def test_friedman_ranks_direction_and_ties():
    table = np.array([[0.1, 0.2, 0.2], [0.3, 0.1, 0.2]])
    low = compare.friedman_nemenyi(table, higher_is_better=False)["ranks"]
    np.testing.assert_allclose(low, [(1 + 3) / 2, (2.5 + 1) / 2, (2.5 + 2) / 2])
    high = compare.friedman_nemenyi(table, higher_is_better=True)["ranks"]
    np.testing.assert_allclose(high, 4 - low)  # reversed order, same ties


def test_corrected_ttest_reduces_to_paired_t_without_correction():
    rng = np.random.default_rng(1)
    d = rng.normal(0.01, 0.02, 50)
    t, p = compare.corrected_resampled_ttest(d, 0.0)
    ref = stats.ttest_1samp(d, 0.0)
    assert t == pytest.approx(ref.statistic)
    assert p == pytest.approx(ref.pvalue)


def test_corrected_ttest_shrinks_t_by_the_overlap_factor():
    d = np.random.default_rng(2).normal(0.01, 0.02, 50)
    t0, _ = compare.corrected_resampled_ttest(d, 0.0)
    t1, p1 = compare.corrected_resampled_ttest(d, 1 / 9)
    assert t1 == pytest.approx(t0 / np.sqrt(1 + 50 / 9))
    assert p1 == pytest.approx(2 * stats.t.sf(abs(t1), 49))


def test_corrected_ttest_constant_differences():
    assert compare.corrected_resampled_ttest(np.zeros(10), 1 / 9) == (0.0, 1.0)
    t, p = compare.corrected_resampled_ttest(np.full(10, -0.1), 1 / 9)
    assert t == -np.inf and p == 0.0
