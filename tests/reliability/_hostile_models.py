"""Hostile model files (issue #16) and a runner that loads them in an isolated interpreter.

Used by ``test_hostile_model_files.py`` and ``experiments/studies/measure_hostile_models.py``.

:func:`build_cases` writes one file per reproducer into a directory: code execution through a
class or function path, a hook stored in the state, tree child indices pointing far outside
the tree, memory bombs (a deflate bomb member, an npy header declaring 2**33 elements) and NaN
parameters. :func:`run_case` loads one (and predicts, for the cases that need a prediction to
go wrong) in a fresh interpreter under ``RLIMIT_AS`` and reports the outcome, the return code
(a negative code is the signal that killed it), the peak resident memory of that child
(``os.wait4``) and the wall time. The interpreter imports rankclust from ``src`` so the same
files can be run against an older checkout.
"""

from __future__ import annotations

import io
import json
import os
import signal
import struct
import subprocess
import sys
import textwrap
import time
import warnings
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------------
# editing saved models
# --------------------------------------------------------------------------------------------
def read_model(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """``model.json`` and the arrays of a file written by ``save`` (a trusted file)."""
    with zipfile.ZipFile(path) as zf:
        meta = json.loads(zf.read("model.json"))
        with np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    return meta, arrays


def write_model(path: Path, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json.dumps(meta))
        zf.writestr("arrays.npz", buffer.getvalue())


def array_key(meta: dict, *path: str) -> str:
    """The npz key of the array at ``path`` (attribute names) inside the model's state."""
    node = meta["model"]
    for name in path:
        node = node["state"][name] if "state" in node and name in node["state"] else node[name]
    return node["__ndarray__"]


def model_file(meta_model: dict) -> dict:
    """The ``model.json`` of a hand-made model."""
    return {"format": "rankclust-model", "format_version": 1, "model": meta_model}


# --------------------------------------------------------------------------------------------
# fitted models used as the base of the hostile files
# --------------------------------------------------------------------------------------------
def fitted_models() -> dict[str, tuple[Any, np.ndarray | Any]]:
    """Small fitted models and the input to predict on, by name."""
    from sklearn.tree import DecisionTreeClassifier

    from rankclust import Rankings
    from rankclust.cluster import MallowsMixture, PlackettLuceMixture
    from rankclust.label_ranking import LabelRankingTree
    from rankclust.supervised import RankTree

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    Y = Rankings(np.argsort(np.argsort(X @ rng.normal(size=(3, 4)), axis=1), axis=1))
    R = Y.with_kind("top")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "LabelRankingTree": (LabelRankingTree(random_state=0).fit(X, Y), X),
            "RankTree": (RankTree(n_clusters=3, random_state=0, max_iter=5).fit(X, Y), X),
            "DecisionTreeClassifier": (
                DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, np.arange(60) % 3),
                X,
            ),
            "MallowsMixture": (MallowsMixture(2, random_state=0, max_iter=20).fit(R), R),
            "PlackettLuceMixture": (PlackettLuceMixture(2, random_state=0, max_iter=20).fit(R), R),
        }


# --------------------------------------------------------------------------------------------
# the hostile files
# --------------------------------------------------------------------------------------------
@dataclass
class Case:
    """One hostile file: what to run on it and what must not happen."""

    name: str
    path: Path
    predict: Path | None = None  # .npy (features) or .json (rank matrix) to predict on
    marker: Path | None = None  # must not exist afterwards (a command ran)
    victim: Path | None = None  # must keep its content
    victim_content: bytes = b""
    memory_gb: float = 2.0
    note: str = ""
    extra: dict = field(default_factory=dict)


def _code_execution_cases(d: Path) -> list[Case]:
    empty_npz = io.BytesIO()
    np.savez(empty_npz)

    def file_of(name: str, model: dict) -> Path:
        path = d / f"{name}.zip"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("model.json", json.dumps(model_file(model)))
            zf.writestr("arrays.npz", empty_npz.getvalue())
        return path

    marker = d / "PWNED"
    victim = d / "victim.txt"
    victim.write_bytes(b"precious data\n")
    cases = [
        Case(
            "popen",
            file_of(
                "popen",
                {
                    "__object__": "rankclust.cli:subprocess.Popen",
                    "params": {"args": ["touch", str(marker)]},
                    "state": {},
                },
            ),
            marker=marker,
            note="class path walking to subprocess.Popen",
        ),
        Case(
            "fileio",
            file_of(
                "fileio",
                {
                    "__object__": "rankclust.persistence:io.FileIO",
                    "params": {"file": str(victim), "mode": "w"},
                    "state": {},
                },
            ),
            victim=victim,
            victim_content=victim.read_bytes(),
            note="io.FileIO(mode='w') truncates a file",
        ),
        Case(
            "main_module",
            file_of(
                "main_module",
                {"__object__": "rankclust.__main__:main", "params": None, "state": {}},
            ),
            note="importing rankclust.__main__ runs the CLI",
        ),
    ]
    return cases


