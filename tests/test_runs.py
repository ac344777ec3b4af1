"""The run record of iterative fits (rankclust._runs)."""

import numpy as np
import pytest

from rankclust._runs import FitRun, best_index, best_run


def test_best_run_lowest_objective_first_on_ties():
    runs = [
        FitRun(objective=o, n_iter=1, converged=True, params={"i": i})
        for i, o in enumerate([3.0, 1.0, 2.0, 1.0])
    ]
    assert best_run(runs).params["i"] == 1


def test_best_run_degenerate_runs_last():
    runs = [
        FitRun(objective=0.0, n_iter=1, converged=True, degenerate=True),
        FitRun(objective=5.0, n_iter=2, converged=False),
    ]
    assert best_run(runs) is runs[1]
    assert best_run(runs[:1]) is runs[0]  # kept when every run is degenerate


def test_fields_are_keyword_only():
    with pytest.raises(TypeError):
        FitRun(1.0, 2, True)  # positional reading (run[3]) is what the record replaces
    run = FitRun(objective=1.0, n_iter=2, converged=True, labels=np.array([0, 1]))
    assert run.params == {} and not run.degenerate and run.labels.tolist() == [0, 1]


def test_best_index_is_the_first_of_the_lowest_objective():
    runs = [FitRun(objective=o, n_iter=1, converged=True) for o in [2.0, 1.0, 1.0, 3.0]]
    assert best_index(runs) == 1 == int(np.argmin([r.objective for r in runs]))
    assert best_run(runs) is runs[1]
