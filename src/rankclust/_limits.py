"""Input limits: how much a reader or the CLI accepts before it allocates (DESIGN.md section 10).

A few bytes can declare (or imply) an enormous size: ``# NUMBER ALTERNATIVES: 10**9``, one
CSV value ``100000000`` read as the number of items, a 250 KB gzip file that inflates to
250 MB. Every reader of :mod:`rankclust.io` and the ``rankclust`` command check the sizes they
are about to allocate against these limits **before** allocating, and refuse a file that
exceeds one with a one-line :class:`~rankclust.io.DataFormatError` naming the file, the line
and the limit.

=====================  ==============  ==================================================
limit                  default         what it bounds
=====================  ==============  ==================================================
``max_input_bytes``    128 MiB         bytes of (decompressed) text a reader reads
``max_rows``           5,000,000       data rows (rankings, users, instances) per file
``max_items``          100,000         items / alternatives / labels / categories
``max_cells``          2**27 (134 M)   rows x items of the rank matrix (128 MiB as int8)
=====================  ==============  ==================================================

The defaults accept every data set in the project's data directory with room to spare (the
largest, MSNBC, has 12.6 MB, 989,818 rows, 17 items and 16.8 M cells). Override them

* per call: ``read_preflib(path, limits={"max_items": 10**6})`` (every reader takes
  ``limits=``, a mapping or an :class:`InputLimits`);
* per process: the environment variables ``RANKCLUST_MAX_INPUT_BYTES``,
  ``RANKCLUST_MAX_ROWS``, ``RANKCLUST_MAX_ITEMS``, ``RANKCLUST_MAX_CELLS`` (read at each call;
  the CLI honours them too).

A keyword beats the environment, which beats the default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["ENV_PREFIX", "InputLimits", "check_alloc", "resolve_limits"]

#: Prefix of the environment variables: ``RANKCLUST_MAX_ITEMS`` overrides ``max_items``.
ENV_PREFIX = "RANKCLUST_"


@dataclass(frozen=True)
class InputLimits:
    """The sizes a reader accepts before it allocates (see :mod:`rankclust._limits`).

    Parameters
    ----------
    max_input_bytes : int, default=128 MiB
        Bytes of text read from one file, after gzip decompression (a gzip stream is inflated
        in pieces and stopped as soon as it exceeds this).
    max_rows : int, default=5,000,000
        Data rows of one file.
    max_items : int, default=100,000
        Items (alternatives, labels, categories, columns of a rank CSV).
    max_cells : int, default=2**27
        Rows times items of the rank matrix a reader builds.

    Examples
    --------
    >>> InputLimits().max_items
    100000
    >>> resolve_limits({"max_items": 10}).max_items
    10
    """

    max_input_bytes: int = 128 * 2**20
    max_rows: int = 5_000_000
    max_items: int = 100_000
    max_cells: int = 2**27

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{f.name} must be a positive integer, got {v!r}")

    @staticmethod
    def how_to_raise(name: str) -> str:
        """The hint appended to a refusal: where the limit ``name`` can be raised."""
        return (
            f"raise it with the environment variable {ENV_PREFIX}{name.upper()}, "
            f"or limits={{{name!r}: ...}} in Python"
        )


def _from_environment() -> dict[str, int]:
    out: dict[str, int] = {}
    for f in fields(InputLimits):
        var = ENV_PREFIX + f.name.upper()
        text = os.environ.get(var)
        if text is None or not text.strip():
            continue
        try:
            out[f.name] = int(text.strip().replace("_", ""))
        except ValueError:
            raise ValueError(f"environment variable {var}={text!r} is not an integer") from None
    return out


def resolve_limits(limits: InputLimits | Mapping[str, Any] | None = None) -> InputLimits:
    """The limits in force: ``limits`` (keyword) over the environment over the defaults.

    Parameters
    ----------
    limits : InputLimits or mapping of str to int, optional
        An :class:`InputLimits` is used as given; a mapping overrides some fields
        (unknown names raise ``ValueError``).

    Returns
    -------
    InputLimits
    """
    if isinstance(limits, InputLimits):
        return limits
    base = replace(InputLimits(), **_from_environment())
    if limits is None:
        return base
    if not isinstance(limits, Mapping):
        raise TypeError(f"limits must be an InputLimits or a mapping, got {type(limits).__name__}")
    known = {f.name for f in fields(InputLimits)}
    unknown = sorted(set(limits) - known)
    if unknown:
        raise ValueError(f"unknown limit(s) {unknown}; known: {sorted(known)}")
    return replace(base, **dict(limits))


def check_alloc(n_bytes: float, limit: int, what: str) -> None:
    """Refuse, before allocating, an array of ``n_bytes`` over ``limit`` (one-line error).

    The in-memory counterpart of the readers' limits: a computation on data already loaded
    (the rank matrix of :meth:`Rankings.from_orderings`, pairwise counts) checks the size of
    its result against a byte limit (``rankclust.rankings.MAX_RANK_MATRIX_BYTES``,
    ``MAX_PAIRWISE_BYTES``). ``what`` names the result in the message.
    """
    if n_bytes > limit:
        raise ValueError(
            f"{what} would need {n_bytes / 2**30:.1f} GiB (limit {limit / 2**30:.0f} GiB); "
            "reduce the number of items or rows"
        )
