"""pandas in and out for :class:`rankclust.Rankings` (private; pandas is imported lazily).

The public entry points are :meth:`Rankings.from_dataframe`, :meth:`Rankings.to_dataframe`
and the DataFrame paths of :meth:`Rankings.from_ranks` and :meth:`Rankings.from_orderings`;
pandas itself is imported only when one of them meets a DataFrame, so the core works without
pandas installed (:func:`is_dataframe` recognises one without importing pandas). One convention: integer labels ``0..m-1`` (in that order) mean *unnamed*
items, anything else is a name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Key of ``DataFrame.attrs`` that carries ``Rankings.kind`` through a round trip.
KIND_ATTR = "rankclust_kind"


def is_dataframe(obj: Any) -> bool:
    """True for a pandas DataFrame, without importing pandas."""
    return type(obj).__name__ == "DataFrame" and type(obj).__module__.startswith("pandas")


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - only without the extra
        raise ImportError(
            "DataFrame input and output need pandas: pip install 'rankclust[pandas]'"
        ) from None
    return pd


def _show(value: Any) -> str:
    """repr of a cell without numpy's type wrapper (``1``, not ``np.int64(1)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _check_frame(df: Any) -> Any:
    pd = _pandas()
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    return pd


def _names(labels: Sequence[Any]) -> tuple[str, ...] | None:
    """Item names from column labels or categories; None for the default ``0..m-1``."""
    labels = list(labels)
    if all(
        isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_) for x in labels
    ) and [int(x) for x in labels] == list(range(len(labels))):
        return None
    return tuple(str(x) for x in labels)


def _numeric_column(pd: Any, series: Any, name: Any) -> np.ndarray:
    """A column as float64 with NaN for missing; a clear error naming a non-numeric cell."""
    if pd.api.types.is_bool_dtype(series.dtype):
        raise ValueError(f"column {name!r} holds booleans, expected 1-based ranks")
    if not pd.api.types.is_numeric_dtype(series.dtype):
        converted = pd.to_numeric(series, errors="coerce")
        bad = converted.isna().to_numpy() & series.notna().to_numpy()
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"row {r}: column {name!r} holds {_show(series.iloc[r])}, expected a 1-based rank"
            )
        series = converted
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def dataframe_rank_matrix(df: Any) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """(n, m) float ranks (NaN missing) of a wide DataFrame, and its item names."""
    pd = _check_frame(df)
    if df.columns.has_duplicates:
        dup = df.columns[df.columns.duplicated()][0]
        raise ValueError(f"column {dup!r} appears more than once")
    cols = [_numeric_column(pd, df.iloc[:, j], c) for j, c in enumerate(df.columns)]
    arr = np.column_stack(cols) if cols else np.empty((len(df), 0))
    return arr, _names(df.columns)


def dataframe_orderings(df: Any) -> list[list[Any]]:
    """Rows of a DataFrame of orderings (column p = position p) as lists, missing cells dropped.

    A missing cell may only trail the present ones (a shorter ordering).
    """
    pd = _check_frame(df)
    values = df.to_numpy(dtype=object)
    missing = pd.isna(df).to_numpy()
    out = []
    for i in range(values.shape[0]):
        row_missing = missing[i]
        length = int((~row_missing).sum())
        if row_missing[:length].any():
            p = int(np.flatnonzero(row_missing)[0])
            raise ValueError(
                f"row {i}: position {p} is missing but a later one is not "
                "(missing cells may only end a shorter ordering)"
            )
        out.append(values[i, :length].tolist())
    return out


def rankings_from_dataframe(
    cls: Any,
    df: Any,
    layout: str,
    *,
    kind: str | None,
    items: Sequence[str] | None,
    respondent: str,
    item: str,
    rank: str,
    weight: str | None,
) -> Any:
    """See :meth:`rankclust.Rankings.from_dataframe`."""
    pd = _check_frame(df)
    if layout not in ("wide", "long"):
        raise ValueError(f"layout must be 'wide' or 'long', got {layout!r}")
    if kind is None:
        kind = df.attrs.get(KIND_ATTR, "subset")
    if layout == "wide":
        weights = None
        if weight is not None and weight in df.columns:
            weights = _numeric_column(pd, df[weight], weight)
            df = df.drop(columns=[weight])
        return cls.from_ranks(df, kind=kind, weights=weights, items=items)

    for col in (respondent, item, rank):
        if col not in df.columns:
            raise ValueError(
                f"the long layout needs a column {col!r} (columns: {list(df.columns)}); "
                "name it with respondent=, item=, rank="
            )
    resp_codes, _ = pd.factorize(df[respondent], sort=False)
    if (resp_codes < 0).any():
        r = int(np.flatnonzero(resp_codes < 0)[0])
        raise ValueError(f"row {r}: the {respondent!r} column is missing")
    n = int(resp_codes.max()) + 1 if len(resp_codes) else 0
    item_codes, out_names, m = _long_item_codes(pd, df[item], items, item)
    ranks = _numeric_column(pd, df[rank], rank)
    placeholder = item_codes < 0
    if (placeholder & ~np.isnan(ranks)).any():
        r = int(np.flatnonzero(placeholder & ~np.isnan(ranks))[0])
        raise ValueError(f"row {r}: a rank is given but the {item!r} column is missing")
    keep = ~placeholder
    _check_long_duplicates(df, resp_codes, item_codes, keep, m, respondent, item)
    matrix = np.full((n, m), np.nan)
    matrix[resp_codes[keep], item_codes[keep]] = ranks[keep]
    weights = None
    if weight is not None and weight in df.columns:
        weights = _long_weights(pd, df, resp_codes, n, respondent, weight)
    return cls.from_ranks(matrix, kind=kind, weights=weights, items=out_names)


