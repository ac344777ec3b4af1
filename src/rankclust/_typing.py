"""Type aliases used across rankclust (the data conventions are defined in ``rankings.py``)."""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np

from rankclust.rankings import Rankings

#: Anything ``check_rankings`` accepts: a :class:`~rankclust.Rankings` or 1-based ranks.
RankingsLike: TypeAlias = Rankings | np.ndarray | Any
#: A permutation given as positions: ``center[j]`` is the 0-based position of item ``j``.
Positions: TypeAlias = np.ndarray
#: ``None``, a seed, or a ``numpy.random.RandomState``.
RandomStateLike: TypeAlias = int | np.random.RandomState | None
