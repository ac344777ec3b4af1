"""A rectangular CSV of numbers (features, index pairs), decoded as every other reader."""

from __future__ import annotations

import csv
from collections.abc import Mapping

import numpy as np

from rankclust._limits import InputLimits
from rankclust.io._common import DataFormatError, PathOrFile, _Budget, _source_name, _split_lines
from rankclust.io._text import decode

__all__ = ["read_numeric_csv"]


def _is_number(token: str) -> bool:
    if not token.isascii():
        return False
    try:
        float(token)
    except ValueError:
        return False
    return True


def read_numeric_csv(
    path_or_file: PathOrFile,
    *,
    what: str = "values",
    integer: bool = False,
    encoding: str | None = None,
    limits: InputLimits | Mapping[str, int] | None = None,
    return_header: bool = False,
) -> np.ndarray | tuple[np.ndarray, list[str] | None]:
    """A comma-separated table of finite numbers (an optional header line) as a 2-d array.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
        Plain or gzip-compressed; text decoded as in :func:`rankclust.io.read_rankings`.
    what : str, default="values"
        What the numbers are, for messages ("features", "pairs").
    integer : bool, default=False
        Require whole numbers and return int64.
    encoding : str, optional
    limits : InputLimits or mapping of str to int, optional
    return_header : bool, default=False
        Also return the header line's fields (None when the file has no header).

    Returns
    -------
    ndarray of shape (n_rows, n_columns)
        With ``return_header=True``: ``(array, names)``.

    Raises
    ------
    DataFormatError
        Naming the line: a non-number, a NaN or infinite value, a row of another width, a
        non-integer (``integer=True``); no data rows; a file beyond one of the ``limits``.

    Examples
    --------
    >>> import io
    >>> read_numeric_csv(io.StringIO("a,b\\n1,2\\n3,4.5\\n"))
    array([[1. , 2. ],
           [3. , 4.5]])
    """
    source = _source_name(path_or_file)
    budget = _Budget(source, limits)
    text, _ = decode(path_or_file, encoding, budget.limits)
    rows: list[list[float]] = []
    width = None
    header: list[str] | None = None
    for lineno, line in enumerate(_split_lines(text), start=1):
        if not line.strip():
            continue
        fields = [t.strip() for t in next(csv.reader([line.rstrip("\r")]))]
        budget.rows(len(rows) + 1, lineno)
        budget.cells(len(rows) + 1, len(fields), lineno, "has")
        if not rows and width is None and not all(_is_number(t) for t in fields):
            width = len(fields)  # a header
            header = fields
            continue
        if width is not None and len(fields) != width:
            raise DataFormatError(source, lineno, f"{len(fields)} fields, expected {width}")
        width = len(fields)
        bad = next((t for t in fields if not _is_number(t)), None)
        if bad is not None:
            raise DataFormatError(source, lineno, f"{bad!r} is not a number")
        values = [float(t) for t in fields]
        if not all(np.isfinite(values)):
            raise DataFormatError(source, lineno, f"NaN or infinite value in {what}")
        if integer and any(v != int(v) for v in values):
            raise DataFormatError(source, lineno, "expected integers")
        rows.append(values)
    if not rows:
        raise DataFormatError(source, None, f"no data rows in {what}")
    arr = np.asarray(rows)
    arr = arr.astype(np.int64) if integer else arr
    return (arr, header) if return_header else arr
