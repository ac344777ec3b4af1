"""The reliability harness itself: its time limit must never cut a numba compile short."""

from __future__ import annotations

import time

import pytest
from numba.core.compiler_lock import global_compiler_lock

from tests.reliability._harness import outcome


def _busy(seconds: float, *, compiling: bool) -> str:
    if compiling:  # what numba holds while it compiles a kernel or writes its cache
        with global_compiler_lock:
            time.sleep(seconds)
    else:
        time.sleep(seconds)
    return "done"


def test_time_limit_stops_a_slow_call():
    with pytest.raises(AssertionError, match="hang"):
        outcome("slow", _busy, 2.5, compiling=False, timeout=1)


def test_time_limit_waits_for_a_compile_and_then_grants_a_fresh_window():
    # 1.6 s "compiling" then 0.5 s of work: over the 1 s limit in all, under it after the compile
    def compile_then_work():
        _busy(1.6, compiling=True)
        return _busy(0.5, compiling=False)

    assert outcome("compile", compile_then_work, timeout=1) == ("ok", "done")
