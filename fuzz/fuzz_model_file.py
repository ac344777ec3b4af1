"""atheris target: rankclust.persistence.load (+ predict) on mutated valid model files.

Run: ``python fuzz/fuzz_model_file.py -max_total_time=60 fuzz/corpus/model_file`` (see run.sh).
The input bytes choose a base model (one of ``FUZZ_BASES``, saved at start-up) and up to four
mutations of the shared mutator (``tests/reliability/_hostile_models.py::mutate_model``: JSON
values and keys, array values, shapes and dtypes, archive bytes, declared member sizes). A
finding is any exception from ``load`` other than ``ValueError``, any exception from
``predict`` other than a clean refusal of its input (``tests/reliability/_harness.py``
``is_clean``: raised by rankclust or scikit-learn's validation), or a crash (a signal kills
the process: libFuzzer records the input).
"""

from __future__ import annotations

import json
import sys
import tempfile
import warnings
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

# numba kernels cannot be instrumented: import them first, then instrument the loader only
from rankclust import Rankings

with atheris.instrument_imports(include=["rankclust.persistence", "rankclust._loaded_state"]):
    from rankclust.persistence import load

from tests.reliability._harness import is_clean
from tests.reliability._hostile_models import (
    ARRAY_VALUES,
    DTYPES,
    FUZZ_BASES,
    JSON_VALUES,
    SHAPES,
    mutate_model,
    save_fuzz_bases,
)

_WORK = Path(tempfile.mkdtemp(prefix="fuzz_model_file_"))
_BASES = save_fuzz_bases(_WORK / "bases")
_INPUTS: dict[str, object] = {}
_KINDS = ("json", "delete_key", "array_value", "array_fill", "array_shape", "array_dtype")
_KINDS += ("byte", "truncate", "declared_size")


def _input(path: str) -> object:
    if path not in _INPUTS:
        if path.endswith(".npy"):
            _INPUTS[path] = np.load(path)
        else:
            spec = json.loads(Path(path).read_text())
            _INPUTS[path] = Rankings(spec["ranks"], kind=spec["kind"])
    return _INPUTS[path]


def _mutation(fdp: atheris.FuzzedDataProvider) -> tuple:
    kind = _KINDS[fdp.ConsumeIntInRange(0, len(_KINDS) - 1)]
    i, j = fdp.ConsumeIntInRange(0, 10**6), fdp.ConsumeIntInRange(0, 10**6)
    pick = fdp.ConsumeIntInRange(0, 10**6)
    if kind == "json":
        return (kind, i, pick % len(JSON_VALUES))
    if kind == "delete_key":
        return (kind, i)
    if kind == "array_value":
        return (kind, i, j, ARRAY_VALUES[pick % len(ARRAY_VALUES)])
    if kind == "array_fill":
        return (kind, i, ARRAY_VALUES[pick % len(ARRAY_VALUES)])
    if kind == "array_shape":
        return (kind, i, SHAPES[pick % len(SHAPES)])
    if kind == "array_dtype":
        return (kind, i, DTYPES[pick % len(DTYPES)])
    if kind == "byte":
        return (kind, i, pick % 256)
    if kind == "truncate":
        return (kind, i)
    member = ("model.json", "arrays.npz")[pick % 2]
    return (kind, member, (0, 1, 2**31, 2**32 - 1)[j % 4])


def TestOneInput(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    name = FUZZ_BASES[fdp.ConsumeIntInRange(0, len(FUZZ_BASES) - 1)]
    mutations = [_mutation(fdp) for _ in range(fdp.ConsumeIntInRange(1, 4))]
    base, predict_input = _BASES[name]
    path = _WORK / "case.zip"
    mutate_model(path, base, mutations)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = load(path)
        except ValueError:
            return
        try:
            model.predict(_input(predict_input))
        except (ValueError, TypeError) as exc:
            # a loaded model may refuse an input at its own boundary (a tampered
            # n_features_in_ makes a model of other data; NotFittedError is a ValueError)
            if not is_clean(exc):
                raise


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