def _function_and_hook_cases(d: Path, models: dict) -> list[Case]:
    from rankclust.persistence import save

    mix, _ = models["MallowsMixture"]
    base = d / "mallows_base.zip"
    save(mix, base)
    meta, arrays = read_model(base)
    cases = []
    # a function value outside rankclust's registry, reached through an attribute walk
    meta_fn = json.loads(json.dumps(meta))
    meta_fn["model"]["params"]["random_state"] = {
        "__function__": "rankclust.persistence:os.system"
    }
    write_model(d / "os_system.zip", meta_fn, arrays)
    cases.append(Case("os_system", d / "os_system.zip", note="__function__ os.system"))
    # a hook stored in the state: the old loader called any callable _rebuild_after_load
    meta_hook = json.loads(json.dumps(meta))
    meta_hook["model"]["state"]["_rebuild_after_load"] = {"__function__": "rankclust.cli:main"}
    write_model(d / "hook.zip", meta_hook, arrays)
    cases.append(Case("state_hook", d / "hook.zip", note="state _rebuild_after_load = cli.main"))
    return cases


def _save_predict_input(d: Path, name: str, data: Any) -> Path:
    from rankclust import Rankings

    if isinstance(data, Rankings):
        path = d / f"{name}_input.json"
        path.write_text(json.dumps({"ranks": data.ranks.tolist(), "kind": data.kind}))
    else:
        path = d / f"{name}_input.npy"
        np.save(path, data)
    return path


def _tree_cases(d: Path, models: dict) -> list[Case]:
    from rankclust.persistence import save

    cases = []
    for name, attrs in (
        ("LabelRankingTree", [("children_left_",), ("children_right_",)]),
        ("RankTree", [("tree_", "left"), ("tree_", "right")]),
    ):
        est, X = models[name]
        path = d / f"{name}_children.zip"
        save(est, path)
        meta, arrays = read_model(path)
        for attr in attrs:
            key = array_key(meta, *attr)
            arrays[key] = np.where(arrays[key] >= 0, 10**9, arrays[key])
        write_model(path, meta, arrays)
        cases.append(
            Case(
                f"segv_{name}",
                path,
                predict=_save_predict_input(d, name, X),
                note="child indices 10**9",
            )
        )
    est, X = models["DecisionTreeClassifier"]
    path = d / "DecisionTreeClassifier_children.zip"
    save(est, path)
    meta, arrays = read_model(path)
    key = meta["model"]["state"]["tree_"]["state"]["__dict__"]
    nodes_key = next(v["__ndarray__"] for k, v in key if k == "nodes")
    nodes = arrays[nodes_key].copy()
    internal = nodes["left_child"] >= 0
    nodes["left_child"][internal] = 10**9
    nodes["right_child"][internal] = 10**9
    arrays[nodes_key] = nodes
    write_model(path, meta, arrays)
    cases.append(
        Case(
            "segv_DecisionTreeClassifier",
            path,
            predict=_save_predict_input(d, "dtc", X),
            note="child indices 10**9",
        )
    )
    return cases


def _deflate_bomb(n_bytes: int) -> tuple[bytes, int]:
    """Raw deflate of ``n_bytes`` zero bytes and their CRC-32, built from one repeated block.

    After a full flush a deflate block of identical input compresses to identical bytes, so
    the stream is built in O(output) time instead of compressing gigabytes.
    """
    chunk = 2**20
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = bytes(chunk)
    first = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
    second = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
    third = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
    assert second == third
    n_chunks = n_bytes // chunk
    body = first + second * (n_chunks - 1) + comp.flush(zlib.Z_FINISH)
    crc = 0
    for _ in range(n_chunks):
        crc = zlib.crc32(zeros, crc)
    return body, crc


