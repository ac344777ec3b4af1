"""Read and write the label-ranking CSV format of scikit-lr (the KEBI Marburg benchmark suite).

Format::

    n_samples,n_features,n_labels
    x_1,...,x_p,r_1,...,r_k
    ...

The first line holds three integers; each of the ``n_samples`` following lines holds
``n_features`` feature values and then ``n_labels`` integer **ranks**: ``r_j`` is the rank of
label ``j`` and 1 is best. Equal ranks are ties (the partial label ranking sets), and ``0``, an
empty field or ``nan`` marks a missing label. Files may be gzip-compressed. This is the format
of ``data/label_ranking_cheng_hullermeier`` and ``data/partial_label_ranking_alfaro``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from rankclust._limits import InputLimits
from rankclust.io._common import (
    DataFormatError,
    PathOrFile,
    _Budget,
    _iter_lines,
    _Problems,
    _source_name,
    _TextSink,
)
from rankclust.rankings import KINDS, Rankings, check_rankings

__all__ = ["read_label_ranking_csv", "write_label_ranking_csv"]


def _parse_header(text: str) -> tuple[int, int, int] | None:
    parts = text.split(",")
    if len(parts) != 3:
        return None
    vals = []
    for p in parts:
        p = p.strip()
        if not (p.isdigit() and p.isascii()) or len(p.lstrip("0")) > 18:
            return None
        vals.append(int(p))
    return vals[0], vals[1], vals[2]


def _parse_field(tok: str) -> float:
    t = tok.strip()
    return np.nan if t == "" else float(t)


def read_label_ranking_csv(
    path_or_file: PathOrFile,
    *,
    kind: str = "subset",
    strict: bool = True,
    encoding: str = "utf-8",
    finite_features: bool = False,
    limits: InputLimits | Mapping[str, int] | None = None,
) -> tuple[np.ndarray, Rankings]:
    """Read a label-ranking CSV file: features ``X`` and the label rankings ``Y``.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
        The file (plain or gzip-compressed).
    kind : {"subset", "top"}, default="subset"
        Meaning of a missing label: unknown (``"subset"``, the label-ranking convention of
        Cheng et al. 2009) or below the ranked ones (``"top"``).
    strict : bool, default=True
        If True, a malformed line raises :class:`~rankclust.io.DataFormatError` (a
        ``ValueError``) naming the file and the line, and the row count must match the
        header. If False, malformed lines are skipped and reported in one
        :class:`~rankclust.io.MalformedLinesWarning` (attribute ``skipped``).
    encoding : str, default="utf-8"
    finite_features : bool, default=False
        If True, a NaN, infinite or empty feature makes its line malformed (raised with its
        line, or skipped with ``strict=False``), for callers that hand ``X`` to an estimator.
        By default such features are read as they are (``nan`` round-trips).
    limits : InputLimits or mapping of str to int, optional
        Override the input limits (bytes read, rows, labels, rows x (features + labels));
        default: :class:`~rankclust.io.InputLimits` with the ``RANKCLUST_MAX_*`` environment
        variables.

    Returns
    -------
    X : ndarray of float64, shape (n_samples, n_features)
    Y : Rankings, shape (n_samples, n_labels)
        ``Y.to_ranks()`` gives back the rank columns (0 for missing) when the file's ranks
        are dense (ties share a rank and the next rank follows on, as in every shipped file).

    Raises
    ------
    DataFormatError
        On a bad header line, a line with the wrong number of fields, a non-numeric value,
        a NaN or infinite feature (with ``finite_features=True``), a negative, non-integer or too large rank (> n_labels),
        undecodable bytes, or (strict) a row count that differs from the header; always,
        before allocating: a file (or header) beyond one of the ``limits``.

    See Also
    --------
    write_label_ranking_csv, rankclust.datasets.load_label_ranking

    Notes
    -----
    Complexity: O(n (p + k)) time and memory.

    References
    ----------
    W. Cheng, J. Hühn and E. Hüllermeier, "Decision tree and instance-based learning for
    label ranking", ICML 2009.

    Examples
    --------
    >>> import io
    >>> X, Y = read_label_ranking_csv(io.StringIO("2,1,3\\n0.5,1,2,3\\n-1.0,2,0,1\\n"))
    >>> X
    array([[ 0.5],
           [-1. ]])
    >>> Y.ranks
    array([[ 0,  1,  2],
           [ 1, -1,  0]], dtype=int8)
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    source = _source_name(path_or_file)
    problems = _Problems(source, strict)
    budget = _Budget(source, limits)
    header, header_lineno, linenos, texts = _read_lines(
        path_or_file, encoding, source, problems, budget
    )
    n, p, k = header
    n_lines = len(texts)
    values, linenos, texts = _parse_values(texts, linenos, p, k, problems)
    if finite_features:
        values, linenos, texts = _drop_nonfinite_features(values, linenos, texts, p, problems)
    X, filled = _check_ranks(values, linenos, texts, p, k, problems)
    if n_lines != n:
        msg = f"the header declares {n} rows but the file has {n_lines}"
        if strict:
            raise DataFormatError(source, header_lineno, msg)
        warnings.warn(f"{source}: {msg}", UserWarning, stacklevel=2)
    problems.warn(stacklevel=2)
    Y = Rankings.from_ranks(filled, kind=kind)  # checked above; stored compact
    return np.ascontiguousarray(X), Y


