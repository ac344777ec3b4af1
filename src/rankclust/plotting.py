"""Figures people look at: central rankings, pairwise preferences, model selection, clusters.

Every function draws on a matplotlib ``Axes`` (a new figure when ``ax`` is None) and returns
what it drew on, so figures can be combined, restyled and saved by the caller::

    ax = plot_central_rankings(model.centers_)
    ax.figure.savefig("centers.png", dpi=150)

Two rules hold in every figure:

* **Result objects are accepted** where they carry what a figure shows: a fitted clusterer
  (``centers_`` or ``central_rankings_``, ``labels_``), the result of
  :func:`rankclust.cluster.select_k` (its ``table``) and of
  :func:`rankclust.cluster.randomization_test`.
* **Empty clusters keep their place and are labelled**: a cluster with no member is shown as
  an explicitly labelled empty row, panel or legend entry (``"cluster 2 (n=0, empty)"``),
  never dropped and never drawn as if it held data.

The functions hold no mathematics beyond arranging numbers for display: the quantities shown
(central rankings, pairwise counts, information criteria, null distributions) come from the
estimators. Positions follow the rank-matrix convention of :mod:`rankclust.rankings`
(``center[j]`` is the 0-based position of item ``j``; ``-1`` absent); the figures print them
1-based, as people read rankings.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankclust.rankings import Rankings

__all__ = [
    "plot_bic",
    "plot_central_rankings",
    "plot_comparison_matrices",
    "plot_feature_clusters",
    "plot_goodness_of_fit",
    "plot_pairwise_matrices",
    "plot_pairwise_matrix",
    "plot_plackett_luce_tree",
    "plot_position_probabilities",
    "plot_randomization_test",
    "plot_worth_intervals",
]

#: Column names accepted for the number of clusters in :func:`plot_bic` tables.
_K_COLUMNS = ("k", "n_clusters", "n_components")
#: Criteria drawn by :func:`plot_bic`, in drawing order.
_CRITERIA = ("bic", "icl", "aic")


#: Largest default figure, in inches: figures of many items stay printable.
_MAX_FIGSIZE = (20.0, 14.0)
#: Width of a grid of pairwise panels, in inches (a page at print size); panels wrap to rows.
_GRID_WIDTH = 16.0
#: Label of an empty cluster, in titles, row labels and legends.
_EMPTY = "n=0, empty"


def _set_title(ax: Any, title: str, **kwargs: Any) -> None:
    """A title wrapped to the width of its Axes, so that no title is clipped.

    Constrained layout makes room above a title but not beside it: a title wider than its
    Axes would run off the figure.
    """
    import textwrap

    fig = ax.figure
    width = ax.get_position().width * fig.get_figwidth()  # inches
    size = kwargs.get("fontsize") or ax.title.get_fontsize()
    chars = max(12, int(width * 72 / (0.55 * size)))
    ax.set_title("\n".join(textwrap.wrap(str(title), chars)) or str(title), **kwargs)


def _centers_of(obj: Any) -> Any:
    """Central rankings of a fitted clusterer, or ``obj`` itself."""
    for name in ("centers_", "central_rankings_"):
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return obj


def _labels_of(obj: Any) -> Any:
    """``labels_`` of a fitted estimator, or ``obj`` itself."""
    value = getattr(obj, "labels_", None)
    return obj if value is None else value


def _cluster_title(name: str, size: float | None) -> str:
    if size is None:
        return name
    return f"{name} ({_EMPTY})" if size == 0 else f"{name} (n={_fmt_size(size)})"


def _check_sizes(cluster_sizes: Any, n_clusters: int) -> list[float] | None:
    if cluster_sizes is None:
        return None
    sizes = [float(x) for x in np.asarray(cluster_sizes, dtype=np.float64).ravel()]
    if len(sizes) != n_clusters:
        raise ValueError(f"cluster_sizes has {len(sizes)} entries for {n_clusters} clusters")
    return sizes


def _new_axes(ax: Any, figsize: tuple[float, float]) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    size = (min(figsize[0], _MAX_FIGSIZE[0]), min(figsize[1], _MAX_FIGSIZE[1]))
    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _item_names(items: Sequence[str] | None, m: int, source: Any = None) -> list[str]:
    if items is None and isinstance(source, Rankings) and source.items is not None:
        items = source.items
    if items is None:
        return [str(j) for j in range(m)]
    names = [str(x) for x in items]
    if len(names) != m:
        raise ValueError(f"items has {len(names)} names for {m} items")
    return names


def _tick_rotation(names: Sequence[str]) -> int:
    """45 degrees when the column labels would collide side by side."""
    longest = max((len(n) for n in names), default=0)
    return 45 if len(names) > 6 or longest > 6 else 0


def _as_positions(centers: Any) -> np.ndarray:
    """(K, m) int64 positions from a Rankings, a position vector or a (K, m) array."""
    if isinstance(centers, Rankings):
        return np.asarray(centers.ranks, dtype=np.int64)
    arr = np.asarray(centers)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"centers must have shape (K, m), got {arr.shape}")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"centers must be numeric positions, got dtype {arr.dtype}")
    return arr.astype(np.int64)


# --------------------------------------------------------------------------------------------
# central rankings
# --------------------------------------------------------------------------------------------
def plot_central_rankings(
    centers: Any,
    items: Sequence[str] | None = None,
    ax: Any = None,
    *,
    order: str = "mean",
    annotate: bool | None = None,
    cluster_sizes: Sequence[float] | None = None,
    row_labels: Sequence[str] | None = None,
    title: str | None = "Central rankings",
) -> Any:
    """Heat map of item positions in each cluster's central ranking.

    Rows are clusters, columns items; the colour and the printed number give the item's
    1-based position (1 = best). Absent items (position ``-1``) stay blank.

    Parameters
    ----------
    centers : Rankings, array-like of int, shape (K, m) or (m,), or a fitted clusterer
        Central rankings as position vectors (``centers[k, j]`` = 0-based position of item
        ``j`` in cluster ``k``), e.g. a fitted clusterer's ``centers_``; a fitted clusterer
        itself also gives ``cluster_sizes`` (from its ``labels_``) unless they are given.
    items : sequence of str, optional
        Item names; default the names carried by ``centers`` (a Rankings) or ``0..m-1``.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    order : {"mean", "given"}, default="mean"
        Column order: by mean position over the clusters (so shared structure lines up
        left to right), or the items' own order.
    annotate : bool, optional
        Print the position in each cell; default when ``m <= 30``.
    cluster_sizes : sequence of float, shape (K,), optional
        Shown in the row labels (``"cluster 0 (n=120)"``); a cluster of size 0 is drawn as
        a blank row labelled ``"(n=0, empty)"``.
    row_labels : sequence of str, shape (K,), optional
        Row names instead of ``"cluster k"`` (e.g. model names when comparing models).
    title : str or None, default="Central rankings"

    Returns
    -------
    ax : matplotlib Axes
        With one image (the heat map) and a colour bar.

    Notes
    -----
    Complexity: O(K m) time and memory.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_central_rankings([[1, 0, 2], [2, 0, 1]], items=["a", "b", "c"])
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['b', 'a', 'c']
    """
    if cluster_sizes is None and hasattr(centers, "labels_"):
        fitted_centers = _centers_of(centers)
        k = len(_as_positions(fitted_centers))
        lab = np.asarray(centers.labels_)
        cluster_sizes = np.bincount(lab[lab >= 0].astype(np.int64), minlength=k)[:k]
    centers = _centers_of(centers)
    pos = _as_positions(centers)
    n_clusters, m = pos.shape
    names = _item_names(items, m, centers)
    sizes = _check_sizes(cluster_sizes, n_clusters)
    empty = np.array([s == 0 for s in sizes]) if sizes is not None else np.zeros(n_clusters, bool)
    pos = np.where(empty[:, None], -1, pos)  # an empty cluster's centre is not data
    if order not in ("mean", "given"):
        raise ValueError(f"order must be 'mean' or 'given', got {order!r}")
    if order == "mean" and n_clusters > 0:
        masked = np.ma.masked_less(pos, 0).astype(float)
        key = masked.mean(axis=0).filled(np.inf)
        cols = np.argsort(key, kind="stable")
    else:
        cols = np.arange(m)
    shown = np.ma.masked_less(pos[:, cols], 0) + 1
    ax = _new_axes(ax, (max(4.0, 0.45 * m + 2.5), max(2.0, 0.5 * n_clusters + 1.5)))
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("viridis_r").with_extremes(bad="white")
    vmax = max(int(pos.max(initial=0)) + 1, 1)
    im = ax.imshow(shown, cmap=cmap, vmin=1, vmax=vmax, aspect="auto", interpolation="nearest")
    rot = _tick_rotation(names)
    ax.set_xticks(
        np.arange(m), [names[j] for j in cols], rotation=rot, ha="right" if rot else "center"
    )
    rows = [f"cluster {k}" for k in range(n_clusters)]
    if row_labels is not None:
        rows = [str(r) for r in row_labels]
        if len(rows) != n_clusters:
            raise ValueError(f"row_labels has {len(rows)} entries for {n_clusters} rows")
    if sizes is not None:
        rows = [_cluster_title(r, s) for r, s in zip(rows, sizes, strict=True)]
    ax.set_yticks(np.arange(n_clusters), rows)
    for k in np.flatnonzero(empty):
        ax.text((m - 1) / 2, k, "empty cluster", ha="center", va="center", color="0.4")
    ax.set_xlabel("item")
    ax.set_ylabel("cluster" if row_labels is None else "")
    if annotate is None:
        annotate = m <= 30
    if annotate:
        for k in range(n_clusters):
            for c in range(m):
                if not np.ma.is_masked(shown[k, c]):
                    value = int(shown[k, c])
                    dark = value > (vmax + 1) / 2
                    ax.text(
                        c,
                        k,
                        str(value),
                        ha="center",
                        va="center",
                        fontsize=8,
                        color="white" if dark else "black",
                    )
    from matplotlib.ticker import MaxNLocator

    cbar = ax.figure.colorbar(im, ax=ax, label="position (1 = best)")
    cbar.locator = MaxNLocator(integer=True)
    cbar.update_ticks()
    cbar.ax.invert_yaxis()  # best at the top
    if title:
        _set_title(ax, title)
    return ax


def _fmt_size(s: float) -> str:
    return str(int(s)) if float(s).is_integer() else f"{s:.1f}"


# --------------------------------------------------------------------------------------------
# pairwise preferences
# --------------------------------------------------------------------------------------------
def _preference_fractions(C: Any) -> np.ndarray:
    C = np.asarray(C, dtype=np.float64)
    if C.ndim != 2 or C.shape[0] != C.shape[1]:
        raise ValueError(f"C must be a square (m, m) matrix, got shape {C.shape}")
    if np.any(C < 0) or not np.all(np.isfinite(C)):
        raise ValueError("C must hold finite, non-negative counts")
    total = C + C.T
    with np.errstate(invalid="ignore", divide="ignore"):
        P = np.where(total > 0, C / np.where(total > 0, total, 1.0), np.nan)
    np.fill_diagonal(P, np.nan)
    return P


def _win_order(C: np.ndarray) -> np.ndarray:
    """Items by the share of their comparisons they win, best first (ties: item order).

    The order of a cluster's pairwise panel when no central ranking is given.
    """
    P = _preference_fractions(C)
    with np.errstate(invalid="ignore"):
        compared = np.isfinite(P)
        wins = np.where(compared, P, 0.0).sum(axis=1)
        share = np.where(compared.any(axis=1), wins / np.maximum(compared.sum(axis=1), 1), -1.0)
    return np.argsort(-share, kind="stable")


def _center_order(position: np.ndarray) -> np.ndarray:
    """Items by their position in a central ranking, absent items (``-1``) last."""
    key = np.where(position >= 0, position, np.iinfo(np.int64).max)
    return np.argsort(key, kind="stable")


def _as_order(order: Any, m: int) -> np.ndarray:
    perm = np.asarray(order, dtype=np.int64).ravel()
    if perm.shape != (m,) or not np.array_equal(np.sort(perm), np.arange(m)):
        raise ValueError(f"order must be a permutation of 0..{m - 1}")
    return perm


def _label_fontsize(m: int) -> float:
    """Tick-label size that keeps one label per cell readable."""
    return 9.0 if m <= 8 else 8.0 if m <= 14 else 7.0


def plot_pairwise_matrix(
    C: Any,
    items: Sequence[str] | None = None,
    ax: Any = None,
    *,
    annotate: bool | None = None,
    colorbar: bool = True,
    title: str | None = "Pairwise preferences",
    order: str | Sequence[int] = "given",
) -> Any:
    """Fraction of comparisons in which the row item is preferred to the column item.

    Draws ``P = C / (C + C.T)`` on a diverging scale centred at 0.5; pairs never compared and
    the diagonal stay blank.

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts ``C[u, v]`` = (weighted) number of rankings with ``u`` above ``v``,
        e.g. ``R.pairwise_counts()``.
    items : sequence of str, optional
        Item names (default ``0..m-1``).
    ax : matplotlib Axes, optional
    annotate : bool, optional
        Print the fractions in the cells; default when ``m <= 12``.
    colorbar : bool, default=True
    title : str or None, default="Pairwise preferences"
    order : {"given", "wins"} or sequence of int, default="given"
        Row and column order: the items' own order, by the share of their comparisons each
        item wins (best first), or an explicit permutation (e.g. a central ranking's order).

    Returns
    -------
    ax : matplotlib Axes
        With one image.

    Notes
    -----
    Complexity: O(m^2) time and memory.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2], [0, 2, 1]])
    >>> ax = plot_pairwise_matrix(R.pairwise_counts(), items=["x", "y", "z"])
    >>> ax.get_images()[0].get_array()[0, 1]
    np.float64(1.0)
    """
    P = _preference_fractions(C)
    m = P.shape[0]
    names = _item_names(items, m)
    if isinstance(order, str):
        if order not in ("given", "wins"):
            raise ValueError(f"order must be 'given', 'wins' or a permutation, got {order!r}")
        perm = np.arange(m) if order == "given" else _win_order(np.asarray(C, dtype=float))
    else:
        perm = _as_order(order, m)
    P = P[np.ix_(perm, perm)]
    names = [names[j] for j in perm]
    ax = _new_axes(ax, (max(3.5, 0.45 * m + 2.0), max(3.0, 0.45 * m + 1.5)))
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("RdBu_r").with_extremes(bad="#dddddd")
    im = ax.imshow(np.ma.masked_invalid(P), cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
    rot = _tick_rotation(names)
    size = _label_fontsize(m)
    ax.set_xticks(
        np.arange(m), names, rotation=rot, ha="right" if rot else "center", fontsize=size
    )
    if rot:
        ax.tick_params(axis="x", labelrotation=rot)
        for label in ax.get_xticklabels():
            label.set_rotation_mode("anchor")
    ax.set_yticks(np.arange(m), names, fontsize=size)
    ax.set_xlabel("less preferred item (column)")
    ax.set_ylabel("preferred item (row)")
    if annotate is None:
        annotate = m <= 12
    if annotate:
        for u in range(m):
            for v in range(m):
                if np.isfinite(P[u, v]):
                    ax.text(
                        v,
                        u,
                        f"{P[u, v]:.2f}",
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if abs(P[u, v] - 0.5) > 0.35 else "black",
                    )
    if colorbar:
        ax.figure.colorbar(im, ax=ax, label="P(row above column)")
    if title:
        _set_title(ax, title)
    return ax


def _grid_shape(n_panels: int, m: int, longest: int, ncols: int | None) -> tuple[int, int, float]:
    """(rows, columns, panel side in inches) of a grid of pairwise panels over m items.

    A panel grows with m (0.18 inch per item plus room for the names) so one label per
    cell stays readable; panels wrap into rows of at most ``_GRID_WIDTH`` inches.
    """
    side = float(np.clip(1.0 + 0.18 * m + 0.05 * min(longest, 25), 2.8, 8.0))
    if ncols is None:
        widest = max(1, min(n_panels, int(_GRID_WIDTH // side)))
        ncols = -(-n_panels // -(-n_panels // widest)) if n_panels else 1  # balanced rows
    elif ncols < 1:
        raise ValueError(f"ncols must be a positive integer, got {ncols}")
    ncols = max(1, min(ncols, max(n_panels, 1)))
    nrows = max(1, -(-n_panels // ncols))
    return nrows, ncols, side


def plot_pairwise_matrices(
    C: Any,
    items: Sequence[str] | None = None,
    *,
    titles: Sequence[str] | None = None,
    centers: Any = None,
    cluster_sizes: Sequence[float] | None = None,
    order: str = "central",
    ncols: int | None = None,
    annotate: bool | None = None,
) -> Any:
    """One :func:`plot_pairwise_matrix` panel per cluster, wrapped into a grid.

    Each panel lists the items in its cluster's order (best first), so a cluster's
    consensus reads as a red upper triangle; the grid's panel size grows with the number of
    items and panels wrap into rows, so 5 to 20 items and 8 clusters stay readable at print
    size. An empty cluster keeps its panel, labelled ``"(n=0, empty)"``.

    Parameters
    ----------
    C : array-like of float, shape (K, m, m)
        Per-cluster pairwise counts, e.g. ``R.pairwise_counts(labels=model.labels_)``.
    items : sequence of str, optional
    titles : sequence of str, shape (K,), optional
        Panel titles; default ``"cluster k"``. The size is appended when known.
    centers : Rankings, array-like of int, shape (K, m), or a fitted clusterer, optional
        Central rankings (0-based positions, ``-1`` absent): each panel is ordered by its
        cluster's central ranking (absent items last).
    cluster_sizes : sequence of float, shape (K,), optional
        Shown in each title (``"cluster 0 (n=120)"``); size 0 marks an empty cluster.
    order : {"central", "given"}, default="central"
        ``"central"``: by ``centers`` when given, else by the share of its comparisons each
        item wins in the cluster (see :func:`plot_pairwise_matrix`); ``"given"``: the items'
        own order in every panel.
    ncols : int, optional
        Panels per row; default as many as fit in 16 inches.
    annotate : bool, optional
        Print the fractions; default when ``m <= 8``.

    Returns
    -------
    fig : matplotlib Figure
        With K axes holding one image each (an empty cluster's axes hold none), the unused
        cells of the grid removed, and one colour bar.

    Notes
    -----
    Complexity: O(K m^2) time and memory.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> fig = plot_pairwise_matrices(np.ones((2, 3, 3)))
    >>> len([a for a in fig.axes if a.get_images()])
    2
    """
    import matplotlib.pyplot as plt

    C = np.asarray(C, dtype=np.float64)
    if C.ndim != 3:
        raise ValueError(f"C must have shape (K, m, m), got {C.shape}")
    n_clusters, m = C.shape[0], C.shape[1]
    names = _item_names(items, m, centers)
    titles, sizes, pos = _check_panels(n_clusters, m, titles, cluster_sizes, order, centers)
    nrows, ncols, side = _grid_shape(n_clusters, m, max((len(x) for x in names), default=1), ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(side * ncols + 1.2, side * nrows + 0.3),
        layout="constrained",
        squeeze=False,
    )
    if annotate is None:
        annotate = m <= 8
    image = None
    for k in range(n_clusters):
        ax = axes[k // ncols, k % ncols]
        empty = (sizes is not None and sizes[k] == 0) or not C[k].any()
        title = _cluster_title(str(titles[k]), 0 if empty else (sizes[k] if sizes else None))
        if empty:
            _empty_panel(ax, title)
            continue
        perm: Any = (
            "given" if order == "given" else "wins" if pos is None else _center_order(pos[k])
        )
        plot_pairwise_matrix(
            C[k], names, ax=ax, colorbar=False, title=title, annotate=annotate, order=perm
        )
        image = ax.get_images()[0]
        if k % ncols:
            ax.set_ylabel("")
        if k + ncols < n_clusters:
            ax.set_xlabel("")
    for k in range(n_clusters, nrows * ncols):
        axes[k // ncols, k % ncols].remove()
    if image is not None:
        used = [a for a in axes.ravel()[:n_clusters]]
        fig.colorbar(image, ax=used, label="P(row above column)", shrink=0.6 if nrows > 1 else 0.9)
    return fig


def plot_comparison_matrices(
    C: Any,
    model: Any = None,
    *,
    labels: Any = None,
    titles: Sequence[str] | None = None,
    ncols: int | None = None,
    annotate: bool | None = None,
) -> Any:
    """Win proportions of pairwise comparisons, one panel per cluster of assessors.

    The pairwise-preference grid of :func:`plot_pairwise_matrices` for
    :class:`~rankclust.pairwise.Comparisons`: cell ``(u, v)`` of a panel is the share of the
    cluster's comparisons of ``u`` and ``v`` that ``u`` won (a tie counts half to each,
    :meth:`Comparisons.pairwise_counts`), items listed by the cluster's consensus ranking
    (best first), so a consensus that its assessors follow reads as a red upper triangle.

    Parameters
    ----------
    C : Comparisons
        The comparisons (for clusters: with assessors).
    model : fitted BradleyTerryMixture or BradleyTerry, optional
        A mixture gives the clusters (``labels_``, unless ``labels`` is given) and their
        consensus (``rankings_``); one Bradley-Terry model gives one panel ordered by its
        scores. None: panels by ``labels`` (or one panel), items by the share of their
        comparisons they win.
    labels : array-like of int, shape (C.n_assessors,), optional
        A cluster per assessor (-1: left out).
    titles : sequence of str, optional
        Panel titles (default ``"cluster k"``, or ``"all comparisons"`` for one panel);
        the number of assessors of each cluster is appended when ``C`` has assessors.
    ncols : int, optional
        Panels per row.
    annotate : bool, optional
        Print the proportions (default for at most 8 items).

    Returns
    -------
    fig : matplotlib Figure
        One heat map per cluster (an empty cluster gets a labelled blank panel) and a
        colour bar.

    Notes
    -----
    Complexity: O(n + K m^2) time, O(K m^2) memory for n comparisons over m items.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from rankclust.pairwise import Comparisons
    >>> C = Comparisons.from_arrays([0, 1, 2, 1], [1, 2, 0, 0], assessor=[0, 0, 1, 1])
    >>> fig = plot_comparison_matrices(C, labels=[0, 1])
    >>> len([a for a in fig.axes if a.get_images()])
    2
    """
    from rankclust.pairwise import BradleyTerry, BradleyTerryMixture, Comparisons

    if not isinstance(C, Comparisons):
        raise TypeError(f"C must be a Comparisons, got {type(C).__name__}")
    if model is not None and not isinstance(model, BradleyTerry | BradleyTerryMixture):
        raise TypeError(
            f"model must be a fitted BradleyTerry or BradleyTerryMixture, got {type(model).__name__}"
        )
    if model is not None and getattr(model, "n_items_", None) != C.n_items:
        raise ValueError(f"model is not fitted to {C.n_items} items")
    centers = None
    if isinstance(model, BradleyTerryMixture):
        labels = model.labels_ if labels is None else labels
        centers = model.rankings_
    elif isinstance(model, BradleyTerry):
        centers = np.argsort(np.argsort(-model.scores_, kind="stable"))[None, :]
    if labels is None:
        W = C.pairwise_counts()[None]
        sizes = [C.n_assessors] if C.has_assessors else None
        titles = ["all comparisons"] if titles is None else titles
    else:
        k = len(centers) if centers is not None else None
        W = C.pairwise_counts(labels=labels, n_groups=k)
        lab = np.asarray(labels, dtype=np.int64)
        sizes = np.bincount(lab[lab >= 0], minlength=W.shape[0]).tolist()
    return plot_pairwise_matrices(
        W, C.items, titles=titles, centers=centers, cluster_sizes=sizes, ncols=ncols,
        annotate=annotate,
    )  # fmt: skip


def _check_panels(
    n_clusters: int,
    m: int,
    titles: Sequence[str] | None,
    cluster_sizes: Sequence[float] | None,
    order: str,
    centers: Any,
) -> tuple[Sequence[str], Any, np.ndarray | None]:
    """The panel titles (default ``"cluster k"``), the checked sizes and the central
    positions (None without ``centers``) of :func:`plot_pairwise_matrices`."""
    if titles is None:
        titles = [f"cluster {k}" for k in range(n_clusters)]
    if len(titles) != n_clusters:
        raise ValueError(f"titles has {len(titles)} entries for {n_clusters} clusters")
    sizes = _check_sizes(cluster_sizes, n_clusters)
    if order not in ("central", "given"):
        raise ValueError(f"order must be 'central' or 'given', got {order!r}")
    pos = None
    if centers is not None:
        pos = _as_positions(_centers_of(centers))
        if pos.shape != (n_clusters, m):
            raise ValueError(f"centers must have shape ({n_clusters}, {m}), got {pos.shape}")
    return titles, sizes, pos


def _empty_panel(ax: Any, title: str) -> None:
    """The one drawing of an empty cluster: a framed blank panel that says so."""
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_aspect("equal")
    ax.text(0.5, 0.5, "empty cluster\n(no member)", ha="center", va="center", color="0.4",
            transform=ax.transAxes)  # fmt: skip
    _set_title(ax, title)


# --------------------------------------------------------------------------------------------
# model selection
# --------------------------------------------------------------------------------------------
def _table_columns(table: Any) -> dict[str, np.ndarray]:
    """Columns of a model-selection table as lower-case name -> float array."""
    if hasattr(table, "to_dict") and not isinstance(table, Mapping):  # a pandas DataFrame
        table = table.to_dict("list")
    if isinstance(table, Mapping):
        cols = {str(k).lower(): list(v) for k, v in table.items()}
    elif isinstance(table, Sequence) and table and isinstance(table[0], Mapping):
        keys = {str(k).lower() for row in table for k in row}
        cols = {k: [] for k in keys}
        for row in table:
            low = {str(k).lower(): v for k, v in row.items()}
            for k in keys:
                cols[k].append(low.get(k, np.nan))
    else:
        raise TypeError(
            "table must be a mapping of columns, a sequence of row mappings or a DataFrame"
        )
    out: dict[str, np.ndarray] = {}
    for k, v in cols.items():
        try:
            out[k] = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError):
            continue  # non-numeric column (e.g. a model object)
    return out


def plot_bic(
    table: Any,
    ax: Any = None,
    *,
    criteria: Sequence[str] | None = None,
    title: str | None = "Model selection",
    mark_best: bool = True,
    style: str = "auto",
) -> Any:
    """Information criteria against the number of clusters K, each readable on its own scale.

    Parameters
    ----------
    table : SelectKResult, mapping, sequence of mappings, or DataFrame
        The result of :func:`rankclust.cluster.select_k` (its ``table`` is drawn and its
        ``criterion`` named), or columns (case-insensitive) ``k`` (or
        ``n_clusters``/``n_components``) and at least one of ``bic``, ``icl``, ``aic``
        (lower is better), e.g. ``{"k": [1, 2, 3], "bic": [...], "icl": [...]}`` or
        ``[{"k": 1, "bic": ...}, {"k": 2, "bic": ...}]``.
    ax : matplotlib Axes, optional
        Draw on this Axes (style ``"difference"`` for several criteria).
    criteria : sequence of str, optional
        Columns to draw (lower is better), e.g. ``["objective"]`` for a k-means elbow plot;
        default every one of ``bic``, ``icl``, ``aic`` present.
    title : str or None, default="Model selection"
    mark_best : bool, default=True
        Star the K minimising each criterion. Pass False where the criterion cannot choose
        K (an objective that decreases with K, read for an elbow).
    style : {"auto", "panels", "difference", "single"}, default="auto"
        ``"panels"``: one panel per criterion, each on its own y-scale with its values in
        full; ``"difference"``: one Axes, each criterion minus its minimum (0 = its best
        K); ``"single"``: one Axes, raw values (readable for one criterion or criteria of
        similar size). ``"auto"``: ``"single"`` for one criterion, else ``"panels"`` (or
        ``"difference"`` when ``ax`` is given).

    Returns
    -------
    Figure for ``"panels"`` (one Axes per criterion), else the Axes drawn on.
        Each criterion is one line labelled with its upper-case name; a star marks its
        minimum (label ``"_best_<name>"``) when ``mark_best``.

    Notes
    -----
    Complexity: O(number of K values).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> fig = plot_bic({"k": [1, 2, 3], "bic": [30.0, 20.0, 25.0], "aic": [28.0, 15.0, 14.0]})
    >>> [ax.get_title() for ax in fig.axes]
    ['BIC (best K=2)', 'AIC (best K=3)']
    """
    chosen = getattr(table, "criterion", None)
    if hasattr(table, "table") and not isinstance(table, Mapping | Sequence):
        table = table.table
    cols = _table_columns(table)
    kcol, crits = _criteria_columns(cols, criteria)
    if style not in ("auto", "panels", "difference", "single"):
        raise ValueError(
            f"style must be 'auto', 'panels', 'difference' or 'single', got {style!r}"
        )
    if style == "auto":
        style = "single" if len(crits) == 1 else ("difference" if ax is not None else "panels")
    if style == "panels" and ax is not None:
        raise ValueError("style='panels' draws its own figure; pass ax=None")
    ks, series = _sorted_series(cols, kcol, crits)
    if style == "panels":
        return _criteria_panels(ks, series, crits, chosen, title, mark_best)
    ax = _new_axes(ax, (5.0, 3.5))
    for i, name in enumerate(crits):
        values = series[name]
        if style == "difference":
            finite = np.isfinite(values)
            values = values - (values[finite].min() if finite.any() else 0.0)
        _draw_criterion(ax, ks, values, name, f"C{i}", mark_best)
    ax.set_xlabel("number of clusters K")
    if style == "difference":
        ax.set_ylabel("criterion minus its minimum\n(0 = best K; lower is better)")
    else:
        ax.set_ylabel("criterion (lower is better)")
    _plain_y(ax)
    ax.legend(fontsize=8)
    if title:
        _set_title(ax, title)
    return ax


def _criteria_columns(
    cols: dict[str, np.ndarray], criteria: Sequence[str] | None
) -> tuple[str, list[str]]:
    """The K column and the criteria to draw (``criteria``, default every one of
    :data:`_CRITERIA` present), checked."""
    kcol = next((c for c in _K_COLUMNS if c in cols), None)
    if kcol is None:
        raise ValueError(f"table needs a column for K: one of {_K_COLUMNS}")
    if criteria is not None:
        crits = [str(c).lower() for c in criteria]
        missing = [c for c in crits if c not in cols]
        if missing or not crits:
            raise ValueError(f"table has no numeric column for criteria {missing or crits}")
    else:
        crits = [c for c in _CRITERIA if c in cols]
    if not crits:
        raise ValueError(f"table needs at least one criterion column among {_CRITERIA}")
    return kcol, crits


def _sorted_series(
    cols: dict[str, np.ndarray], kcol: str, crits: list[str]
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The K values in increasing order and each criterion's values in that order."""
    ks = cols[kcol]
    order = np.argsort(ks, kind="stable")
    ks = ks[order]
    series = {}
    for name in crits:
        values = cols[name][order]
        if len(values) != len(ks):
            raise ValueError(f"column {name!r} has {len(values)} values for {len(ks)} K values")
        series[name] = values
    return ks, series


