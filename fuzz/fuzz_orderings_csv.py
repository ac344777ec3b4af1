"""atheris target: the CSV readers of rankclust.io.orderings_csv on arbitrary bytes.

The first input byte picks the reader (orderings, rank vectors, Rankcluster) and the mode;
the rest is the file.
Run: ``python fuzz/fuzz_orderings_csv.py -max_total_time=60 fuzz/corpus/orderings_csv``.
"""

from __future__ import annotations

import io
import sys

import atheris
from _common import run

# The numba kernels of rankclust.rankings must not be instrumented (numba cannot compile
# atheris' coverage hooks): import them first, then instrument the readers only.
import rankclust.rankings  # noqa: F401

with atheris.instrument_imports(include=["rankclust.io"]):
    from rankclust.io import read_orderings_csv, read_rankcluster_csv, read_ranks_csv

READERS = (read_orderings_csv, read_ranks_csv, read_rankcluster_csv)


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    # first byte: reader (bits 0-1), strict (bit 2), header None/True/False (bits 3-4)
    reader = READERS[(data[0] & 3) % len(READERS)]
    strict = bool(data[0] & 4)
    header = (None, True, False, None)[(data[0] >> 3) & 3]
    blob = data[1:]
    kwargs = {"strict": strict}
    if reader is not read_rankcluster_csv:
        kwargs["header"] = header
    out = run(reader, io.BytesIO(blob), **kwargs)
    if out is None:
        return
    for R in out if isinstance(out, list) else [out]:
        assert (R.ranks >= -1).all()


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
