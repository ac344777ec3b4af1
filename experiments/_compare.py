"""Statistical comparison of methods over data sets and resampled folds (shared by experiments).

* :func:`friedman_nemenyi` -- Friedman's test on the per-data-set ranks with the
  Iman-Davenport F statistic, and the Nemenyi critical difference of the average ranks
  (Demsar 2006, sec. 3.2.2);
* :func:`corrected_resampled_ttest` -- the paired t-test over the folds of repeated k-fold CV
  with Nadeau & Bengio's (2003) variance correction for overlapping training sets.

References
----------
Demsar, J. (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7, 1-30.
Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error. Machine Learning 52,
239-281.
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def nemenyi_q(k: int, alpha: float = 0.10) -> float:
    """Critical value ``q_alpha`` of the Nemenyi test for ``k`` methods.

    The studentized range quantile with infinite degrees of freedom divided by sqrt(2)
    (Demsar's Table 5a/b: 2.052 for k = 3 at alpha = 0.10, 3.164 for k = 10 at 0.05).
    """
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def friedman_nemenyi(
    table: np.ndarray, alpha: float = 0.10, higher_is_better: bool = True
) -> dict:
    """Friedman test and Nemenyi critical difference for a (data sets, methods) table.

    Ranks within a row are 1 = best with ties averaged. Returns the average ranks, Friedman's
    chi2, the Iman-Davenport F with its p-value, and the critical difference ``cd``: two
    methods whose average ranks differ by less than ``cd`` are not significantly different
    at level ``alpha``.
    """
    table = np.asarray(table, dtype=float)
    n, k = table.shape
    signed = -table if higher_is_better else table
    r = np.vstack([stats.rankdata(row) for row in signed]).mean(axis=0)
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(r**2) - k * (k + 1) ** 2 / 4)
    ff = (n - 1) * chi2 / (n * (k - 1) - chi2) if n * (k - 1) != chi2 else np.inf
    p_f = float(stats.f.sf(ff, k - 1, (k - 1) * (n - 1)))
    cd = nemenyi_q(k, alpha) * np.sqrt(k * (k + 1) / (6 * n))
    return {"ranks": r, "chi2": float(chi2), "F": float(ff), "p": p_f, "cd": float(cd)}


def corrected_resampled_ttest(diffs: np.ndarray, test_train_ratio: float) -> tuple[float, float]:
    """Nadeau-Bengio corrected paired t-test over the folds of repeated k-fold CV.

    ``diffs``: per-fold differences of the two methods' scores (all repetitions, J values);
    ``test_train_ratio``: n_test / n_train of one fold (1 / (k - 1) for k-fold CV). The
    variance of the mean is ``(1/J + n_test/n_train) s^2`` instead of ``s^2 / J``, because
    the training sets of the folds overlap. Returns ``(t, two-sided p)`` with J - 1 degrees
    of freedom; ``(0, 1)`` when all differences are zero.
    """
    d = np.asarray(diffs, dtype=float)
    J = d.size
    var = d.var(ddof=1)
    if var == 0.0:
        return (0.0, 1.0) if d.mean() == 0.0 else (float(np.sign(d.mean()) * np.inf), 0.0)
    t = d.mean() / np.sqrt((1.0 / J + test_train_ratio) * var)
    return float(t), float(2.0 * stats.t.sf(abs(t), J - 1))
