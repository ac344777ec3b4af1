"""Readers and writers of preference data files.

**Start here:** :func:`read_rankings` reads any of the files below, detecting the format (or
refusing what it cannot tell for certain) and the text encoding, and can return a
:class:`ReadReport` of rows read, used and refused; :func:`read_label_rankings` reads a
label-ranking CSV the same way, :func:`read_item_names` a list of item names and
:func:`read_numeric_csv` a table of numbers (features).

Every reader counts what it reads and refuses a malformed line with a
:class:`DataFormatError` (a ``ValueError``) that names the file, the line and the problem.
With ``strict=False`` it skips such lines instead and reports every one of them in a single
:class:`MalformedLinesWarning` (attribute ``skipped``: a tuple of :class:`SkippedLine`).

* PrefLib ``.soc/.soi/.toc/.toi`` -- :func:`read_preflib`, :func:`write_preflib`
* label-ranking CSV (``n,p,k`` header) -- :func:`read_label_ranking_csv`,
  :func:`write_label_ranking_csv`
* CSV of orderings or of rank vectors -- :func:`read_orderings_csv`,
  :func:`write_orderings_csv`, :func:`read_ranks_csv`, :func:`write_ranks_csv`,
  :func:`read_rankcluster_csv`, :func:`write_rankcluster_csv`
* SUSHI -- :func:`read_sushi_order`, :func:`read_sushi_udata`, :func:`read_sushi_idata`
* MSNBC page-category sequences -- :func:`read_msnbc`
* pairwise comparisons (CSV, BayesMallows layout) -- :func:`read_pairs_csv`,
  :func:`read_bayesmallows_pairs` (a :class:`~rankclust.pairwise.Comparisons`)

Every reader checks the sizes it is about to allocate -- bytes read (after gzip
decompression), rows, items, rows x items -- against :class:`InputLimits` before allocating,
and refuses a file that exceeds one with a :class:`DataFormatError` naming the limit. The
limits are overridable per call (``limits={"max_items": 10**6}``) or per process
(``RANKCLUST_MAX_ITEMS=1000000``); see :mod:`rankclust._limits` for the defaults.
"""

from rankclust._limits import InputLimits, resolve_limits
from rankclust.io._common import (
    DataFormatError,
    MalformedLinesWarning,
    SkippedLine,
)
from rankclust.io.auto import (
    FORMATS,
    ReadReport,
    read_item_names,
    read_label_rankings,
    read_rankings,
)
from rankclust.io.label_ranking_csv import read_label_ranking_csv, write_label_ranking_csv
from rankclust.io.msnbc import read_msnbc
from rankclust.io.numeric_csv import read_numeric_csv
from rankclust.io.orderings_csv import (
    read_orderings_csv,
    read_rankcluster_csv,
    read_ranks_csv,
    write_orderings_csv,
    write_rankcluster_csv,
    write_ranks_csv,
)
from rankclust.io.pairs_csv import read_bayesmallows_pairs, read_pairs_csv
from rankclust.io.preflib import PREFLIB_DATA_TYPES, PreflibMetadata, read_preflib, write_preflib
from rankclust.io.sushi import (
    SUSHI_ITEM_FEATURES,
    SUSHI_USER_FEATURES,
    read_sushi_idata,
    read_sushi_order,
    read_sushi_udata,
)

__all__ = [
    "FORMATS",
    "PREFLIB_DATA_TYPES",
    "SUSHI_ITEM_FEATURES",
    "SUSHI_USER_FEATURES",
    "DataFormatError",
    "InputLimits",
    "MalformedLinesWarning",
    "PreflibMetadata",
    "ReadReport",
    "SkippedLine",
    "read_bayesmallows_pairs",
    "read_item_names",
    "read_label_ranking_csv",
    "read_label_rankings",
    "read_msnbc",
    "read_numeric_csv",
    "read_orderings_csv",
    "read_pairs_csv",
    "read_preflib",
    "read_rankcluster_csv",
    "read_rankings",
    "read_ranks_csv",
    "read_sushi_idata",
    "read_sushi_order",
    "read_sushi_udata",
    "resolve_limits",
    "write_label_ranking_csv",
    "write_orderings_csv",
    "write_preflib",
    "write_rankcluster_csv",
    "write_ranks_csv",
]