def _criteria_panels(
    ks: np.ndarray,
    series: dict[str, np.ndarray],
    crits: list[str],
    chosen: str | None,
    title: str | None,
    mark_best: bool,
) -> Any:
    """``plot_bic(style="panels")``: one panel per criterion, each on its own y-scale."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        1, len(crits), figsize=(3.6 * len(crits) + 0.4, 3.4), layout="constrained",
        sharex=True, squeeze=False,
    )  # fmt: skip
    for i, name in enumerate(crits):
        ax_i = axes[0, i]
        best = _draw_criterion(ax_i, ks, series[name], name, f"C{i}", mark_best)
        head = name.upper()
        if best is not None and mark_best:
            head += f" (best K={_fmt_size(best)})"
        if name == chosen:
            head += ", used"
        ax_i.set_title(head, fontsize=10)
        ax_i.set_xlabel("number of clusters K")
        _plain_y(ax_i)
    axes[0, 0].set_ylabel("lower is better")
    if title:
        fig.suptitle(title)
    return fig


def _draw_criterion(
    ax: Any, ks: np.ndarray, values: np.ndarray, name: str, color: str, mark_best: bool
) -> float | None:
    """One criterion's line (and its star at the minimum); returns the best K or None."""
    markers = {"bic": "o", "icl": "s", "aic": "^"}
    ax.plot(ks, values, marker=markers.get(name, "o"), color=color, label=name.upper())
    ax.set_xticks(ks)
    ax.grid(alpha=0.3)
    finite = np.isfinite(values)
    if not finite.any():
        return None
    best = int(np.flatnonzero(finite)[np.argmin(values[finite])])
    if mark_best:
        ax.plot(
            ks[best], values[best], marker="*", markersize=16, color=color,
            markeredgecolor="black", linestyle="none", label="_best_" + name,
        )  # fmt: skip
    return float(ks[best])