def _read_lines(
    path_or_file: PathOrFile, encoding: str, source: str, problems: _Problems, budget: _Budget
) -> tuple[tuple[int, int, int], int, list[int], list[str]]:
    """The header (checked against the limits before any row is read), its line number, and
    the line numbers and texts of the non-blank data lines."""
    header: tuple[int, int, int] | None = None
    header_lineno = 1
    linenos: list[int] = []
    texts: list[str] = []
    for lineno, text in _iter_lines(path_or_file, encoding, problems, budget.limits):
        if not text.strip():
            continue
        if header is None:
            header = _parse_header(text)
            header_lineno = lineno
            if header is None:
                # without a header nothing else can be read: always an error
                raise DataFormatError(
                    source,
                    lineno,
                    f"expected the header 'n_samples,n_features,n_labels', got {text[:60]!r}",
                )
            _check_declared(header, lineno, budget)
            continue
        linenos.append(lineno)
        texts.append(text)
        budget.rows(len(texts), lineno)
    if header is None:
        raise DataFormatError(source, None, "empty file (no 'n_samples,n_features,n_labels' line)")
    return header, header_lineno, linenos, texts


def _check_declared(header: tuple[int, int, int], lineno: int, budget: _Budget) -> None:
    """Refuse the sizes a header declares beyond the limits, before any row is read."""
    n_decl, p_decl, k_decl = header
    if n_decl > budget.limits.max_rows:
        raise budget.refuse(lineno, f"declares {n_decl} rows", "max_rows")
    budget.items(k_decl, lineno, "declares")
    if n_decl * (p_decl + k_decl) > budget.limits.max_cells:
        raise budget.refuse(
            lineno,
            f"declares {n_decl} rows of {p_decl} features and {k_decl} labels",
            "max_cells",
        )


def _parse_values(
    texts: list[str], linenos: list[int], p: int, k: int, problems: _Problems
) -> tuple[np.ndarray, list[int], list[str]]:
    """The lines as a float array of ``p + k`` columns, and the line numbers and texts kept
    (lines with a wrong field count or a non-number reported to ``problems``)."""
    width = p + k
    # Field counts first (cheap), then a vectorised float parse with a per-line fallback.
    keep = []
    for idx, text in enumerate(texts):
        got = text.count(",") + 1
        if got != width:
            problems.bad(
                linenos[idx], text, f"{got} fields, expected {width} ({p} features + {k} ranks)"
            )
        else:
            keep.append(idx)
    texts = [texts[i] for i in keep]
    linenos = [linenos[i] for i in keep]
    try:
        flat = np.array(",".join(texts).split(",") if texts else [], dtype=np.float64)
        return flat.reshape(len(texts), width), linenos, texts
    except ValueError:
        pass
    rows, kept_lines, kept_texts = [], [], []
    for lineno, text in zip(linenos, texts, strict=True):
        try:
            rows.append([_parse_field(t) for t in text.split(",")])
        except ValueError:
            bad = next((j, t) for j, t in enumerate(text.split(",")) if not _is_float(t))
            problems.bad(lineno, text, f"field {bad[0] + 1} ({bad[1].strip()!r}) is not a number")
            continue
        kept_lines.append(lineno)
        kept_texts.append(text)
    values = np.array(rows, dtype=np.float64).reshape(len(rows), width)
    return values, kept_lines, kept_texts


