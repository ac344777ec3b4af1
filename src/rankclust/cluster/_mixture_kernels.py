"""Private vectorised pieces of the ranking mixtures (inputs are trusted, see ``mixture.py``).

The mathematics lives in :mod:`rankclust._mallows_math` (stage-wise moments of the
Kendall statistic, the dispersion solver) and :mod:`rankclust.rankings` (pairwise counts); this module only arranges it for
``K`` components at once, so that one EM iteration costs a handful of small BLAS calls
instead of ``K`` calls of the public one-component functions (whose argument checks dominate
on compressed data such as the 205 distinct APA ballots).

* :func:`pair_indicators` -- the per-row pairwise count matrices ``A[i, u*m + v] = [u above v
  in row i]`` (``kind="top"``: a present item is above every absent one), so that the
  statistic of every row against ``K`` centres is one product ``A @ D`` and the
  responsibility-weighted count matrices of all components are one product ``A.T @ W``.
* :func:`length_tables` and :func:`solve_thetas` -- ``log psi``, mean and variance of the
  statistic for every length and component, and the weighted dispersion equations of all
  components (a safeguarded Newton iteration); both live in
  :mod:`rankclust._mallows_math`, the one home of the stage-wise mathematics, and are
  re-exported here.

The Plackett-Luce mixture needs no kernel of its own: its E-step and MM M-step call the
K-component functions of :mod:`rankclust.models.plackett_luce` (:func:`stage_pass`,
:func:`mm_wins`, :func:`mm_denominators`, :func:`mm_worths`).
"""

from __future__ import annotations

import numpy as np

# the dispersion mathematics has one home; re-exported here for the mixture's E/M-steps
from rankclust._mallows_math import length_tables, solve_thetas

__all__ = [
    "discordance_matrix",
    "length_tables",
    "pair_indicators",
    "solve_thetas",
]


def pair_indicators(ranks: np.ndarray, kind: str) -> np.ndarray:
    """Per-row pairwise indicators, shape (n, m*m): ``[u above v in row i]`` at ``u*m + v``.

    Row ``i`` reshaped to (m, m) is ``R[i].pairwise_counts()`` without weights. For
    ``kind="top"`` an absent item sits below every present one (absent pairs count nothing);
    for ``kind="subset"`` only pairs of present items count. Ties count nothing.

    Complexity: O(n m^2) time and memory.
    """
    n, m = ranks.shape
    present = ranks >= 0
    if kind == "top":
        pos = np.where(present, ranks, m)
        above = present[:, :, None] & (pos[:, :, None] < pos[:, None, :])
    else:
        above = present[:, :, None] & present[:, None, :] & (ranks[:, :, None] < ranks[:, None, :])
    return above.reshape(n, m * m).astype(np.float64)


def discordance_matrix(centers: np.ndarray) -> np.ndarray:
    """``D[u*m + v, k] = [centre k places u below v]``, shape (m*m, K).

    With :func:`pair_indicators` ``A``, ``A @ D`` is the number of discordant pairs of every
    row with every centre (Kendall's distance, the top-t statistic ``s^t`` of Busse et al.,
    or the observed-pairs distance for subset data), and ``sum(C_k * D[:, k])`` is the Kemeny
    cost of centre k for the count matrix ``C_k``.

    Complexity: O(K m^2) time and memory.
    """
    k, m = centers.shape
    below = centers[:, :, None] > centers[:, None, :]
    return below.reshape(k, m * m).T.astype(np.float64)