def _plain_y(ax: Any) -> None:
    """Full numbers on the y axis (no "+6.9e4" offset that hides the values)."""
    from matplotlib.ticker import ScalarFormatter

    formatter = ScalarFormatter(useOffset=False)
    formatter.set_scientific(False)
    ax.yaxis.set_major_formatter(formatter)


# --------------------------------------------------------------------------------------------
# feature space
# --------------------------------------------------------------------------------------------
def plot_feature_clusters(
    X: Any,
    labels: Any,
    ax: Any = None,
    *,
    random_state: int | None = 0,
    names: Sequence[str] | None = None,
    title: str | None = "Clusters in feature space",
    standardize: bool = True,
    n_clusters: int | None = None,
) -> Any:
    """Points on the first two principal components of their standardised features.

    Parameters
    ----------
    X : array-like of float, shape (n, d)
        Features. With ``d == 1`` the feature itself is the horizontal axis.
    labels : array-like of int, shape (n,), or a fitted estimator
        Cluster of each point (e.g. ``model.labels_``, or the fitted model itself);
        negative labels are drawn grey as "unassigned".
    ax : matplotlib Axes, optional
    random_state : int or None, default=0
        Passed to :class:`sklearn.decomposition.PCA` (its randomised solver on large data).
    names : sequence of str, optional
        Legend name of each label value ``k`` (``names[k]``), e.g. label names when the
        points are coloured by their predicted top label; default ``"cluster k"``.
    title : str or None, default="Clusters in feature space"
    standardize : bool, default=True
        Centre each feature and divide it by its standard deviation before the PCA (a
        constant feature stays 0), so that no feature dominates by its unit alone; the axis
        labels say so. False runs the PCA on the features as given.
    n_clusters : int, optional
        Number of clusters of the model (default ``labels.max() + 1``): a cluster with no
        point gets a legend entry ``"cluster k (n=0, empty)"``.

    Returns
    -------
    ax : matplotlib Axes
        One scatter collection per non-empty cluster, with a legend ``cluster k (n=...)``.

    Notes
    -----
    Complexity: O(n d min(n, d)) time for the PCA, O(n d) memory.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> X = np.r_[np.zeros((5, 3)), np.ones((5, 3))] + np.arange(10)[:, None] * 0.01
    >>> ax = plot_feature_clusters(X, [0] * 5 + [1] * 5)
    >>> len(ax.collections)
    2
    """
    from sklearn.decomposition import PCA

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must have shape (n, d), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    labels = np.asarray(_labels_of(labels))
    if labels.shape != (X.shape[0],):
        raise ValueError(f"labels must have shape ({X.shape[0]},), got {labels.shape}")
    n, d = X.shape
    if standardize and n:
        std = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)
    scaled = " of standardised features" if standardize else ""
    if d >= 2 and n >= 2:
        pca = PCA(n_components=2, random_state=random_state)
        Z = pca.fit_transform(X)
        ratio = pca.explained_variance_ratio_
        xlabel = f"PC1{scaled} ({100 * ratio[0]:.0f}% of variance)"
        ylabel = f"PC2{scaled} ({100 * ratio[1]:.0f}% of variance)"
    else:
        Z = np.c_[X[:, :1] if d else np.zeros((n, 1)), np.zeros(n)]
        xlabel, ylabel = "feature 0" + (" (standardised)" if standardize else ""), ""
    ax = _new_axes(ax, (5.5, 4.2))
    import matplotlib.pyplot as plt

    present = np.unique(labels)
    k_max = int(present.max()) + 1 if present.size and present.max() >= 0 else 0
    if n_clusters is None:
        n_clusters = k_max
    elif n_clusters < k_max:
        raise ValueError(f"labels go up to {k_max - 1} but n_clusters={n_clusters}")
    if names is not None and len(names) < n_clusters:
        raise ValueError(f"names has {len(names)} entries for {n_clusters} clusters")
    cmap = plt.get_cmap("tab10" if n_clusters <= 10 else "tab20")
    if (labels < 0).any():
        sel = labels < 0
        ax.scatter(Z[sel, 0], Z[sel, 1], s=12, color="0.6", label=f"unassigned (n={sel.sum()})")
    for k in range(n_clusters):
        sel = labels == k
        name = names[k] if names is not None else f"cluster {k}"
        if not sel.any():  # the empty-cluster rule: a labelled legend entry, no points
            ax.scatter([], [], s=12, facecolor="none", edgecolor="0.5",
                       label=_cluster_title(str(name), 0))  # fmt: skip
            continue
        ax.scatter(Z[sel, 0], Z[sel, 1], s=12, color=cmap(k % cmap.N),
                   label=_cluster_title(str(name), int(sel.sum())))  # fmt: skip
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8, markerscale=1.5)
    if title:
        _set_title(ax, title)
    return ax