def _drop_nonfinite_features(
    values: np.ndarray, linenos: list[int], texts: list[str], p: int, problems: _Problems
) -> tuple[np.ndarray, list[int], list[str]]:
    """The rows whose ``p`` features are all finite (the others reported to ``problems``)."""
    nonfinite = ~np.isfinite(values[:, :p]).all(axis=1)
    if not nonfinite.any():
        return values, linenos, texts
    for i in np.flatnonzero(nonfinite):
        j = int(np.flatnonzero(~np.isfinite(values[i, :p]))[0])
        tok = texts[i].split(",")[j].strip()
        problems.bad(
            linenos[i], texts[i], f"feature {j + 1} ({tok!r}) is NaN, infinite or missing"
        )
    values = values[~nonfinite]
    linenos = [ln for ln, bad in zip(linenos, nonfinite, strict=True) if not bad]
    texts = [t for t, bad in zip(texts, nonfinite, strict=True) if not bad]
    return values, linenos, texts


def _check_ranks(
    values: np.ndarray, linenos: list[int], texts: list[str], p: int, k: int, problems: _Problems
) -> tuple[np.ndarray, np.ndarray]:
    """Features ``X`` and ranks (0 for missing) of the rows whose ranks are integers in
    ``0..k`` (the others reported to ``problems``)."""
    X = values[:, :p]
    Yf = values[:, p:]
    filled = np.where(np.isnan(Yf), 0.0, Yf)
    bad_rows = (np.isinf(filled) | (filled < 0) | (filled != np.round(filled)) | (filled > k)).any(
        axis=1
    )
    if bad_rows.any():
        for i in np.flatnonzero(bad_rows):
            row = filled[i]
            j = int(
                np.flatnonzero(np.isinf(row) | (row < 0) | (row != np.round(row)) | (row > k))[0]
            )
            tok = texts[i].split(",")[p + j].strip()
            problems.bad(
                linenos[i],
                texts[i],
                f"rank {tok!r} of label {j + 1} is not an integer in 0..{k} "
                "(0 or empty = missing)",
            )
        X = X[~bad_rows]
        filled = filled[~bad_rows]
    return X, filled


def _is_float(tok: str) -> bool:
    try:
        _parse_field(tok)
    except ValueError:
        return False
    return True


def write_label_ranking_csv(
    path_or_file: PathOrFile,
    X: Any,
    Y: Any,
    *,
    float_format: str | None = None,
    lineterminator: str = "\n",
    encoding: str = "utf-8",
) -> None:
    """Write features and label rankings in the label-ranking CSV format.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
        Destination; a path ending in ``.gz`` is gzip-compressed (deterministically).
    X : array-like of float, shape (n_samples, n_features)
    Y : Rankings or array-like of int, shape (n_samples, n_labels)
        Rankings, or 1-based ranks with 0/NaN for missing. Missing labels are written as 0.
    float_format : str, optional
        ``%``-format for the features, e.g. ``"%.5f"`` (the shipped files). Default: the
        shortest text that reads back to the same float (``repr``), so that
        ``read_label_ranking_csv`` returns ``X`` exactly.
    lineterminator : str, default="\\n"
        ``"\\r\\n"`` reproduces the shipped files byte for byte (with ``float_format="%.5f"``).
    encoding : str, default="utf-8"

    Notes
    -----
    Complexity: O(n (p + k)) time and memory.

    Examples
    --------
    >>> import io
    >>> buf = io.StringIO()
    >>> write_label_ranking_csv(buf, [[0.5], [-1.0]], [[1, 2, 3], [2, 0, 1]])
    >>> print(buf.getvalue(), end="")
    2,1,3
    0.5,1,2,3
    -1.0,2,0,1
    """
    Xa = np.asarray(X, dtype=np.float64)
    if Xa.ndim != 2:
        raise ValueError(f"X must be 2-d (n_samples, n_features), got shape {Xa.shape}")
    R = check_rankings(Y, name="Y")
    if R.n_rankings != Xa.shape[0]:
        raise ValueError(f"X has {Xa.shape[0]} rows but Y has {R.n_rankings}")
    ranks = R.to_ranks()
    n, p = Xa.shape
    k = R.n_items
    fmt = float_format
    lines = [f"{n},{p},{k}"]
    for x, r in zip(Xa.tolist(), ranks.tolist(), strict=True):
        feats = [fmt % v for v in x] if fmt is not None else [repr(v) for v in x]
        lines.append(",".join(feats + [str(v) for v in r]))
    with _TextSink(path_or_file, encoding) as out:
        out.write(lineterminator.join(lines) + lineterminator)