def _long_item_codes(
    pd: Any, item_col: Any, items: Sequence[str] | None, item: str
) -> tuple[np.ndarray, tuple[str, ...] | None, int]:
    """Item index of every row of a long frame (-1 where the item is missing), the item
    names and their number ``m``: the given ``items``, the categories of a categorical
    column, else the sorted distinct values."""
    item_missing = item_col.isna().to_numpy()
    item_codes = np.full(len(item_col), -1, dtype=np.int64)
    if items is not None:
        names = tuple(str(x) for x in items)
        lookup = {x: j for j, x in enumerate(names)}
        for r, value in enumerate(item_col.tolist()):
            if not item_missing[r]:
                key = str(value)
                if key not in lookup:
                    raise ValueError(
                        f"row {r}: item {_show(value)} is not one of the {len(names)} items"
                    )
                item_codes[r] = lookup[key]
        return item_codes, names, len(names)
    if isinstance(item_col.dtype, pd.CategoricalDtype):
        labels = list(item_col.cat.categories)
        item_codes = item_col.cat.codes.to_numpy().astype(np.int64)
    else:
        present = item_col[~item_missing]
        uniq = list(pd.unique(present))
        try:
            labels = sorted(uniq)
        except TypeError:
            labels = sorted(uniq, key=str)
        lookup_any = {v: j for j, v in enumerate(labels)}
        item_codes[~item_missing] = [lookup_any[v] for v in present.tolist()]
    if len({str(x) for x in labels}) != len(labels):
        raise ValueError(f"two items of column {item!r} have the same name as text")
    return item_codes, _names(labels), len(labels)


def _check_long_duplicates(
    df: Any,
    resp_codes: np.ndarray,
    item_codes: np.ndarray,
    keep: np.ndarray,
    m: int,
    respondent: str,
    item: str,
) -> None:
    """A clear error naming the second row where a respondent ranks an item again."""
    key = resp_codes[keep].astype(np.int64) * max(m, 1) + item_codes[keep]
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    if (counts > 1).any():
        rows = np.flatnonzero(keep)
        dup_key = key[first[np.flatnonzero(counts > 1)[0]]]
        r = int(rows[np.flatnonzero(key == dup_key)[1]])
        raise ValueError(
            f"row {r}: respondent {_show(df[respondent].iloc[r])} ranks item "
            f"{_show(df[item].iloc[r])} more than once"
        )


def _long_weights(
    pd: Any, df: Any, resp_codes: np.ndarray, n: int, respondent: str, weight: str
) -> np.ndarray:
    """One weight per respondent from the ``weight`` column of a long frame (each of its
    rows must repeat the first one's)."""
    w = _numeric_column(pd, df[weight], weight)
    per = np.full(n, np.nan)
    first_row = np.unique(resp_codes, return_index=True)[1]
    per[resp_codes[first_row]] = w[first_row]
    varies = ~((w == per[resp_codes]) | (np.isnan(w) & np.isnan(per[resp_codes])))
    if varies.any():
        r = int(np.flatnonzero(varies)[0])
        raise ValueError(
            f"row {r}: the {weight!r} of respondent {_show(df[respondent].iloc[r])} differs "
            "from its first row (one weight per ranking)"
        )
    return per


def rankings_to_dataframe(
    R: Any,
    layout: str,
    *,
    index: Any,
    respondent: str,
    item: str,
    rank: str,
    weight: str,
) -> Any:
    """See :meth:`rankclust.Rankings.to_dataframe`."""
    pd = _pandas()
    if layout not in ("wide", "long"):
        raise ValueError(f"layout must be 'wide' or 'long', got {layout!r}")
    n, m = R.shape
    labels = list(R.items) if R.items is not None else list(range(m))
    if index is not None:
        index = np.asarray(index)
        if index.shape != (n,):
            raise ValueError(f"index must have shape ({n},), got {index.shape}")
    ranks = R.to_ranks().astype(np.int64)  # frames keep int64 columns (compact storage aside)
    if layout == "wide":
        if R.is_weighted and weight in labels:
            raise ValueError(f"an item is named {weight!r}: pass weight=<another column name>")
        df = pd.DataFrame(ranks, columns=labels, index=index)
        if (ranks == 0).any():
            df = df.astype("Int64").mask(ranks == 0)
        if R.is_weighted:
            df[weight] = R.weights
    else:
        names = [respondent, item, rank] + ([weight] if R.is_weighted else [])
        if len(set(names)) != len(names):
            raise ValueError(f"column names must differ, got {names}")
        if index is not None and len(pd.unique(index)) != n:
            raise ValueError("index must not repeat a value in the long layout")
        rows, cols = np.nonzero(ranks > 0)
        empty = np.flatnonzero(R.lengths == 0)
        rows = np.concatenate([rows, empty])
        cols = np.concatenate([cols, np.full(len(empty), -1, dtype=cols.dtype)])
        order = np.argsort(rows, kind="stable")
        rows, cols = rows[order], cols[order]
        values = np.where(cols >= 0, ranks[rows, np.maximum(cols, 0)], 0)
        ids = index[rows] if index is not None else rows
        df = pd.DataFrame(
            {
                respondent: ids,
                item: pd.Categorical.from_codes(cols, categories=labels),
                rank: pd.array(values, dtype="Int64"),
            }
        )
        df.loc[cols < 0, rank] = pd.NA
        if R.is_weighted:
            df[weight] = R.weights[rows]
    df.attrs[KIND_ATTR] = R.kind
    return df
