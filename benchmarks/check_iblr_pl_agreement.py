"""Do the Newton IBLR-PL and the previous per-query MM predict the same rankings? (issue #17)

Run once with an old checkout's ``src`` (``git archive 0caef00 src | tar -x -C /tmp/old``)
and once with the current one, then compare::

    PYTHONPATH=/tmp/old/src python benchmarks/check_iblr_pl_agreement.py dump old.npz --old
    PYTHONPATH=src python benchmarks/check_iblr_pl_agreement.py dump new.npz
    python benchmarks/check_iblr_pl_agreement.py compare old.npz new.npz

Same features (``scaling="none"``, the old default) and fixed k (5 and 20) on nine Table 2
sets, trained on two thirds of the rows, predicting the other third. ``--old`` refits each
query with ``fit_scores`` (the old local fit) to record whether its MM converged.
"""

from __future__ import annotations

import sys

import numpy as np

SETS = ["glass", "housing", "vowel", "wisconsin", "vehicle", "iris", "wine", "bodyfat", "stock"]


def dump(path: str, old: bool) -> None:
    from rankclust.datasets import load_label_ranking
    from rankclust.label_ranking import IBLRPlackettLuce

    out = {}
    for name in SETS:
        X, R = load_label_ranking(name)
        tr, te = np.arange(X.shape[0]) % 3 != 0, np.arange(X.shape[0]) % 3 == 0
        for k in (5, 20):
            m = IBLRPlackettLuce(n_neighbors=k, scaling="none").fit(X[tr], R[tr])
            if not old:
                out[f"{name}-{k}-pos"] = m.predict(X[te]) - 1
                continue
            from rankclust.models.plackett_luce import fit_scores

            dist, ind = m._neighbours(X[te])
            wd = m._neighbour_weights(dist)
            pos, conv = [], []
            for i in range(ind.shape[0]):
                w = wd[i] if wd[i].sum() > 0 else np.ones(k)
                s, _, c = fit_scores(
                    m.rankings_[ind[i]], w, alpha=m.alpha, max_iter=m.max_iter, tol=m.tol
                )
                order = np.lexsort((np.arange(m.n_items_), -s))
                p = np.empty(m.n_items_, dtype=np.int64)
                p[order] = np.arange(m.n_items_)
                pos.append(p)
                conv.append(c)
            out[f"{name}-{k}-pos"] = np.array(pos)
            out[f"{name}-{k}-conv"] = np.array(conv)
    np.savez(path, **out)


def compare(old_path: str, new_path: str) -> None:
    a, b = np.load(old_path), np.load(new_path)
    tot = np.zeros(4, dtype=np.int64)
    for key in b.files:
        conv = a[key.replace("pos", "conv")]
        equal = (a[key] == b[key]).all(axis=1)
        row = [conv.sum(), equal[conv].sum(), (~conv).sum(), equal[~conv].sum()]
        tot += row
        print(f"{key}: MM converged {row[0]} (equal {row[1]}), not {row[2]} (equal {row[3]})")
    print(f"total: MM converged {tot[0]} (equal {tot[1]}), not {tot[2]} (equal {tot[3]})")


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2], "--old" in sys.argv)
    else:
        compare(sys.argv[2], sys.argv[3])
