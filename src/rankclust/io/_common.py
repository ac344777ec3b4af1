"""Shared plumbing of the readers: opening files, decoding lines, line-numbered errors.

Every reader in :mod:`rankclust.io` follows one contract:

* it counts what it reads and **refuses** a malformed line with a :class:`DataFormatError`
  (a ``ValueError``) that names the file, the 1-based line number and the problem;
* with ``strict=False`` it skips malformed lines instead and reports **every** skipped line:
  one :class:`MalformedLinesWarning` whose ``skipped`` attribute lists them as
  :class:`SkippedLine` records (the warning text shows the first few).

Private module: inputs of the ``_`` functions are trusted.
"""

from __future__ import annotations

import gzip
import io
import os
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeAlias

__all__ = [
    "MAX_RANK_MATRIX_BYTES",
    "DataFormatError",
    "MalformedLinesWarning",
    "PathOrFile",
    "SkippedLine",
]

#: A path (str or ``os.PathLike``) or an open file object (text or binary).
PathOrFile: TypeAlias = str | os.PathLike | IO[Any]

_GZIP_MAGIC = b"\x1f\x8b"
#: Largest rank matrix (rows x items, int64) a reader builds. A file that declares or uses
#: more items than fit is refused with a DataFormatError *before* anything is allocated: a
#: 20-byte file can declare 10**9 items.
MAX_RANK_MATRIX_BYTES = 4 * 2**30

#: How many skipped lines the warning text spells out (the attribute holds all of them).
_SHOWN_IN_WARNING = 20


class DataFormatError(ValueError):
    """A malformed input file: names the file, the 1-based line and the problem.

    Attributes
    ----------
    source : str
        File name (or ``"<stream>"`` for an unnamed file object).
    line : int or None
        1-based line number, None for a problem of the whole file.
    problem : str
        What is wrong.
    """

    def __init__(self, source: str, line: int | None, problem: str) -> None:
        self.source = source
        self.line = line
        self.problem = problem
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class SkippedLine:
    """One line a reader skipped with ``strict=False``.

    Attributes
    ----------
    line : int
        1-based line number in the file.
    text : str
        The line as read (decoded with ``errors="replace"`` when it could not be decoded).
    reason : str
        Why it was skipped.
    """

    line: int
    text: str
    reason: str


class MalformedLinesWarning(UserWarning):
    """Issued once per file read with ``strict=False`` that had malformed lines.

    Attributes
    ----------
    source : str
        The file.
    skipped : tuple of SkippedLine
        Every skipped line, in file order.
    """

    def __init__(self, source: str, skipped: Sequence[SkippedLine]) -> None:
        self.source = source
        self.skipped = tuple(skipped)
        shown = "; ".join(f"line {s.line}: {s.reason}" for s in self.skipped[:_SHOWN_IN_WARNING])
        more = len(self.skipped) - _SHOWN_IN_WARNING
        tail = f"; and {more} more (see the warning's .skipped attribute)" if more > 0 else ""
        super().__init__(f"{source}: skipped {len(self.skipped)} malformed line(s): {shown}{tail}")


class _Problems:
    """Collects malformed lines: raises at once when strict, else records them."""

    def __init__(self, source: str, strict: bool) -> None:
        self.source = source
        self.strict = strict
        self.skipped: list[SkippedLine] = []

    def bad(self, line: int, text: str, reason: str) -> None:
        if self.strict:
            raise DataFormatError(self.source, line, reason)
        self.skipped.append(SkippedLine(line, text, reason))

    def warn(self, stacklevel: int = 3) -> None:
        if self.skipped:
            self.skipped.sort(key=lambda s: s.line)
            warnings.warn(
                MalformedLinesWarning(self.source, self.skipped), stacklevel=stacklevel + 1
            )


