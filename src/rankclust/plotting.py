"""Figures people look at: central rankings, pairwise preferences, model selection, clusters.

Every function draws on a matplotlib ``Axes`` (a new figure when ``ax`` is None) and returns
what it drew on, so figures can be combined, restyled and saved by the caller::

    ax = plot_central_rankings(model.centers_)
    ax.figure.savefig("centers.png", dpi=150)

The functions hold no mathematics beyond arranging numbers for display: the quantities shown
(central rankings, pairwise counts, information criteria, null distributions) come from the
estimators. Positions follow the rank-matrix convention of :mod:`rankclust.rankings`
(``center[j]`` is the 0-based position of item ``j``; ``-1`` absent); the figures print them
1-based, as people read rankings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankclust.rankings import Rankings

__all__ = [
    "plot_bic",
    "plot_central_rankings",
    "plot_feature_clusters",
    "plot_pairwise_matrices",
    "plot_pairwise_matrix",
    "plot_randomization_test",
]

#: Column names accepted for the number of clusters in :func:`plot_bic` tables.
_K_COLUMNS = ("k", "n_clusters", "n_components")
#: Criteria drawn by :func:`plot_bic`, in drawing order.
_CRITERIA = ("bic", "icl", "aic")


#: Largest default figure, in inches: figures of many items stay printable.
_MAX_FIGSIZE = (20.0, 14.0)


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
    centers : Rankings or array-like of int, shape (K, m) or (m,)
        Central rankings as position vectors (``centers[k, j]`` = 0-based position of item
        ``j`` in cluster ``k``), e.g. a fitted clusterer's ``centers_``.
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
        Shown in the row labels (``"cluster 0 (n=120)"``).
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
    pos = _as_positions(centers)
    n_clusters, m = pos.shape
    names = _item_names(items, m, centers)
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
    if cluster_sizes is not None:
        sizes = list(cluster_sizes)
        if len(sizes) != n_clusters:
            raise ValueError(f"cluster_sizes has {len(sizes)} entries for {n_clusters} clusters")
        rows = [f"{r} (n={_fmt_size(s)})" for r, s in zip(rows, sizes, strict=True)]
    ax.set_yticks(np.arange(n_clusters), rows)
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
        ax.set_title(title)
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


def plot_pairwise_matrix(
    C: Any,
    items: Sequence[str] | None = None,
    ax: Any = None,
    *,
    annotate: bool | None = None,
    colorbar: bool = True,
    title: str | None = "Pairwise preferences",
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
    ax = _new_axes(ax, (max(3.5, 0.45 * m + 2.0), max(3.0, 0.45 * m + 1.5)))
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("RdBu_r").with_extremes(bad="#dddddd")
    im = ax.imshow(np.ma.masked_invalid(P), cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
    rot = _tick_rotation(names)
    ax.set_xticks(np.arange(m), names, rotation=rot, ha="right" if rot else "center")
    ax.set_yticks(np.arange(m), names)
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
        ax.set_title(title)
    return ax


def plot_pairwise_matrices(
    C: Any,
    items: Sequence[str] | None = None,
    *,
    titles: Sequence[str] | None = None,
) -> Any:
    """One :func:`plot_pairwise_matrix` panel per cluster, side by side.

    Parameters
    ----------
    C : array-like of float, shape (K, m, m)
        Per-cluster pairwise counts, e.g. ``R.pairwise_counts(labels=model.labels_)``.
    items : sequence of str, optional
    titles : sequence of str, shape (K,), optional
        Panel titles; default ``"cluster k"``.

    Returns
    -------
    fig : matplotlib Figure
        With K axes holding one image each (plus one colour bar).

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
    if titles is None:
        titles = [f"cluster {k}" for k in range(n_clusters)]
    if len(titles) != n_clusters:
        raise ValueError(f"titles has {len(titles)} entries for {n_clusters} clusters")
    size = max(3.0, 0.4 * m + 1.5)
    fig, axes = plt.subplots(
        1,
        max(n_clusters, 1),
        figsize=(
            min(size * max(n_clusters, 1) + 1.0, _MAX_FIGSIZE[0]),
            min(size, _MAX_FIGSIZE[1]),
        ),
        layout="constrained",
        squeeze=False,
    )
    for k in range(n_clusters):
        plot_pairwise_matrix(
            C[k], items, ax=axes[0, k], colorbar=False, title=titles[k], annotate=m <= 8
        )
        if k > 0:
            axes[0, k].set_ylabel("")
    if n_clusters:
        fig.colorbar(
            axes[0, 0].get_images()[0], ax=axes[0, :].tolist(), label="P(row above column)"
        )
    return fig


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
) -> Any:
    """Information criteria against the number of clusters K; the minimum of each is starred.

    Parameters
    ----------
    table : mapping, sequence of mappings, or DataFrame
        Columns (case-insensitive) ``k`` (or ``n_clusters``/``n_components``) and at least one
        of ``bic``, ``icl``, ``aic`` (lower is better), e.g.
        ``{"k": [1, 2, 3], "bic": [...], "icl": [...]}`` or
        ``[{"k": 1, "bic": ...}, {"k": 2, "bic": ...}]``.
    ax : matplotlib Axes, optional
    criteria : sequence of str, optional
        Columns to draw (lower is better), e.g. ``["objective"]`` for a k-means elbow plot;
        default every one of ``bic``, ``icl``, ``aic`` present.
    title : str or None, default="Model selection"

    Returns
    -------
    ax : matplotlib Axes
        One line per criterion, labelled with its upper-case name.

    Notes
    -----
    Complexity: O(number of K values).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_bic({"k": [1, 2, 3], "bic": [30.0, 20.0, 25.0], "aic": [28.0, 15.0, 14.0]})
    >>> [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    ['BIC', 'AIC']
    """
    cols = _table_columns(table)
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
    ks = cols[kcol]
    order = np.argsort(ks, kind="stable")
    ks = ks[order]
    ax = _new_axes(ax, (5.0, 3.5))
    markers = {"bic": "o", "icl": "s", "aic": "^"}
    for name in crits:
        values = cols[name][order]
        if len(values) != len(ks):
            raise ValueError(f"column {name!r} has {len(values)} values for {len(ks)} K values")
        (line,) = ax.plot(ks, values, marker=markers.get(name, "o"), label=name.upper())
        finite = np.isfinite(values)
        if finite.any():
            best = int(np.flatnonzero(finite)[np.argmin(values[finite])])
            ax.plot(
                ks[best],
                values[best],
                marker="*",
                markersize=16,
                color=line.get_color(),
                linestyle="none",
                label="_best_" + name,
            )
    ax.set_xticks(ks)
    ax.set_xlabel("number of clusters K")
    ax.set_ylabel("criterion (lower is better)")
    ax.legend()
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title)
    return ax


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
) -> Any:
    """Points on their first two principal components, coloured by cluster.

    Parameters
    ----------
    X : array-like of float, shape (n, d)
        Features; standardised is usually best. With ``d == 1`` the feature itself is the
        horizontal axis.
    labels : array-like of int, shape (n,)
        Cluster of each point (e.g. ``model.labels_``); negative labels are drawn grey as
        "unassigned".
    ax : matplotlib Axes, optional
    random_state : int or None, default=0
        Passed to :class:`sklearn.decomposition.PCA` (its randomised solver on large data).
    names : sequence of str, optional
        Legend name of each label value ``k`` (``names[k]``), e.g. label names when the
        points are coloured by their predicted top label; default ``"cluster k"``.
    title : str or None, default="Clusters in feature space"

    Returns
    -------
    ax : matplotlib Axes
        One scatter collection per cluster, with a legend ``cluster k (n)``.

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
    labels = np.asarray(labels)
    if labels.shape != (X.shape[0],):
        raise ValueError(f"labels must have shape ({X.shape[0]},), got {labels.shape}")
    n, d = X.shape
    if d >= 2 and n >= 2:
        pca = PCA(n_components=2, random_state=random_state)
        Z = pca.fit_transform(X)
        ratio = pca.explained_variance_ratio_
        xlabel = f"PC1 ({100 * ratio[0]:.0f}% of variance)"
        ylabel = f"PC2 ({100 * ratio[1]:.0f}% of variance)"
    else:
        Z = np.c_[X[:, :1] if d else np.zeros((n, 1)), np.zeros(n)]
        xlabel, ylabel = "feature 0", ""
    ax = _new_axes(ax, (5.0, 4.0))
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("tab10" if len(np.unique(labels)) <= 10 else "tab20")
    for idx, k in enumerate(np.unique(labels)):
        sel = labels == k
        if k < 0:
            ax.scatter(Z[sel, 0], Z[sel, 1], s=12, color="0.6", label=f"unassigned ({sel.sum()})")
        else:
            name = names[k] if names is not None else f"cluster {k}"
            ax.scatter(
                Z[sel, 0], Z[sel, 1], s=12, color=cmap(idx % cmap.N), label=f"{name} ({sel.sum()})"
            )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8, markerscale=1.5)
    if title:
        ax.set_title(title)
    return ax


# --------------------------------------------------------------------------------------------
# significance
# --------------------------------------------------------------------------------------------
def plot_randomization_test(
    null_values: Any,
    observed: float,
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
    null_values : array-like of float, shape (h,)
        The statistic on each randomised data set (the null distribution).
    observed : float
        The statistic on the real data.
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
    label = f"observed = {observed:.4g}"
    if p_value is not None:
        label += f", p = {p_value:.3g}"
    ax.axvline(observed, color="C3", linewidth=2, label=label)
    ax.set_xlabel(statistic)
    ax.set_ylabel("number of randomised data sets")
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title if p_value is None else f"{title} (p = {p_value:.3g})")
    return ax
