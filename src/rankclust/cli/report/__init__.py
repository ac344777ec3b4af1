"""Readable summaries of fitted models (the tables the CLI prints) and the JSON result writer.

Nothing here computes a model: the functions read fitted attributes by their conventional
names (DESIGN.md section 3) and lay them out. An attribute a model does not have is left
out of its summary, so new estimators are summarised without changes here as long as they
follow the naming conventions:

* central rankings: ``centers_`` (a :class:`~rankclust.Rankings` or a (K, m) position array)
  or ``central_rankings_``; one model: ``center_`` or ``ranking_``;
* dispersions: ``thetas_`` / ``theta_`` (Mallows), ``dispersions_``, ``lambdas_``;
  Plackett-Luce scores ``scores_``;
* mixing proportions: ``weights_`` / ``mixing_weights_`` / ``proportions_``;
* fit criteria: ``log_likelihood_``, ``bic_``, ``aic_``, ``icl_``, ``objective_``,
  ``inertia_``, ``n_iter_``, ``converged_``.

Positions follow the rank-matrix convention of :mod:`rankclust.rankings`.

The package has one module per job: :mod:`._format` (text), :mod:`._fitted` (reading the
fitted attributes), :mod:`.summaries` (the printed tables), :mod:`.json_output` (the JSON
result) and :mod:`.intervals` (bootstrap and Wald intervals, ``--ci``).
"""

from __future__ import annotations

from rankclust.cli.report._fitted import CRITERIA, cluster_sizes
from rankclust.cli.report._format import format_table, ranking_text
from rankclust.cli.report.intervals import interval_summary
from rankclust.cli.report.json_output import result_dict, to_jsonable, write_json
from rankclust.cli.report.summaries import (
    cluster_summary,
    model_summary,
    restart_line,
    selection_summary,
)

__all__ = [
    "CRITERIA",
    "cluster_sizes",
    "cluster_summary",
    "format_table",
    "interval_summary",
    "model_summary",
    "ranking_text",
    "restart_line",
    "result_dict",
    "selection_summary",
    "to_jsonable",
    "write_json",
]
