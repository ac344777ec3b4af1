"""Reader for the MSNBC.com anonymous web data (UCI): page-category sequences per user.

The file ``msnbc990928.seq`` has a header (``% Different categories found in input file:``,
the category names on one line, ``% Sequences:``) and then one line per user: the categories
(1-based codes) of the pages the user viewed, in order, with repeats. Following Ukkonen's
clustering of chains, each sequence becomes a **chain**: the categories in first-visit order,
duplicates removed, of kind ``"subset"`` (unvisited categories are unknown, not worse).

Reference: I. Cadez, D. Heckerman, C. Meek, P. Smyth and S. White, "Model-based clustering
and visualization of navigation patterns on a web site", Data Mining and Knowledge Discovery
7(4), 2003. A. Ukkonen, "Clustering algorithms for chains", JMLR 12, 2011.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

from rankclust._limits import InputLimits
from rankclust.io._common import (
    DataFormatError,
    PathOrFile,
    _Budget,
    _Problems,
    _read_bytes,
    _source_name,
)
from rankclust.rankings import KINDS, Rankings, rank_dtype

__all__ = ["read_msnbc"]

_SEQ_MARK = b"% Sequences:"
_BLOCK = 100_000  # rows per block when building the rank matrix


def _first_visit_ranks(
    line_of_token: np.ndarray, cat: np.ndarray, n_rows: int, m: int
) -> np.ndarray:
    """Rank matrix of first-visit orders. ``line_of_token`` in 0..n_rows-1, ``cat`` 0-based.

    O(T log T) time for T tokens, O(n m) memory.
    """
    key = line_of_token * m + cat
    uniq, first = np.unique(key, return_index=True)
    row, item = uniq // m, uniq % m
    order = np.lexsort((first, row))  # by row, then by first visit
    row, item = row[order], item[order]
    starts = np.searchsorted(row, np.arange(n_rows))
    pos = np.arange(len(row)) - starts[row]
    ranks = np.full((n_rows, m), -1, dtype=rank_dtype(m))  # first visits: pos < m
    ranks[row, item] = pos
    return ranks


def read_msnbc(
    path_or_file: PathOrFile,
    *,
    kind: str = "subset",
    max_rows: int | None = None,
    strict: bool = True,
    encoding: str = "ascii",
    limits: InputLimits | Mapping[str, int] | None = None,
) -> Rankings:
    """Read ``msnbc990928.seq`` as chains: each user's categories in first-visit order.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
        The ``.seq`` file (plain or gzip-compressed).
    kind : {"subset", "top"}, default="subset"
    max_rows : int, optional
        Read only the first ``max_rows`` sequences.
    strict : bool, default=True
        If True, a token that is not a category code (1..n_categories) raises
        :class:`~rankclust.io.DataFormatError` naming its line; if False such lines are
        skipped and reported in one :class:`~rankclust.io.MalformedLinesWarning`.
    encoding : str, default="ascii"
    limits : InputLimits or mapping of str to int, optional
        Override the input limits (bytes read, rows, categories, rows x categories);
        default: :class:`~rankclust.io.InputLimits` with the ``RANKCLUST_MAX_*`` environment
        variables. A file beyond one is refused before the rank matrix is allocated.

    Returns
    -------
    R : Rankings, shape (n_users, n_categories)
        ``items`` = the category names of the header (``frontpage``, ``news``, ...). Blank
        lines in the sequence section are not users and are ignored.

    Notes
    -----
    The full file has 989,818 users over 17 categories: the rank matrix takes 135 MB.
    Complexity: O(T log T) time for T page views, O(n m) memory.

    Examples
    --------
    >>> import io
    >>> text = "% Different categories found in input file:\\n\\na b c\\n\\n% Sequences:\\n\\n"
    >>> R = read_msnbc(io.StringIO(text + "2 2 1 2\\n3\\n"))
    >>> R.items, R.ranks.tolist()
    (('a', 'b', 'c'), [[1, 0, -1], [-1, -1, 0]])
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if max_rows is not None and max_rows < 0:
        raise ValueError(f"max_rows must be >= 0, got {max_rows}")
    source = _source_name(path_or_file)
    problems = _Problems(source, strict)
    budget = _Budget(source, limits)
    data = _read_bytes(path_or_file, budget.limits)
    if isinstance(data, str):  # a text stream: non-ASCII characters end up as bad bytes
        data = data.encode("utf-8")
    mark = data.find(_SEQ_MARK)
    if mark < 0:
        raise DataFormatError(
            source, None, f"no {_SEQ_MARK.decode()!r} line: not an MSNBC .seq file"
        )
    names: list[str] | None = None
    names_line = None
    for k, raw in enumerate(data[:mark].split(b"\n"), start=1):
        try:
            line = raw.decode(encoding).strip()
        except UnicodeDecodeError as exc:
            raise DataFormatError(
                source, k, f"cannot decode as {encoding} ({exc.reason})"
            ) from None
        if line and not line.startswith("%"):
            names = line.split()
            names_line = k
            break
    if not names:
        raise DataFormatError(source, None, "no category names before the sequences")
    m = len(names)
    budget.items(m, names_line, "names")
    eol = data.find(b"\n", mark)
    body_start = len(data) if eol < 0 else eol + 1
    first_line = data.count(b"\n", 0, body_start) + 1  # line number of the first body line
    body = data[body_start:]
    if max_rows is not None:
        body = body[: _prefix_with_rows(body, max_rows)]  # parse no more than needed
    row_of_token, codes, n_rows = _parse_body(
        np.frombuffer(body, dtype=np.uint8), m, max_rows, first_line, body, problems
    )
    problems.warn(stacklevel=2)
    budget.rows(n_rows, None)
    budget.cells(n_rows, m, None)  # before the n_rows x m rank matrix
    # Build the Rankings in blocks of rows: its validation needs several n-by-m temporaries.
    bounds = np.searchsorted(row_of_token, np.arange(0, n_rows + _BLOCK, _BLOCK))
    parts = []
    for b, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        rows = min(_BLOCK, n_rows - b * _BLOCK)
        if rows <= 0:
            break
        ranks = _first_visit_ranks(row_of_token[lo:hi] - b * _BLOCK, codes[lo:hi] - 1, rows, m)
        parts.append(Rankings(ranks, kind=kind, items=names))
    if not parts:
        return Rankings(np.empty((0, m), dtype=rank_dtype(m)), kind=kind, items=names)
    return parts[0] if len(parts) == 1 else Rankings.concatenate(parts)