# --------------------------------------------------------------------------------------------
# significance
# --------------------------------------------------------------------------------------------
def plot_randomization_test(
    null_values: Any,
    observed: float | None = None,
    p_value: float | None = None,
    ax: Any = None,
    *,
    statistic: str = "reconstruction error",
    bins: int | str = "auto",
    title: str | None = "Randomisation test",
) -> Any:
    """Histogram of a test statistic on randomised data with the observed value marked.

    Parameters
    ----------
    null_values : array-like of float, shape (h,), or a RandomizationTestResult
        The statistic on each randomised data set (the null distribution), or the result of
        :func:`rankclust.cluster.randomization_test` (which also gives ``observed`` and
        ``p_value``).
    observed : float
        The statistic on the real data (required unless a result object is given).
    p_value : float, optional
        Shown in the title and legend when given.
    ax : matplotlib Axes, optional
    statistic : str, default="reconstruction error"
        Axis label.
    bins : int or str, default="auto"
        Passed to ``Axes.hist``.
    title : str or None, default="Randomisation test"

    Returns
    -------
    ax : matplotlib Axes
        With the histogram bars (patches) and one vertical line at ``observed``.

    Notes
    -----
    Complexity: O(h) time and memory.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_randomization_test([10.0, 11.0, 12.0, 11.5], observed=7.0, p_value=0.2)
    >>> ax.get_title()
    'Randomisation test (p = 0.2)'
    """
    if hasattr(null_values, "null_distribution"):
        result = null_values
        null_values = result.null_distribution
        observed = result.statistic if observed is None else observed
        p_value = result.pvalue if p_value is None else p_value
    if observed is None:
        raise TypeError("observed is required when null_values is not a result object")
    null = np.asarray(null_values, dtype=np.float64).ravel()
    if null.size == 0:
        raise ValueError("null_values is empty")
    if not np.all(np.isfinite(null)):
        raise ValueError("null_values contains NaN or infinite values")
    observed = float(observed)
    ax = _new_axes(ax, (5.0, 3.5))
    ax.hist(
        null, bins=bins, color="0.7", edgecolor="0.3", label=f"randomised data (h={null.size})"
    )
    label = f"observed = {observed:.6g}"
    if p_value is not None:
        label += f", p = {p_value:.3g}"
    ax.axvline(observed, color="C3", linewidth=2, label=label)
    ax.set_xlabel(statistic)
    ax.set_ylabel("number of randomised data sets")
    ax.set_ylim(top=ax.get_ylim()[1] * 1.3)  # room for the legend above the bars
    ax.legend(fontsize=8, loc="upper right")
    if title:
        _set_title(ax, title if p_value is None else f"{title} (p = {p_value:.3g})")
    return ax