def _zip_with_raw_member(
    path: Path, json_bytes: bytes, name: str, raw: bytes, size: int, crc: int
):
    """A zip with ``model.json`` and a member written from pre-compressed deflate data."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json_bytes)
    # append the raw member by hand: local header, data, then rewrite the central directory
    with zipfile.ZipFile(path, "a") as zf:
        info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.file_size = size
        info.compress_size = len(raw)
        info.CRC = crc
        zf.fp.seek(zf.start_dir)
        info.header_offset = zf.fp.tell()
        zf.fp.write(info.FileHeader(zip64=True))
        zf.fp.write(raw)
        zf.start_dir = zf.fp.tell()
        zf.filelist.append(info)
        zf.NameToInfo[name] = info
        zf._didModify = True


def _memory_cases(d: Path, models: dict) -> list[Case]:
    from rankclust.persistence import save

    est, _ = models["MallowsMixture"]
    save(est, d / "bomb_base.zip")
    with zipfile.ZipFile(d / "bomb_base.zip") as zf:
        json_bytes = zf.read("model.json")
    # 4 GiB of zeros as the arrays.npz member (~4 MB on disk)
    raw, crc = _deflate_bomb(4 * 2**30)
    path = d / "bomb_member.zip"
    _zip_with_raw_member(path, json_bytes, "arrays.npz", raw, 4 * 2**30, crc)
    cases = [Case("bomb_member_4GiB", path, memory_gb=6.0, note="4 GiB arrays.npz member")]
    # an npy header declaring shape (2**33,) float64 (64 GiB) over a few bytes of data
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (2**33,)}
    )
    npz = io.BytesIO()
    with zipfile.ZipFile(npz, "w") as zf:
        zf.writestr("a0.npy", header.getvalue() + bytes(64))
    path = d / "bomb_npy_header.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json_bytes)
        zf.writestr("arrays.npz", npz.getvalue())
    cases.append(
        Case("bomb_npy_shape_2**33", path, memory_gb=6.0, note="npy header shape (2**33,)")
    )
    return cases


def _nan_cases(d: Path, models: dict) -> list[Case]:
    from rankclust.persistence import save

    cases = []
    for name, attr in (("MallowsMixture", "thetas_"), ("PlackettLuceMixture", "scores_")):
        est, R = models[name]
        path = d / f"{name}_nan.zip"
        save(est, path)
        meta, arrays = read_model(path)
        key = array_key(meta, attr)
        arrays[key] = np.full_like(arrays[key], np.nan)
        write_model(path, meta, arrays)
        cases.append(
            Case(
                f"nan_{name}",
                path,
                predict=_save_predict_input(d, name, R),
                note=f"{attr} all NaN",
            )
        )
    return cases


def build_cases(d: Path, *, bombs: bool = True) -> list[Case]:
    """Write every hostile file of issue #16 into ``d``; returns the cases in table order."""
    d.mkdir(parents=True, exist_ok=True)
    models = fitted_models()
    cases = _code_execution_cases(d)
    cases += _function_and_hook_cases(d, models)
    cases += _tree_cases(d, models)
    if bombs:
        cases += _memory_cases(d, models)
    cases += _nan_cases(d, models)
    return cases


# --------------------------------------------------------------------------------------------
# mutating valid models (hypothesis in the tests, atheris in fuzz/)
# --------------------------------------------------------------------------------------------
JSON_VALUES = [
    None,
    True,
    -1,
    0,
    1,
    2,
    10**9,
    -(10**9),
    2**63,
    1e308,
    0.5,
    "x",
    "",
    [],
    {},
    [1, 2],
    {"__float__": "nan"},
    {"__float__": "inf"},
    {"__ndarray__": "a0"},
    {"__function__": "rankclust.distances:kendall_distance"},
    {"__object__": "sklearn.preprocessing:StandardScaler", "params": {}, "state": {}},
]
ARRAY_VALUES = [10**9, -(10**9), -1, 0, 1, 2, np.nan, np.inf, -np.inf, 1e308, -2]
SHAPES = ["drop", "append", "transpose", "flatten", "empty", "scalar", "double"]
DTYPES = ["float32", "int32", "int64", "float64", "bool", "uint8", "<U3", "complex128"]
FUZZ_BASES = [
    "LabelRankingTree",
    "RankTree",
    "DecisionTreeClassifier",
    "MallowsMixture",
    "PlackettLuceMixture",
    "KNeighborsClassifier",
    "SVC",
    "IBLRPlackettLuce",
]


