"""Where the first run's time goes: ``rankclust demo`` in-process, numba compile time per kernel.

Run with an empty cache to see a fresh install's first run (``NUMBA_CACHE_DIR`` points numba's
cache elsewhere than the package's ``__pycache__``):

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/first_run_profile.py PLOTS_DIR OUT.json

A listener on numba's ``numba:compile`` events records, per dispatcher, the process CPU time
of its compilations without the nested compilations of the kernels it calls (exclusive
time) and how many signatures it compiled. Prints the total wall and CPU time of the demo
and the most expensive kernels; writes everything to ``OUT.json``.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict

from numba.core import event

CLOCK = time.process_time
_stack: list[list] = []
_exclusive: dict[str, float] = defaultdict(float)
_signatures: dict[str, int] = defaultdict(int)


class _CompileTimer(event.Listener):
    def on_start(self, ev: event.Event) -> None:
        _stack.append([ev.data["dispatcher"], CLOCK(), 0.0])

    def on_end(self, ev: event.Event) -> None:
        disp, t0, nested = _stack.pop()
        dt = CLOCK() - t0
        name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
        _exclusive[name] += dt - nested
        _signatures[name] += 1
        if _stack:
            _stack[-1][2] += dt


def main() -> None:
    plots, out_path = sys.argv[1], sys.argv[2]
    event.register("numba:compile", _CompileTimer())
    w0, c0 = time.perf_counter(), CLOCK()
    from rankclust.cli._main import main as cli

    try:
        cli(["demo", "--plots", plots, "--quiet"])
    except SystemExit:
        pass
    rows = sorted(_exclusive.items(), key=lambda kv: -kv[1])
    out = {
        "wall": time.perf_counter() - w0,
        "total": CLOCK() - c0,
        "compile_excl_sum": sum(_exclusive.values()),
        "n_compiles": sum(_signatures.values()),
        "rows": [(k, v, _signatures[k]) for k, v in rows],
    }
    with open(out_path, "w") as fh:
        json.dump(out, fh)
    print(
        f"wall {out['wall']:.1f} s, CPU {out['total']:.1f} s, of which compiling "
        f"{out['compile_excl_sum']:.1f} s ({out['n_compiles']} signatures of {len(rows)} "
        "kernels)",
        file=sys.stderr,
    )
    for name, seconds, n_sig in out["rows"][:25]:
        print(f"{seconds:7.2f} s  x{n_sig}  {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
