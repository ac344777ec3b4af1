"""atheris target: rankclust.io.read_preflib on arbitrary bytes (strict and lenient).

Run: ``python fuzz/fuzz_preflib.py -max_total_time=60 fuzz/corpus/preflib`` (see run.sh).
A finding is any exception other than a clean ValueError/TypeError raised by rankclust, or a
result that breaks the rank-matrix invariants; with strict=False every data line must be read
or reported.
"""

from __future__ import annotations

import io
import sys
import warnings

import atheris
from _common import run

# The numba kernels of rankclust.rankings must not be instrumented (numba cannot compile
# atheris' coverage hooks): import them first, then instrument the readers only.
import rankclust.rankings  # noqa: F401

with atheris.instrument_imports(include=["rankclust.io"]):
    from rankclust.io import MalformedLinesWarning, read_preflib


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    # first byte: bit 0 = strict, bit 1 = kind; the rest is the file
    strict = bool(data[0] & 1)
    kind = "subset" if data[0] & 2 else "top"
    blob = data[1:]
    out = run(read_preflib, io.BytesIO(blob), kind, strict=strict, return_metadata=True)
    if out is None:
        return
    R, meta = out
    assert R.ranks.shape[0] == meta.n_orders_read
    assert (R.ranks >= -1).all()
    assert R.weights.sum() == meta.n_voters_read
    if not strict:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            read_preflib(io.BytesIO(blob), kind, strict=False)  # succeeded just above
        reported = sum(
            len(w.message.skipped) for w in caught if issubclass(w.category, MalformedLinesWarning)
        )
        assert reported == len(meta.skipped)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