def save_fuzz_bases(d: Path) -> dict[str, tuple[Path, str]]:
    """Save one valid model per :data:`FUZZ_BASES` name; returns ``{name: (file, input)}``."""
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC

    from rankclust.label_ranking import IBLRPlackettLuce
    from rankclust.persistence import save

    d.mkdir(parents=True, exist_ok=True)
    models = fitted_models()
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(40, 3)), np.arange(40) % 3
    lrt, lrt_X = models["LabelRankingTree"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models["KNeighborsClassifier"] = (KNeighborsClassifier(3).fit(X, y), X)
        models["SVC"] = (SVC(probability=True, random_state=0).fit(X, y), X)
        Y = lrt.predict(lrt_X)  # complete rankings as 1-based ranks
        models["IBLRPlackettLuce"] = (IBLRPlackettLuce(n_neighbors=5).fit(lrt_X, Y), lrt_X)
    bases = {}
    for name in FUZZ_BASES:
        est, data = models[name]
        path = d / f"{name}.zip"
        save(est, path)
        bases[name] = (path, str(_save_predict_input(d, name, data)))
    return bases


def _leaves(node, path=()):
    """Paths of every JSON value below ``node`` (dict keys and list indices)."""
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _leaves(v, (*path, i))
    return out


def _set(root, path, value):
    node = root
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def _mutate_array(a: np.ndarray, how: tuple) -> np.ndarray:
    a = a.copy()
    kind = how[0]
    if a.dtype.fields and kind in ("array_value", "array_fill"):
        # a structured array (a tree's nodes): the values of one field
        name = list(a.dtype.fields)[how[1] % len(a.dtype.fields)]
        a[name] = _mutate_array(np.ascontiguousarray(a[name]), how)
        return a
    if kind in ("array_value", "array_fill"):
        value = how[-1]
        if a.dtype.kind in "iub" and not np.isfinite(value):
            value = 10**9
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                cast = np.array(value).astype(a.dtype)
            except (OverflowError, ValueError):
                return a
            if a.size == 0:
                return a
            if kind == "array_fill":
                a[...] = cast
            else:
                a.reshape(-1)[how[2] % a.size] = cast
        return a
    if kind == "array_shape":
        flat = a.reshape(-1)
        return {
            "drop": lambda: flat[:-1],
            "append": lambda: np.concatenate([flat, flat[:1]]),
            "transpose": lambda: a.T.copy(),
            "flatten": lambda: flat,
            "empty": lambda: flat[:0],
            "scalar": lambda: np.asarray(flat[0] if flat.size else 0),
            "double": lambda: np.stack([a, a]),
        }[how[2]]()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return a.astype(how[2])
        except (TypeError, ValueError, OverflowError):
            return a


def patch_declared_size(path: Path, member: str, size: int) -> None:
    """Overwrite ``member``'s uncompressed size in its local and central headers."""
    data = bytearray(path.read_bytes())
    name = member.encode()
    for sig, offset, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        pos = data.find(sig)
        while 0 <= pos < len(data) - name_at:
            n = struct.unpack_from(
                "<H", data, pos + name_at - (4 if sig == b"PK\x03\x04" else 18)
            )[0]
            if data[pos + name_at : pos + name_at + n] == name:
                struct.pack_into("<I", data, pos + offset, size)
            pos = data.find(sig, pos + 4)
    path.write_bytes(bytes(data))


def mutate_model(path: Path, base: Path, mutations: list) -> None:
    """Write ``base`` with ``mutations`` applied to ``path`` (the fuzzers' one mutator).

    A mutation is a tuple: ``("json", leaf, value index)``, ``("delete_key", key)``,
    ``("array_value", array, element, value)``, ``("array_fill", array, value)``,
    ``("array_shape", array, SHAPES item)``, ``("array_dtype", array, DTYPES item)``,
    ``("byte", offset, byte)``, ``("truncate", length)`` or
    ``("declared_size", member, size)``; indices wrap around what the file holds.
    """
    meta, arrays = read_model(base)
    leaves = _leaves(meta["model"])[1:]
    keys = sorted(arrays)
    raw_edits = []
    for how in mutations:
        kind = how[0]
        if kind == "json" and leaves:
            _set(meta["model"], leaves[how[1] % len(leaves)], JSON_VALUES[how[2]])
            leaves = _leaves(meta["model"])[1:]
        elif kind == "delete_key":
            dict_keys = [p for p in leaves if isinstance(p[-1], str)]
            if dict_keys:
                victim = dict_keys[how[1] % len(dict_keys)]
                parent = meta["model"]
                for p in victim[:-1]:
                    parent = parent[p]
                parent.pop(victim[-1], None)
                leaves = _leaves(meta["model"])[1:]
        elif kind.startswith("array") and keys:
            key = keys[how[1] % len(keys)]
            arrays[key] = _mutate_array(arrays[key], how)
        else:
            raw_edits.append(how)
    write_model(path, meta, arrays)
    for how in raw_edits:
        data = bytearray(path.read_bytes())
        if not data:  # truncated to nothing already
            break
        if how[0] == "byte":
            data[how[1] % len(data)] = how[2]
            path.write_bytes(bytes(data))
        elif how[0] == "truncate":
            path.write_bytes(bytes(data[: how[1] % len(data)]))
        else:
            patch_declared_size(path, how[1], how[2])


# --------------------------------------------------------------------------------------------
# running one case in an isolated interpreter
# --------------------------------------------------------------------------------------------
_CHILD = """
import json, resource, sys, time, warnings
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
warnings.simplefilter("ignore")
out = {{}}
t0 = time.perf_counter()
try:
    import numpy as np
    from rankclust.persistence import load
    model = load({path!r})
    out["loaded"] = type(model).__name__
    predict = {predict!r}
    if predict:
        if predict.endswith(".npy"):
            data = np.load(predict)
        else:
            from rankclust import Rankings
            spec = json.load(open(predict))
            data = Rankings(spec["ranks"], kind=spec["kind"])
        labels = np.asarray(model.predict(data))
        out["predicted"] = [int(v) for v in np.unique(labels)[:10]]
    out["outcome"] = "ok"
except BaseException as exc:
    out["outcome"] = type(exc).__name__
    out["message"] = str(exc)[:400]
out["seconds_in_child"] = time.perf_counter() - t0
out["main_imported"] = "rankclust.__main__" in sys.modules
sys.stdout.write("\\n@@RESULT@@" + json.dumps(out))
"""


_LAUNCHER = """
import json, os, subprocess, sys, time
usage_path, timeout, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
proc = subprocess.Popen(argv)
start, timed_out = time.perf_counter(), False
while True:
    pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
    if pid:
        break
    if not timed_out and time.perf_counter() - start > timeout:
        proc.kill()
        timed_out = True
    time.sleep(0.02)
report = {"returncode": os.waitstatus_to_exitcode(status), "maxrss_kb": usage.ru_maxrss,
          "timed_out": timed_out}
open(usage_path, "w").write(json.dumps(report))
"""


def run_case(case: Case, *, src: Path | None = None, timeout: float = 120) -> dict:
    """Load (and predict) ``case`` in a fresh interpreter importing rankclust from ``src``.

    Returns the child's report plus ``returncode`` (negative: killed by that signal),
    ``signal`` (its name or None), ``maxrss_mb`` (peak resident memory of the child, from
    ``os.wait4``), ``seconds`` (wall time, interpreter start included) and the side effects
    (``marker_created``, ``victim_changed``).
    """
    limit = int(case.memory_gb * 2**30)
    code = textwrap.dedent(_CHILD).format(
        limit=limit, path=str(case.path), predict=str(case.predict) if case.predict else ""
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    env["PYTHONPATH"] = str(src or REPO / "src")
    out_path, err_path = case.path.with_suffix(".stdout"), case.path.with_suffix(".stderr")
    usage_path = case.path.with_suffix(".rusage")
    start = time.perf_counter()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        # started from a small launcher: Linux carries a forking process's peak RSS into
        # the child's ru_maxrss, so forking from this (large) process would hide the child's
        subprocess.run(
            [
                sys.executable,
                "-c",
                _LAUNCHER,
                str(usage_path),
                str(timeout),
                sys.executable,
                "-c",
                code,
            ],
            stdout=out,
            stderr=err,
            env=env,
            cwd=case.path.parent,  # a command with a relative path would land here
            check=False,
        )
    usage = json.loads(usage_path.read_text())
    usage_path.unlink()
    stdout, stderr = out_path.read_bytes(), err_path.read_bytes()
    out_path.unlink()
    err_path.unlink()
    seconds = time.perf_counter() - start
    text = stdout.decode(errors="replace")
    marker = text.rfind("@@RESULT@@")
    report: dict[str, Any] = (
        json.loads(text[marker + len("@@RESULT@@") :]) if marker >= 0 else {"outcome": "crash"}
    )
    code_ = usage["returncode"]
    report["returncode"] = code_
    report["signal"] = signal.Signals(-code_).name if code_ < 0 else None
    report["timed_out"] = usage["timed_out"]
    report["maxrss_mb"] = round(usage["maxrss_kb"] / 1024, 1)
    report["seconds"] = round(seconds, 2)
    report["stderr_tail"] = stderr.decode(errors="replace")[-300:]
    report["marker_created"] = bool(case.marker and case.marker.exists())
    report["victim_changed"] = bool(
        case.victim
        and (not case.victim.exists() or case.victim.read_bytes() != case.victim_content)
    )
    return report


# --------------------------------------------------------------------------------------------
# many files in one isolated interpreter (the test suite and the fuzzing)
# --------------------------------------------------------------------------------------------
_BATCH = """
import json, resource, signal, sys, warnings
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
warnings.simplefilter("ignore")
sys.path.insert(0, {repo!r})
import numpy as np
from rankclust import Rankings
from rankclust.persistence import load
from tests.reliability._harness import is_clean

class Hang(Exception):
    pass

def alarm(*_):
    raise Hang("no answer within {per_case} s")

signal.signal(signal.SIGALRM, alarm)
spec = json.load(open({spec!r}))
progress = open({progress!r}, "w")
inputs = {{}}
results = []
for entry in spec:
    progress.write(entry["path"] + "\\n")
    progress.flush()
    signal.alarm({per_case})
    try:
        try:
            model = load(entry["path"])
        except ValueError as exc:
            results.append(["refused", str(exc)[:300]])
            continue
        except BaseException as exc:
            results.append(["load:" + type(exc).__name__, str(exc)[:300]])
            continue
        src = entry.get("predict")
        if not src:
            results.append(["loaded", ""])
            continue
        if src not in inputs:
            if src.endswith(".npy"):
                inputs[src] = np.load(src)
            else:
                d = json.load(open(src))
                inputs[src] = Rankings(d["ranks"], kind=d["kind"])
        try:
            np.asarray(getattr(model, entry.get("method", "predict"))(inputs[src]))
            results.append(["predicted", ""])
        except BaseException as exc:
            # a loaded model may refuse an input at its own boundary (e.g. a model of more
            # features than X has): a clean error, as the reliability harness defines it
            kind = "predict-refused" if is_clean(exc) else "predict:" + type(exc).__name__
            results.append([kind, str(exc)[:300]])
    finally:
        signal.alarm(0)
json.dump(results, open({out!r}, "w"))
"""


def run_batch(
    entries: list[dict], work: Path, *, memory_gb: float = 2.0, per_case: int = 20
) -> dict:
    """Load (and predict on) every ``{"path", "predict"}`` entry in one isolated interpreter.

    Returns ``{"results": [[outcome, message], ...], "returncode", "signal", "maxrss_mb",
    "last_started"}``: ``results`` is None when the interpreter died (then ``last_started``
    names the file it was on). Outcomes: ``refused`` (ValueError from load), ``loaded``,
    ``predicted``, ``predict-refused`` (a clean error from the model's input checks, e.g.
    ``NotFittedError`` or a feature count that does not match), ``load:<Exception>`` or
    ``predict:<Exception>`` (the last two are defects).
    """
    spec, progress, out = work / "batch.json", work / "batch.progress", work / "batch.out"
    spec.write_text(json.dumps(entries))
    code = textwrap.dedent(_BATCH).format(
        repo=str(REPO),
        limit=int(memory_gb * 2**30),
        per_case=per_case,
        spec=str(spec),
        progress=str(progress),
        out=str(out),
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    env["PYTHONPATH"] = str(REPO / "src")
    usage_path = work / "batch.rusage"
    proc = subprocess.run(
        [
            *(sys.executable, "-c", _LAUNCHER, str(usage_path)),
            str(per_case * len(entries) + 60),
            *(sys.executable, "-c", code),
        ],
        capture_output=True,
        env=env,
        cwd=work,
        check=False,
    )
    usage = json.loads(usage_path.read_text())
    rc = usage["returncode"]
    lines = progress.read_text().splitlines() if progress.exists() else []
    return {
        "results": json.loads(out.read_text()) if out.exists() and rc == 0 else None,
        "returncode": rc,
        "signal": signal.Signals(-rc).name if rc < 0 else None,
        "maxrss_mb": round(usage["maxrss_kb"] / 1024, 1),
        "last_started": lines[-1] if lines else None,
        "stderr_tail": proc.stderr.decode(errors="replace")[-500:],
    }
