"""Shared helpers of the reliability tests: clean-error checks, timeouts, fuzz counters.

A hostile input must end in one of two ways: a documented result, or a *clean* error -- a
``ValueError`` or ``TypeError`` raised by rankclust's own boundary code (or scikit-learn's
input validation) with a message. Anything else (an ``IndexError`` from numpy, a
``ZeroDivisionError``, a ``ValueError`` raised deep inside numpy or numba, a hang) is a
defect. :func:`outcome` classifies one call; :func:`assert_clean` asserts on it.

Counters: every fuzz case goes through :func:`outcome`, which counts it per entry point.
With ``RANKCLUST_FUZZ_COUNTS=path`` in the environment the counts are written to ``path`` as
JSON when the test process exits (used to fill the table in ``docs/reliability.md``).
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rankclust

SRC = Path(rankclust.__file__).resolve().parent
REPO = SRC.parents[1]
PYTHON = sys.executable

#: Files outside rankclust whose ValueErrors/TypeErrors are deliberate, readable input checks.
_CLEAN_FOREIGN = (
    os.sep + os.path.join("sklearn", "utils", "validation.py"),
    os.sep + os.path.join("sklearn", "utils", "_param_validation.py"),
    os.sep + os.path.join("sklearn", "utils", "multiclass.py"),
    # check_array's dtype conversion: "could not convert string to float: 'a'"
    os.sep + os.path.join("sklearn", "utils", "_array_api.py"),
    os.sep + os.path.join("sklearn", "base.py"),
)

COUNTS: Counter[str] = Counter()


def _dump_counts() -> None:
    path = os.environ.get("RANKCLUST_FUZZ_COUNTS")
    if not path or not COUNTS:
        return
    old: dict[str, int] = {}
    if os.path.exists(path):
        try:
            old = json.loads(Path(path).read_text())
        except ValueError:
            old = {}
    for k, v in COUNTS.items():
        old[k] = old.get(k, 0) + v
    Path(path).write_text(json.dumps(dict(sorted(old.items())), indent=1))


atexit.register(_dump_counts)


class Hang(Exception):
    """A call ran past its time limit."""


def _numba_is_compiling() -> bool:
    """True while this thread holds numba's compiler lock (a compile, or a cache load/write)."""
    from numba.core.compiler_lock import global_compiler_lock

    return global_compiler_lock.is_locked()


class _Alarm:
    """``signal.alarm``-based time limit (main thread only; a no-op elsewhere).

    The limit never includes numba's first compilation of a kernel or its cache write: a first
    compile can take longer than the limit on a slow or busy machine, and interrupting it leaves
    numba's cache half written. An alarm that fires while numba holds its compiler lock polls
    every second until the lock is released and then grants a fresh ``seconds`` window (at most
    :attr:`MAX_COMPILE_S` of compiling in all, so a hang inside the compiler still ends).
    """

    MAX_COMPILE_S = 600

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds
        self.active = (
            seconds > 0
            and hasattr(signal, "SIGALRM")
            and threading.current_thread() is threading.main_thread()
        )
        self.compile_polls = 0
        self.in_compile = False

    def __enter__(self) -> None:
        if self.active:
            self.old = signal.signal(signal.SIGALRM, self._fire)
            signal.alarm(self.seconds)

    def _fire(self, *_: Any) -> None:
        if _numba_is_compiling() and self.compile_polls < self.MAX_COMPILE_S:
            self.compile_polls += 1
            self.in_compile = True
            signal.alarm(1)
            return
        if self.in_compile:  # the compile that held the alarm has ended: a fresh window
            self.in_compile = False
            signal.alarm(self.seconds)
            return
        raise Hang(f"no answer within {self.seconds} s")

    def __exit__(self, *exc: Any) -> None:
        if self.active:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, self.old)


def raised_in(exc: BaseException) -> str:
    """File of the innermost frame of ``exc``'s traceback."""
    tb = traceback.extract_tb(exc.__traceback__)
    return tb[-1].filename if tb else "<unknown>"


def is_clean(exc: BaseException) -> bool:
    """A ValueError/TypeError with a message, raised by rankclust or sklearn's validation."""
    if not isinstance(exc, ValueError | TypeError) or not str(exc).strip():
        return False
    where = os.path.realpath(raised_in(exc))
    return where.startswith(str(SRC)) or where.endswith(_CLEAN_FOREIGN)


def outcome(entry: str, fn: Callable[..., Any], *args: Any, timeout: int = 20, **kw: Any):
    """Run ``fn(*args, **kw)`` under a time limit; return ``("ok", result)`` or ``("error", exc)``.

    Any exception that is not clean is re-raised with a message naming the entry point, the
    exception and where it was raised -- so a hypothesis test fails on it with a readable
    report. ``Hang`` (time limit) is re-raised as an ``AssertionError``.
    """
    COUNTS[entry] += 1
    try:
        with _Alarm(timeout):
            result = fn(*args, **kw)
    except Hang as exc:
        raise AssertionError(f"{entry}: hang ({exc})") from None
    except Exception as exc:  # classifying is the point
        if is_clean(exc):
            return "error", exc
        raise AssertionError(
            f"{entry}: unclean {type(exc).__name__}: {exc!s:.300} (raised in {raised_in(exc)})"
        ) from exc
    return "ok", result


def assert_clean(entry: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """Like :func:`outcome` but the call must fail with a clean error; returns the exception."""
    status, value = outcome(entry, fn, *args, **kw)
    assert status == "error", f"{entry}: expected a clean ValueError/TypeError, got {value!r:.200}"
    return value


def run_isolated(code: str, *, timeout: float = 120, memory_gb: float = 4.0) -> dict:
    """Run ``code`` in a fresh interpreter with an address-space limit; return its JSON result.

    ``code`` must assign a JSON-serialisable ``result``. A crash, a hang (``timeout``) or a
    memory blow-up shows in the returned dict (``status`` = "crash"/"timeout") instead of
    taking the test process down.
    """
    limit = int(memory_gb * 2**30)
    body = textwrap.indent(textwrap.dedent(code).strip("\n"), "    ")
    prog = "\n".join(
        [
            "import json, resource, sys, traceback",
            f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))",
            "try:",
            body,
            '    out = {"status": "ok", "result": result}',
            "except BaseException as exc:",
            "    tb = traceback.extract_tb(exc.__traceback__)",
            '    out = {"status": "raised", "type": type(exc).__name__,',
            '           "message": str(exc)[:500], "where": tb[-1].filename if tb else ""}',
            'sys.stdout.write("\\n@@RESULT@@" + json.dumps(out))',
        ]
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    try:
        proc = subprocess.run(
            [PYTHON, "-c", prog], capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    marker = proc.stdout.rfind("@@RESULT@@")
    if marker < 0:
        return {"status": "crash", "returncode": proc.returncode, "stderr": proc.stderr[-2000:]}
    return json.loads(proc.stdout[marker + len("@@RESULT@@") :])
