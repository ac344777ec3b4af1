"""Where a command writes: results to stdout, chatter and progress bars to stderr.

A reader that closes standard output early (``rankclust ... | head``) ends the printing
only: the command goes on quietly and still writes every file it was asked for.
"""

from __future__ import annotations

import contextlib
import re
import sys
import time
import warnings
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

__all__ = ["MAX_SHOWN_ITEMS", "Console", "one_line", "silence", "warnings_as_lines"]

#: Items of a ranking shown in text output without ``--wide``.
MAX_SHOWN_ITEMS = 12


class Console:
    """Where the command writes: results to stdout, chatter and progress to stderr."""

    def __init__(
        self, quiet: bool, out: TextIO | None = None, err: TextIO | None = None, *,
        wide: bool = False,
    ):  # fmt: skip
        self.quiet = quiet
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        #: show rankings whole (``--wide``) instead of their first ``MAX_SHOWN_ITEMS`` items
        self.max_items: int | None = None if wide else MAX_SHOWN_ITEMS
        #: the reader of standard output went away (``rankclust ... | head``)
        self.out_closed = False
        self.err_closed = False

    def print(self, text: str = "") -> None:
        """Print a line of results; a closed pipe ends the printing, not the command.

        Each line is flushed, so a reader that stops early (``| head``) is noticed here; the
        command then goes on quietly and still writes every file it was asked for.
        """
        if self.out_closed:
            return
        try:
            print(text, file=self.out, flush=True)
        except BrokenPipeError:
            self.out_closed = True
            silence(self.out)

    def info(self, text: str) -> None:
        if not self.quiet:
            self.note(text)

    def note(self, text: str) -> None:
        """A line on standard error (warnings, progress); a closed pipe silences it too."""
        if self.err_closed:
            return
        try:
            print(text, file=self.err, flush=True)
        except BrokenPipeError:
            self.err_closed = True
            silence(self.err)

    def progress(self, iterable: Iterable, *, total: int | None = None, desc: str = "") -> Any:
        from tqdm.auto import tqdm

        return tqdm(
            iterable, total=total, desc=desc, file=_PipeSafe(self),
            disable=self.quiet or self.err_closed, leave=False,
            dynamic_ncols=True,
        )  # fmt: skip

    @contextlib.contextmanager
    def task(self, text: str) -> Iterator[None]:
        """Announce a long step and its duration (silent with --quiet)."""
        self.info(f"{text} ...")
        start = time.perf_counter()
        yield
        self.info(f"  done in {time.perf_counter() - start:.1f} s")

    def summary(self, text: str, n_items: int) -> None:
        """Print a summary table, then say so if its rankings were cut."""
        self.print(text)
        self.cut_note(n_items)

    def cut_note(self, n_items: int) -> None:
        """Say that rankings of ``n_items`` items were cut (and how to see them whole)."""
        if self.max_items is not None and n_items > self.max_items:
            self.print(
                f"(rankings are cut after {self.max_items} of their {n_items} items; --wide "
                "shows them whole)"
            )


class _PipeSafe:
    """Standard error for the progress bars: a closed pipe silences them, it stops nothing."""

    def __init__(self, console: Console):
        self._console = console

    def write(self, text: str) -> int:
        self._call("write", text)
        return len(text)

    def flush(self) -> None:
        self._call("flush")

    def _call(self, name: str, *args: Any) -> None:
        console = self._console
        if console.err_closed:
            return
        try:
            getattr(console.err, name)(*args)
        except BrokenPipeError:
            console.err_closed = True
            silence(console.err)

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ...
        return getattr(self._console.err, name)


def silence(stream: TextIO) -> None:
    """Send whatever is still buffered for a closed pipe to /dev/null.

    Without this, Python flushes the buffer again at exit and prints "Exception ignored
    ... BrokenPipeError" (the idiom of the Python documentation on SIGPIPE).
    """
    import os

    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's capture buffer)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def one_line(message: str) -> str:
    """The first non-blank line of a message (errors and warnings are shown as one line)."""
    lines = [ln.strip() for ln in str(message).strip().splitlines() if ln.strip()]
    return lines[0] if lines else "error"


@contextlib.contextmanager
def warnings_as_lines(console: Console) -> Iterator[None]:
    """Show warnings (malformed lines skipped, non-convergence) as one line each.

    Warnings that differ only in their numbers (the same warning from each fold of ``--cv``,
    or from each K of ``select-k``) are shown once, with how many similar ones followed; all
    are shown when the command ends, in the order of their first occurrence.
    """
    seen: dict[str, list] = {}

    def show(message, category, filename, lineno, file=None, line=None):
        text = one_line(str(message))
        seen.setdefault(re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", text), [text, 0])[1] += 1

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = show
            yield
    finally:
        if not console.quiet:
            for text, count in seen.values():
                more = f" (and {count - 1} similar)" if count > 1 else ""
                console.note(f"rankclust: warning: {text}{more}")
