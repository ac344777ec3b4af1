"""atheris target: rankclust.io.read_label_ranking_csv on arbitrary bytes.

Run: ``python fuzz/fuzz_label_ranking_csv.py -max_total_time=60 fuzz/corpus/label_ranking_csv``.
"""

from __future__ import annotations

import io
import sys

import atheris
import numpy as np
from _common import run

# The numba kernels of rankclust.rankings must not be instrumented (numba cannot compile
# atheris' coverage hooks): import them first, then instrument the readers only.
import rankclust.rankings  # noqa: F401

with atheris.instrument_imports(include=["rankclust.io"]):
    from rankclust.io import read_label_ranking_csv


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    strict = bool(data[0] & 1)  # first byte: mode; the rest is the file
    blob = data[1:]
    out = run(read_label_ranking_csv, io.BytesIO(blob), strict=strict)
    if out is None:
        return
    X, Y = out
    assert X.ndim == 2 and X.shape[0] == Y.n_rankings
    assert (Y.ranks >= -1).all()
    assert np.all(Y.ranks < max(Y.n_items, 1))


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
