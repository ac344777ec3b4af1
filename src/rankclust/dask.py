"""Rankings held by Dask: the public entry point of the Dask back-end.

For data that do not fit one machine, ``ChainKMeans``, ``MallowsMixture`` and
``PlackettLuceMixture`` accept a ``backend="dask"`` argument and Dask input. This module holds
what a user builds that input with:

* :class:`ChunkedRankings` -- rankings split into row chunks held by Dask (from a
  ``dask.array`` of 1-based ranks, a ``dask.bag`` of orderings, delayed ``Rankings``, or
  in-memory ``Rankings``);
* :func:`as_chunked` -- any supported input as a ``ChunkedRankings``;
* :func:`is_dask_collection` -- whether an estimator will take the Dask path for an input;
* :data:`DEFAULT_CHUNK_SIZE` -- rows per chunk when in-memory input runs with
  ``backend="dask"``.

The executors and row operations the estimators are written against stay private
(``rankclust._dask``). Dask itself is an optional dependency (``pip install rankclust[dask]``)
that is imported only when a Dask code path runs, so importing this module is cheap.

Examples
--------
>>> import numpy as np
>>> from rankclust import Rankings
>>> from rankclust.dask import ChunkedRankings
>>> R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 0, 2]], n_items=3)
>>> CR = ChunkedRankings.from_rankings(R, chunk_size=2)
>>> CR.chunk_sizes
[2, 1]
"""

from rankclust._dask import DEFAULT_CHUNK_SIZE, ChunkedRankings, as_chunked, is_dask_collection

__all__ = ["DEFAULT_CHUNK_SIZE", "ChunkedRankings", "as_chunked", "is_dask_collection"]
