"""Readers for Kamishima's SUSHI preference data (version "sushi3").

The data may not be redistributed (see ``README-en.txt`` of the data set): rankclust never
ships them. Download ``sushi3-2016.zip`` from http://www.kamishima.net/sushi/ and read the
files with these functions, or put them in the data home and use
:func:`rankclust.datasets.fetch_sushi`.

Files (format from the data set's ``README-en.txt``):

* ``sushi3a.5000.10.order`` / ``sushi3b.5000.10.order`` -- header ``<n_items> 1``, then one
  line per user ``0 <length> <item> ... <item>``, items (0-based IDs) most preferred first.
  Set A: complete orders of 10 items. Set B: each user orders 10 of the 100 items.
* ``sushi3.udata`` -- one TAB-separated row of user features per user (same order as the
  ``.order`` files): user ID, then the columns of :data:`SUSHI_USER_FEATURES`.
* ``sushi3.idata`` -- one TAB-separated row per item of set B: item ID, Japanese name, then the
  columns of :data:`SUSHI_ITEM_FEATURES`.

Reference: T. Kamishima, "Nantonac Collaborative Filtering: Recommendation Based on Order
Responses", KDD 2003, pp. 583-588.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rankclust._limits import InputLimits
from rankclust.io._common import (
    DataFormatError,
    PathOrFile,
    _Budget,
    _iter_lines,
    _Problems,
    _source_name,
)
from rankclust.rankings import KINDS, Rankings, rank_dtype

__all__ = [
    "SUSHI_ITEM_FEATURES",
    "SUSHI_USER_FEATURES",
    "read_sushi_idata",
    "read_sushi_order",
    "read_sushi_udata",
]

#: Columns of ``X`` returned by :func:`read_sushi_udata` (after the user ID), as documented in
#: the data set's README: gender (0 male, 1 female); age class (0: 15-19, 1: 20-29, 2: 30-39,
#: 3: 40-49, 4: 50-59, 5: 60-); total time to fill in the questionnaire; prefecture, region and
#: east/west (0 east, 1 west) where the user lived longest until age 15; the same three where
#: the user lives now; 0 if the two prefectures are equal, 1 otherwise.
SUSHI_USER_FEATURES = (
    "gender",
    "age",
    "time",
    "prefecture_until_15",
    "region_until_15",
    "east_west_until_15",
    "prefecture_now",
    "region_now",
    "east_west_now",
    "moved",
)

#: Columns of ``X`` returned by :func:`read_sushi_idata` (after the ID and Japanese name): style
#: (0 maki, 1 otherwise), major group (0 seafood, 1 otherwise), minor group (0-11),
#: heaviness/oiliness (0-4, 0 heavy), how often the users eat it (0-3, 3 often), normalised
#: price, how often it is sold in sushi shops (0-1, 1 most often). The first three are
#: categorical.
SUSHI_ITEM_FEATURES = (
    "style",
    "major_group",
    "minor_group",
    "heaviness",
    "frequency_eaten",
    "price",
    "frequency_sold",
)


def _ints(tokens: Sequence[str]) -> list[int] | None:
    """The tokens as non-negative integers (of at most 18 digits), None if one is not."""
    out = []
    for t in tokens:
        if not (t.isdigit() and t.isascii()) or len(t.lstrip("0")) > 18:
            return None
        out.append(int(t))
    return out


def read_sushi_order(
    path_or_file: PathOrFile,
    *,
    kind: str = "subset",
    items: Sequence[str] | None = None,
    strict: bool = True,
    encoding: str = "utf-8",
    limits: InputLimits | Mapping[str, int] | None = None,
) -> Rankings:
    """Read a SUSHI ``.order`` file (``sushi3a.5000.10.order`` or ``sushi3b.5000.10.order``).

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
    kind : {"subset", "top"}, default="subset"
        Set B shows each user 10 of 100 items, so the other 90 are unknown: ``"subset"``
        (DESIGN.md section 1). Set A orders all 10 items, where kind does not matter.
    items : sequence of str, optional
        Item names, one per item ID (the header's number of items).
    strict : bool, default=True
        If True, a malformed line raises :class:`~rankclust.io.DataFormatError` (a
        ``ValueError``) naming the line; if False it is skipped and reported in one
        :class:`~rankclust.io.MalformedLinesWarning`.
    encoding : str, default="utf-8"
    limits : InputLimits or mapping of str to int, optional
        Override the input limits (bytes read, rows, items, rows x items); default:
        :class:`~rankclust.io.InputLimits` with the ``RANKCLUST_MAX_*`` environment variables.

    Returns
    -------
    R : Rankings, shape (n_users, n_items)
        Row i is the order of user i (line i + 2 of the file).

    Raises
    ------
    DataFormatError
        A header that is not ``<n_items> 1``; a line whose length field disagrees with its
        number of items, with a non-integer token (or one of more than 18 digits), an item
        out of range or repeated; always, before allocating: a file beyond one of the
        ``limits``.

    Notes
    -----
    Complexity: O(n l) time for n users with orders of length l, O(n m) memory.

    Examples
    --------
    >>> import io
    >>> R = read_sushi_order(io.StringIO("4 1\\n0 2 3 1\\n0 3 0 1 2\\n"))
    >>> R.ranks
    array([[-1,  1, -1,  0],
           [ 0,  1,  2, -1]], dtype=int8)
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    source = _source_name(path_or_file)
    problems = _Problems(source, strict)
    budget = _Budget(source, limits)
    m: int | None = None
    orders: list[list[int]] = []
    for lineno, text in _iter_lines(path_or_file, encoding, problems, budget.limits):
        tokens = text.split()
        if m is None:
            vals = _ints(tokens)
            if vals is None or len(vals) != 2:
                raise DataFormatError(
                    source, lineno, f"expected the header '<n_items> 1', got {text[:60]!r}"
                )
            m = vals[0]
            budget.items(m, lineno, "declares")
            continue
        if not tokens:
            continue
        vals = _ints(tokens)
        if vals is None:
            problems.bad(lineno, text, "a token is not a non-negative integer")
            continue
        if len(vals) < 2 or len(vals) != 2 + vals[1]:
            got = max(len(vals) - 2, 0)
            declared = vals[1] if len(vals) >= 2 else "no"
            problems.bad(lineno, text, f"declares {declared} items but lists {got}")
            continue
        order = vals[2:]
        if order and max(order) >= m:
            problems.bad(lineno, text, f"item {max(order)} is out of range 0..{m - 1}")
            continue
        if len(set(order)) != len(order):
            problems.bad(lineno, text, "an item appears more than once")
            continue
        orders.append(order)
        budget.rows(len(orders), lineno)
    if m is None:
        raise DataFormatError(source, None, "empty file (no '<n_items> 1' header)")
    problems.warn(stacklevel=2)
    budget.cells(len(orders), m, 1, "declares")  # before allocating
    # positions < len(order) <= m (distinct items): the compact rank type holds them
    ranks = np.full((len(orders), m), -1, dtype=rank_dtype(m))
    for i, order in enumerate(orders):
        ranks[i, order] = np.arange(len(order))
    return Rankings(ranks, kind=kind, items=items)


def _read_table(
    path_or_file: PathOrFile,
    n_cols: int,
    problems: _Problems,
    encoding: str,
    what: str,
    limits: InputLimits | Mapping[str, int] | None,
) -> tuple[list[int], list[list[str]]]:
    budget = _Budget(problems.source, limits)
    linenos: list[int] = []
    rows: list[list[str]] = []
    for lineno, text in _iter_lines(path_or_file, encoding, problems, budget.limits):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        fields = text.split("\t")
        if len(fields) != n_cols:
            problems.bad(lineno, text, f"{len(fields)} TAB-separated fields, expected {n_cols}")
            continue
        rows.append(fields)
        linenos.append(lineno)
        budget.rows(len(rows), lineno)
    if not rows and not problems.skipped:
        raise DataFormatError(problems.source, None, f"no {what} rows")
    return linenos, rows


def read_sushi_udata(
    path_or_file: PathOrFile,
    *,
    strict: bool = True,
    encoding: str = "utf-8",
    limits: InputLimits | Mapping[str, int] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Read ``sushi3.udata``: user IDs and user features.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
    strict : bool, default=True
        Raise on a malformed line (naming it) or, if False, skip and report it.
    encoding : str, default="utf-8"
    limits : InputLimits or mapping of str to int, optional
        Override the input limits (bytes read, rows); see :class:`~rankclust.io.InputLimits`.

    Returns
    -------
    user_ids : ndarray of int64, shape (n_users,)
    X : ndarray of int64, shape (n_users, 10)
        The columns of :data:`SUSHI_USER_FEATURES` (categorical codes and a time).

    Notes
    -----
    Complexity: O(n) time and memory.

    Examples
    --------
    >>> import io
    >>> ids, X = read_sushi_udata(io.StringIO("7\\t0\\t2\\t355\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\n"))
    >>> ids, X.shape
    (array([7]), (1, 10))
    """
    source = _source_name(path_or_file)
    problems = _Problems(source, strict)
    linenos, rows = _read_table(path_or_file, 11, problems, encoding, "user", limits)
    out = []
    for lineno, fields in zip(linenos, rows, strict=True):
        vals = _ints([f.strip() for f in fields])
        if vals is None:
            problems.bad(lineno, "\t".join(fields), "a field is not a non-negative integer")
            continue
        out.append(vals)
    problems.warn(stacklevel=2)
    arr = np.array(out, dtype=np.int64).reshape(len(out), 11)
    return arr[:, 0].copy(), np.ascontiguousarray(arr[:, 1:])


def read_sushi_idata(
    path_or_file: PathOrFile,
    *,
    strict: bool = True,
    encoding: str = "utf-8",
    limits: InputLimits | Mapping[str, int] | None = None,
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Read ``sushi3.idata``: IDs, Japanese names and features of the 100 items of set B.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
    strict : bool, default=True
        Raise on a malformed line (naming it) or, if False, skip and report it. Item IDs
        must be ``0, 1, 2, ...`` in file order.
    encoding : str, default="utf-8"
    limits : InputLimits or mapping of str to int, optional
        Override the input limits (bytes read, rows); see :class:`~rankclust.io.InputLimits`.

    Returns
    -------
    item_ids : ndarray of int64, shape (n_items,)
        The IDs of the items read (``0..99`` for the full file).
    names : list of str, length n_items
        The item names as given (Japanese, UTF-8).
    X : ndarray of float64, shape (n_items, 7)
        The columns of :data:`SUSHI_ITEM_FEATURES`.

    Notes
    -----
    Complexity: O(m) time and memory.
    """
    source = _source_name(path_or_file)
    problems = _Problems(source, strict)
    linenos, rows = _read_table(path_or_file, 9, problems, encoding, "item", limits)
    ids, names, feats = [], [], []
    for k, (lineno, fields) in enumerate(zip(linenos, rows, strict=True)):
        text = "\t".join(fields)
        ident = _ints([fields[0].strip()])
        if ident is None or ident[0] != k:
            problems.bad(lineno, text, f"item ID {fields[0]!r} is not {k} (IDs must count up)")
            continue
        try:
            vals = [float(f) for f in fields[2:]]
        except ValueError:
            problems.bad(lineno, text, "a feature is not a number")
            continue
        ids.append(k)
        names.append(fields[1])
        feats.append(vals)
    problems.warn(stacklevel=2)
    return (
        np.array(ids, dtype=np.int64),
        names,
        np.array(feats, dtype=np.float64).reshape(len(feats), 7),
    )