def _check_matrix_size(source: str, line: int | None, n_rows: int, n_items: int, how: str) -> None:
    """Refuse a rank matrix larger than :data:`MAX_RANK_MATRIX_BYTES` (``how``: "declares"...)."""
    need = max(n_rows, 1) * n_items * 8
    if need > MAX_RANK_MATRIX_BYTES:
        raise DataFormatError(
            source,
            line,
            f"{how} {n_items} items: a {n_rows} x {n_items} rank matrix needs "
            f"{need / 2**30:.3g} GiB (more than rankclust.io.MAX_RANK_MATRIX_BYTES = "
            f"{MAX_RANK_MATRIX_BYTES / 2**30:.3g} GiB)",
        )


def _source_name(path_or_file: PathOrFile) -> str:
    if isinstance(path_or_file, str | os.PathLike):
        return os.fspath(path_or_file)
    return str(getattr(path_or_file, "name", "<stream>"))


def _read_bytes(path_or_file: PathOrFile) -> bytes | str:
    """The whole content, gunzipped when it starts with the gzip magic bytes."""
    if isinstance(path_or_file, str | os.PathLike):
        data: bytes | str = Path(path_or_file).read_bytes()
    elif hasattr(path_or_file, "read"):
        data = path_or_file.read()
    else:
        raise TypeError(f"expected a path or a file object, got {type(path_or_file).__name__}")
    if isinstance(data, bytes) and data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise DataFormatError(
                _source_name(path_or_file), None, f"corrupt gzip data ({exc})"
            ) from None
    return data


def _iter_lines(
    path_or_file: PathOrFile, encoding: str, problems: _Problems
) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every line, without its line ending.

    A line that cannot be decoded is reported through ``problems`` (raised when strict).
    """
    data = _read_bytes(path_or_file)
    if isinstance(data, str):
        text = data
    else:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            # Locate the bad line; with strict=False decode line by line and skip the bad ones.
            line = data.count(b"\n", 0, exc.start) + 1
            if problems.strict:
                raise DataFormatError(
                    problems.source, line, f"cannot decode the bytes as {encoding} ({exc.reason})"
                ) from None
            yield from _iter_lines_bytewise(data, encoding, problems)
            return
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file ends with a newline
    for k, line in enumerate(lines, start=1):
        yield k, line[:-1] if line.endswith("\r") else line


def _iter_lines_bytewise(
    data: bytes, encoding: str, problems: _Problems
) -> Iterator[tuple[int, str]]:
    raw = data.split(b"\n")
    if raw and raw[-1] == b"":
        raw.pop()
    for k, line in enumerate(raw, start=1):
        line = line.removesuffix(b"\r")
        try:
            text = line.decode(encoding)
        except UnicodeDecodeError as exc:
            problems.bad(
                k,
                line.decode(encoding, errors="replace"),
                f"cannot decode as {encoding} ({exc.reason})",
            )
            continue
        if k == 1 and text.startswith("\ufeff"):
            text = text[1:]
        yield k, text


class _TextSink:
    """Open ``path_or_file`` for writing text; gzip when the path ends in ``.gz``.

    Gzip output is deterministic (no file name, mtime 0) so equal data give equal bytes.
    """

    def __init__(self, path_or_file: PathOrFile, encoding: str = "utf-8") -> None:
        self._target = path_or_file
        self._encoding = encoding
        self._close: list[Any] = []
        self._detach: io.TextIOWrapper | None = None

    def __enter__(self) -> IO[str]:
        t = self._target
        if isinstance(t, str | os.PathLike):
            p = Path(t)
            raw = open(p, "wb")  # closed in __exit__
            self._close.append(raw)
            if p.name.endswith(".gz"):
                gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9)
                self._close.insert(0, gz)
                raw = gz
            txt = io.TextIOWrapper(raw, encoding=self._encoding, newline="")
            self._close.insert(0, txt)
            return txt
        if isinstance(t, io.TextIOBase):
            return t
        txt = io.TextIOWrapper(t, encoding=self._encoding, newline="")
        self._detach = txt  # wrap the caller's binary stream, leave it open afterwards
        return txt

    def __exit__(self, *exc: Any) -> None:
        if self._detach is not None:
            self._detach.flush()
            self._detach.detach()  # leave the caller's binary stream open
        for f in self._close:
            f.close()