def _prefix_with_rows(body: bytes, n_rows: int) -> int:
    """Length of the shortest prefix of ``body`` holding ``n_rows`` non-blank lines (or all)."""
    end, found = 0, 0
    while found < n_rows and end < len(body):
        nxt = body.find(b"\n", end)
        nxt = len(body) if nxt < 0 else nxt + 1
        if body[end:nxt].strip():
            found += 1
        end = nxt
    return end


def _parse_body(
    buf: np.ndarray,
    m: int,
    max_rows: int | None,
    first_line: int,
    raw: bytes,
    problems: _Problems,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Vectorised parse of space-separated codes, one sequence per line.

    Returns the row of every kept token, its code (1..m) and the number of rows. Blank lines
    are not rows; a line with a bad byte or a code outside 1..m is reported and dropped.
    """
    # Work on positions, not on per-byte index arrays, to keep memory near O(T) for T tokens.
    nl = np.flatnonzero(buf == ord("\n"))  # line k of the body ends at nl[k]
    digit = (buf >= ord("0")) & (buf <= ord("9"))
    other = ~digit & (buf != ord("\n")) & (buf != ord(" ")) & (buf != ord("\r"))
    other &= buf != ord("\t")
    dpos = np.flatnonzero(digit)
    first_digit = np.ones(len(dpos), dtype=bool)  # digit that starts a token
    first_digit[1:] = dpos[1:] != dpos[:-1] + 1
    del digit
    tok_of = np.cumsum(first_digit, dtype=np.int64) - 1  # token of every digit
    starts = dpos[first_digit]
    n_tok = len(starts)
    tok_len = np.bincount(tok_of, minlength=n_tok)
    tok_line = np.searchsorted(nl, starts)  # 0-based body line of each token
    # value of each token: sum of digit * 10**(place); long tokens are invalid anyway
    place = np.minimum(tok_len[tok_of] - 1 - (dpos - starts[tok_of]), 6)
    codes = np.bincount(
        tok_of, weights=(buf[dpos] - ord("0")) * 10.0**place, minlength=n_tok
    ).astype(np.int64)
    del dpos, tok_of, place, first_digit
    codes[tok_len > 6] = 0

    n_lines = len(nl) + (1 if len(buf) and buf[-1] != ord("\n") else 0)
    bad_line = np.zeros(n_lines, dtype=bool)
    bad_line[np.searchsorted(nl, np.flatnonzero(other))] = True
    bad_tok = (codes < 1) | (codes > m)
    bad_line[tok_line[bad_tok]] = True
    if bad_line.any():
        lines = raw.split(b"\n")
        for k in np.flatnonzero(bad_line):
            text = lines[k].rstrip(b"\r").decode("utf-8", errors="replace")
            odd = next((t for t in text.split() if not (t.isdigit() and 1 <= int(t) <= m)), text)
            problems.bad(first_line + int(k), text, f"{odd!r} is not a category code 1..{m}")
    keep = ~bad_line[tok_line]
    tok_line, codes = tok_line[keep], codes[keep]
    # tokens come in line order: a new row starts wherever the line changes (blank lines
    # have no tokens and give no row)
    new_row = np.ones(len(tok_line), dtype=bool)
    new_row[1:] = tok_line[1:] != tok_line[:-1]
    row_of_token = np.cumsum(new_row) - 1
    n_rows = int(new_row.sum())
    if max_rows is not None and max_rows < n_rows:
        sel = row_of_token < max_rows
        row_of_token, codes, n_rows = row_of_token[sel], codes[sel], max_rows
    return row_of_token.reshape(-1), codes, n_rows