# --------------------------------------------------------------------------------------------
# goodness of fit
# --------------------------------------------------------------------------------------------
def plot_goodness_of_fit(
    result: Any, *, ncols: int | None = None, title: str | None = None
) -> Any:
    """Observed against model-expected proportions, one panel per group, with the line y = x.

    Each panel shows the first-choice shares of the items (circles, labelled with the item
    names up to 8 items) and the pairwise preference proportions ``P(a above b)`` of the
    pairs the data decide (crosses), for all rankings (``"overall"``, observed counts
    against the mixture) and for each component (responsibility-weighted counts against the
    component). Points on the diagonal are fitted exactly.

    Parameters
    ----------
    result : GoodnessOfFitResult
        From :func:`rankclust.inference.goodness_of_fit`.
    ncols : int, optional
        Panels per row; default all in one row up to 4.
    title : str, optional
        Figure title; default the model and the number of rankings.

    Returns
    -------
    fig : matplotlib Figure
        One axes per group (overall first, then the components; a single model has one).

    Notes
    -----
    Complexity: O(K m^2) time and memory.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from rankclust.models import PlackettLuce
    >>> from rankclust.inference.goodness_of_fit import goodness_of_fit
    >>> R = PlackettLuce.from_params(scores=[1.0, 0.0, -1.0]).sample(200, random_state=0)
    >>> fig = plot_goodness_of_fit(goodness_of_fit(PlackettLuce().fit(R), R))
    >>> len(fig.axes)
    1
    """
    import matplotlib.pyplot as plt

    groups = [result.overall] + (result.clusters if len(result.clusters) > 1 else [])
    ncols = min(len(groups), 4) if ncols is None else int(ncols)
    if ncols < 1:
        raise ValueError(f"ncols must be >= 1, got {ncols}")
    nrows = -(-len(groups) // ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(3.4 * ncols, 3.4 * nrows + 0.4), layout="constrained",
        squeeze=False,
    )  # fmt: skip
    names = list(result.items)
    for g, group in enumerate(groups):
        ax = axes[g // ncols, g % ncols]
        label = "all rankings vs mixture" if group.name == "overall" and len(groups) > 1 else None
        head = _cluster_title(group.name, group.size)
        _set_title(ax, f"{head}: {label}" if label else head, fontsize=9)
        if group.size == 0:
            continue
        obs_p, exp_p = group.pair_proportions()
        keep = np.isfinite(obs_p) & np.isfinite(exp_p)
        ax.scatter(exp_p[keep], obs_p[keep], marker="x", s=18, color="C0", label="pairs P(a > b)")
        if group.observed.get("first") is not None:
            o = group.observed["first"] / group.size
            e = group.expected["first"] / group.size
            ax.scatter(e, o, marker="o", s=22, facecolors="none", edgecolors="C3",
                       label="first-choice share")  # fmt: skip
            if len(names) <= 8:
                for j, name in enumerate(names):
                    ax.annotate(name, (e[j], o[j]), fontsize=7, xytext=(3, -8),
                                textcoords="offset points", color="C3")  # fmt: skip
        ax.plot([0, 1], [0, 1], color="0.5", linewidth=0.8, zorder=0)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("expected")
        if g % ncols == 0:
            ax.set_ylabel("observed")
        if g == 0:
            ax.legend(fontsize=7, loc="upper left")
    for k in range(len(groups), nrows * ncols):
        axes[k // ncols, k % ncols].remove()
    if title is None:
        title = f"{result.model}: observed vs expected (n={_fmt_size(result.n_rankings)})"
    fig.suptitle(title, fontsize=10)
    return fig


# --------------------------------------------------------------------------------------------
# uncertainty: worths with intervals, position probabilities
# --------------------------------------------------------------------------------------------
_WORTH_PARAMETERS = ("worths", "scores")


def _interval_bounds(intervals: Any, parameter: str, level: float, shape: tuple) -> np.ndarray:
    """(K, m, 2) bounds from a BootstrapResult, a MixtureStandardErrors (Wald intervals of
    the log-worths) or an array of shape (m, 2) / (K, m, 2)."""
    if hasattr(intervals, "interval") and hasattr(intervals, "replicates"):
        low, high = intervals.interval(parameter, level)
        bounds = np.stack([np.asarray(low), np.asarray(high)], axis=-1)
    elif hasattr(intervals, "scores_se") and hasattr(intervals, "intervals"):
        if parameter != "scores" or intervals.scores_se is None:
            raise ValueError(
                "standard errors give Wald intervals of the log-worths: pass parameter='scores'"
            )
        bounds = np.asarray(intervals.intervals(level)["scores"], dtype=np.float64)
    else:
        bounds = np.asarray(intervals, dtype=np.float64)
    if bounds.ndim == 2:
        bounds = bounds[None]
    if bounds.shape != (*shape, 2):
        raise ValueError(
            f"intervals must have shape {(*shape, 2)} (low, high per item and cluster), "
            f"got {bounds.shape}"
        )
    if not np.all(np.isfinite(bounds)) or np.any(bounds[..., 0] > bounds[..., 1]):
        raise ValueError("intervals must be finite with low <= high")
    return bounds


def plot_worth_intervals(
    model: Any,
    intervals: Any = None,
    items: Sequence[str] | None = None,
    ax: Any = None,
    *,
    parameter: str = "worths",
    level: float = 0.95,
    title: str | None = None,
) -> Any:
    """Worths (or log-worths) with their intervals, one colour per cluster.

    Items are on the vertical axis, best (largest mean estimate over the clusters) on top;
    each cluster draws its estimates as points with horizontal interval bars, shifted a
    little so that the clusters do not overlap.

    Parameters
    ----------
    model : fitted PlackettLuce, PlackettLuceMixture, BradleyTerry or BradleyTerryMixture
        Its ``worths_`` or ``scores_`` (shape (m,) or (K, m)) are the points.
    intervals : BootstrapResult, MixtureStandardErrors or array-like, optional
        A :func:`rankclust.inference.bootstrap` result of ``model`` (percentile intervals at
        ``level``), the :func:`rankclust.inference.mixture_standard_errors` of a mixture
        (Wald intervals at ``level``, ``parameter="scores"``), or lower and upper bounds of
        shape (m, 2) or (K, m, 2) in the units of ``parameter``, e.g.
        ``wald_intervals(model.scores_, se)`` with ``parameter="scores"``. None: the
        estimates alone (points without bars).
    items : sequence of str, optional
        Item names (default the model's ``items_`` if any, else the indices).
    ax : matplotlib Axes, optional
    parameter : {"worths", "scores"}, default="worths"
        Worths as the model reports them, or log-worths (``scores_``).
    level : float, default=0.95
        Coverage of bootstrap intervals (ignored for explicit bounds, except in the label).
    title : str, optional

    Returns
    -------
    ax : matplotlib Axes
        With one error-bar container per cluster (``ax.containers``).

    Notes
    -----
    Complexity: O(K m) time and memory.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from rankclust.models import PlackettLuce
    >>> from rankclust.inference import plackett_luce_vcov, wald_intervals
    >>> R = PlackettLuce.from_params(scores=[1.0, 0.0, -1.0]).sample(300, random_state=0)
    >>> pl = PlackettLuce().fit(R)
    >>> se = np.sqrt(np.diag(plackett_luce_vcov(R, pl.scores_)))
    >>> ax = plot_worth_intervals(pl, wald_intervals(pl.scores_, se), parameter="scores")
    >>> len(ax.containers)
    1
    """
    if parameter not in _WORTH_PARAMETERS:
        raise ValueError(f"parameter must be one of {_WORTH_PARAMETERS}, got {parameter!r}")
    values = getattr(model, f"{parameter}_", None)
    if values is None:
        raise TypeError(
            "model must be a fitted PlackettLuce, PlackettLuceMixture, BradleyTerry or "
            f"BradleyTerryMixture (with {parameter}_), got {type(model).__name__}"
        )
    est = np.atleast_2d(np.asarray(values, dtype=np.float64))
    k, m = est.shape
    bounds = None if intervals is None else _interval_bounds(intervals, parameter, level, (k, m))
    names = _item_names(items if items is not None else getattr(model, "items_", None), m)
    order = np.argsort(-est.mean(axis=0), kind="stable")  # best on top
    y = np.empty(m)
    y[order] = np.arange(m)[::-1]
    ax = _new_axes(ax, (6.0, max(2.5, 0.35 * m * max(1.0, k / 2) + 1.2)))
    step = 0.6 / max(k, 1)
    for c in range(k):
        shift = (c - (k - 1) / 2) * step
        err = None if bounds is None else np.abs(bounds[c] - est[c][:, None]).T
        ax.errorbar(est[c], y + shift, xerr=err, fmt="o", markersize=4, capsize=2,
                    color=f"C{c}", label=f"cluster {c}" if k > 1 else None)  # fmt: skip
    ax.set_yticks(np.arange(m), [names[j] for j in order[::-1]], fontsize=_label_fontsize(m))
    label = "worth" if parameter == "worths" else "log-worth (score)"
    ax.set_xlabel(label if bounds is None else f"{label} with interval")
    if k > 1:
        ax.legend(fontsize=8, loc="best")
    ax.grid(axis="x", color="0.9")
    if title is None:
        bt = type(model).__name__.startswith("BradleyTerry")
        family = "Bradley-Terry" if bt else "Plackett-Luce"
        noun = "worths" if parameter == "worths" else "log-worths"
        title = f"{family} {noun}" + ("" if bounds is None else " with intervals")
    if title:
        _set_title(ax, title)
    return ax


def plot_plackett_luce_tree(
    tree: Any,
    items: Sequence[str] | None = None,
    *,
    level: float = 0.95,
    ncols: int | None = None,
    max_items: int | None = None,
) -> Any:
    """One panel per leaf of a Plackett-Luce tree: its log-worths with Wald intervals.

    Each panel is :func:`plot_worth_intervals` of the leaf's model (``tree.node_models_``)
    with the intervals ``scores +- z * standard error`` (``tree.node_standard_errors_``);
    its title is the path of splits to the leaf (one condition per covariate, see
    ``PlackettLuceTree.node_rules``) and the leaf's weight. All panels share the
    horizontal axis, so the leaves compare at a glance.

    Parameters
    ----------
    tree : fitted PlackettLuceTree
    items : sequence of str, optional
        Item names (default the tree's ``items_`` if any, else the indices).
    level : float, default=0.95
        Coverage of the Wald intervals.
    ncols : int, optional
        Panels per row (default: up to 3).
    max_items : int, optional
        Show only the items with the largest mean log-worth over the leaves (default all).

    Returns
    -------
    fig : matplotlib Figure
        With one Axes per leaf, in leaf order (``tree.leaves_``).

    Notes
    -----
    Complexity: O(L m) time and memory for L leaves.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from rankclust.models import PlackettLuce, PlackettLuceTree
    >>> a = PlackettLuce.from_params(scores=[1.0, 0.0, -1.0]).sample(200, random_state=0)
    >>> b = PlackettLuce.from_params(scores=[-1.0, 0.0, 1.0]).sample(200, random_state=1)
    >>> X = np.r_[np.zeros(200), np.ones(200)][:, None]
    >>> tree = PlackettLuceTree().fit(Rankings(np.vstack([a.ranks, b.ranks])), X)
    >>> len(plot_plackett_luce_tree(tree).axes)
    2
    """
    import matplotlib.pyplot as plt

    from rankclust.inference import wald_intervals
    from rankclust.models import PlackettLuce

    leaves = getattr(tree, "leaves_", None)
    if leaves is None or not hasattr(tree, "node_models_"):
        raise TypeError(f"tree must be a fitted PlackettLuceTree, got {type(tree).__name__}")
    m = tree.n_items_
    names = _item_names(items if items is not None else tree.items_, m)
    keep = np.arange(m)
    if max_items is not None and max_items < m:
        mean = tree.node_scores_[leaves].mean(axis=0)
        keep = np.sort(np.argsort(-mean, kind="stable")[: int(max_items)])
    n_leaves = len(leaves)
    ncols = min(3, n_leaves) if ncols is None else max(1, min(int(ncols), n_leaves))
    nrows = -(-n_leaves // ncols)
    height = max(2.5, 0.3 * keep.size + 1.4)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(min(5.0 * ncols, _MAX_FIGSIZE[0]), min(height * nrows, _MAX_FIGSIZE[1] * 2)),
        sharex=True,
        squeeze=False,
        layout="constrained",
    )
    for ax, leaf in zip(axes.ravel(), leaves, strict=False):
        z = tree.node_scores_[leaf][keep]
        z = z - z.mean()  # (what the panel's model reports, so points and intervals agree)
        se = tree.node_standard_errors_[leaf][keep]
        rules = tree.node_rules(int(leaf), combine=True) or ["all"]
        lines = [part for rule in rules for part in textwrap.wrap(rule, 60)]
        title = "\n".join(lines) + f"\nnode {leaf}, n={_fmt_size(tree.node_weight_[leaf])}"
        plot_worth_intervals(
            PlackettLuce.from_params(scores=z),
            wald_intervals(z, se, level),
            items=[names[j] for j in keep],
            ax=ax,
            parameter="scores",
            title="",
        )
        ax.set_title(title, fontsize=8)
    for ax in axes.ravel()[n_leaves:]:
        ax.set_visible(False)
    return fig


def _position_probabilities(probabilities: Any, centers: Any) -> tuple[np.ndarray, Any]:
    """(K, m, m) checked probabilities and the centres (a result's own by default)."""
    if hasattr(probabilities, "position_probabilities"):
        if centers is None:
            centers = probabilities.centers
        probabilities = probabilities.position_probabilities
    P = np.asarray(probabilities, dtype=np.float64)
    if P.ndim == 2:
        P = P[None]
    if P.ndim != 3 or P.shape[1] != P.shape[2]:
        raise ValueError(f"probabilities must have shape (K, m, m), got {np.shape(probabilities)}")
    if np.any(~np.isfinite(P)) or P.min() < 0 or P.max() > 1 + 1e-9:
        raise ValueError("probabilities must lie in [0, 1]")
    if not np.allclose(P.sum(axis=2), 1.0, atol=1e-6):
        raise ValueError("each item's position probabilities must sum to 1")
    return P, centers


def plot_position_probabilities(
    probabilities: Any,
    items: Sequence[str] | None = None,
    *,
    centers: Any = None,
    ncols: int | None = None,
    annotate: bool | None = None,
    title: str | None = "Position of each item in the central ranking",
) -> Any:
    """Heat map per cluster: the probability that the central ranking puts item j at position p.

    Parameters
    ----------
    probabilities : BootstrapResult or array-like of shape (m, m) or (K, m, m)
        ``P[k, j, p]``, rows summing to 1: the share of bootstrap replicates in which the
        central (modal) ranking of cluster k puts item j at position p
        (:attr:`BootstrapResult.position_probabilities`, the uncertainty of the reported
        centre, not the spread of the ballots). A result also gives the centres.
    items : sequence of str, optional
    centers : Rankings or array-like of shape (K, m), optional
        The reported centres: each panel lists the items in the order of its centre.
        Default: a result's fitted centres, else the order of the most probable position.
    ncols : int, optional
        Panels per row (default all in one row up to 4).
    annotate : bool, optional
        Print the probabilities in the cells (default for m <= 10).
    title : str or None

    Returns
    -------
    fig : matplotlib Figure
        One heat map per cluster (``fig.axes`` also holds one colour bar).

    Notes
    -----
    Complexity: O(K m^2) time and memory.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> fig = plot_position_probabilities(np.eye(3), items=["a", "b", "c"])
    >>> len(fig.axes)  # one panel and its colour bar
    2
    """
    import matplotlib.pyplot as plt

    P, centers = _position_probabilities(probabilities, centers)
    k, m, _ = P.shape
    names = _item_names(items, m, centers)
    pos = _as_positions(centers) if centers is not None else None
    if pos is not None and pos.shape != (k, m):
        raise ValueError(f"centers must have shape {(k, m)}, got {pos.shape}")
    ncols = min(k, 4) if ncols is None else int(ncols)
    if ncols < 1:
        raise ValueError(f"ncols must be >= 1, got {ncols}")
    nrows = -(-k // ncols)
    side = max(2.8, 0.4 * m + 1.6)
    fig, axes = plt.subplots(nrows, ncols, figsize=(min(side * ncols + 1.0, _MAX_FIGSIZE[0]),
                             min(side * nrows + 0.5, _MAX_FIGSIZE[1])), layout="constrained",
                             squeeze=False)  # fmt: skip
    annotate = m <= 10 if annotate is None else annotate
    image = None
    for c in range(k):
        ax = axes[c // ncols, c % ncols]
        key = pos[c] if pos is not None else P[c] @ np.arange(m)
        order = np.argsort(key, kind="stable")
        Q = P[c][order]
        image = ax.imshow(Q, cmap="Blues", vmin=0.0, vmax=1.0, interpolation="nearest")
        ax.set_xticks(np.arange(m), [str(p + 1) for p in range(m)], fontsize=_label_fontsize(m))
        ax.set_yticks(np.arange(m), [names[j] for j in order], fontsize=_label_fontsize(m))
        ax.set_xlabel("position")
        _set_title(ax, f"cluster {c}" if k > 1 else "central ranking", fontsize=9)
        if annotate:
            for u in range(m):
                for p in range(m):
                    if Q[u, p] >= 0.005:
                        ax.text(p, u, f"{Q[u, p]:.2f}", ha="center", va="center", fontsize=7,
                                color="white" if Q[u, p] > 0.6 else "black")  # fmt: skip
    for c in range(k, nrows * ncols):
        axes[c // ncols, c % ncols].remove()
    fig.colorbar(image, ax=axes[:, -1].tolist(), label="probability", shrink=0.8)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
