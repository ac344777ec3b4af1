"""Shared plumbing of the readers: opening files, decoding lines, line-numbered errors.

Every reader in :mod:`rankclust.io` follows one contract:

* it counts what it reads and **refuses** a malformed line with a :class:`DataFormatError`
  (a ``ValueError``) that names the file, the 1-based line number and the problem;
* with ``strict=False`` it skips malformed lines instead and reports **every** skipped line:
  one :class:`MalformedLinesWarning` whose ``skipped`` attribute lists them as
  :class:`SkippedLine` records (the warning text shows the first few).

* it checks the sizes it is about to allocate (bytes read, rows, items, rows x items)
  against :class:`~rankclust.io.InputLimits` *before* allocating (:class:`_Budget`), and
  inflates gzip data in pieces, stopping at ``max_input_bytes``.

Private module: inputs of the ``_`` functions are trusted.
"""

from __future__ import annotations

import gzip
import io
import os
import warnings
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeAlias

from rankclust._limits import InputLimits, resolve_limits

__all__ = [
    "DataFormatError",
    "MalformedLinesWarning",
    "PathOrFile",
    "SkippedLine",
]

#: A path (str or ``os.PathLike``) or an open file object (text or binary).
PathOrFile: TypeAlias = str | os.PathLike | IO[Any]

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20  # gzip is inflated this many bytes at a time

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


class _Budget:
    """The input limits of one read: every check raises a DataFormatError naming the limit.

    ``line`` is the 1-based line that declares or implies the size (None: the whole file).
    """

    def __init__(self, source: str, limits: InputLimits | Mapping[str, Any] | None) -> None:
        self.source = source
        self.limits = resolve_limits(limits)

    def refuse(self, line: int | None, what: str, name: str) -> DataFormatError:
        """The error for ``what`` (e.g. "declares 10 items") exceeding the limit ``name``."""
        limit = getattr(self.limits, name)
        return DataFormatError(
            self.source,
            line,
            f"{what}, more than the limit {name}={limit} ({InputLimits.how_to_raise(name)})",
        )

    def items(self, m: int, line: int | None, how: str = "has") -> None:
        """Refuse more than ``max_items`` items (``how``: "declares", "uses", ...)."""
        if m > self.limits.max_items:
            raise self.refuse(line, f"{how} {m} items", "max_items")

    def rows(self, n: int, line: int | None) -> None:
        """Refuse more than ``max_rows`` data rows (call with the count so far)."""
        if n > self.limits.max_rows:
            raise self.refuse(line, f"reaches {n} data rows", "max_rows")

    def cells(self, n_rows: int, n_items: int, line: int | None, how: str = "has") -> None:
        """Refuse a rank matrix of more than ``max_cells`` entries (and too many items)."""
        self.items(n_items, line, how)
        if max(n_rows, 1) * n_items > self.limits.max_cells:
            raise self.refuse(
                line,
                f"{how} {n_items} items: a {n_rows} x {n_items} rank matrix has "
                f"{max(n_rows, 1) * n_items} cells",
                "max_cells",
            )


def _source_name(path_or_file: PathOrFile) -> str:
    if isinstance(path_or_file, str | os.PathLike):
        return os.fspath(path_or_file)
    return str(getattr(path_or_file, "name", "<stream>"))


def _inflate(raw: IO[bytes], head: bytes, source: str, limit: int) -> bytes:
    """Gunzip ``head`` + the rest of ``raw`` in pieces; refuse more than ``limit`` bytes out.

    Handles concatenated gzip members (as ``gzip.decompress`` does). Never holds more than
    ``limit`` + one piece of output, whatever the compression ratio.
    """
    out = bytearray()
    pending = head
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        while True:
            if not pending:
                pending = raw.read(_CHUNK)
                if not pending:  # input exhausted mid-stream: truncated (reported below)
                    out += d.flush()  # whatever the inflater still holds back
                    break
            piece = d.decompress(pending, _CHUNK)
            pending = d.unconsumed_tail
            out += piece
            if len(out) > limit:
                raise DataFormatError(
                    source,
                    None,
                    f"inflates to more than {limit} bytes, the limit max_input_bytes "
                    f"({InputLimits.how_to_raise('max_input_bytes')})",
                )
            if d.eof:  # end of a member: another member, zero padding or the end
                rest = d.unused_data  # (unconsumed_tail may repeat it: not added)
                if not rest:
                    rest = raw.read(_CHUNK)
                if not rest.strip(b"\x00") and not raw.read(1):
                    break
                if rest[:2] != _GZIP_MAGIC:
                    raise zlib.error("data after the end of the gzip stream")
                d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                pending = rest
        if not d.eof:
            raise EOFError("the gzip stream ends before its end-of-stream marker")
    except (zlib.error, EOFError, OSError) as exc:
        raise DataFormatError(source, None, f"corrupt or truncated gzip data ({exc})") from None
    return bytes(out)


def _read_bytes(
    path_or_file: PathOrFile, limits: InputLimits | Mapping[str, Any] | None = None
) -> bytes | str:
    """The whole content, gunzipped when it starts with the gzip magic bytes.

    At most ``max_input_bytes`` (after decompression) are read; a larger input is refused
    with a :class:`DataFormatError` before it is held in memory.
    """
    limit = resolve_limits(limits).max_input_bytes
    source = _source_name(path_or_file)
    too_big = DataFormatError(
        source,
        None,
        f"holds more than {limit} bytes, the limit max_input_bytes "
        f"({InputLimits.how_to_raise('max_input_bytes')})",
    )
    if isinstance(path_or_file, str | os.PathLike):
        with open(path_or_file, "rb") as raw:
            head = raw.read(2)
            if head == _GZIP_MAGIC:
                return _inflate(raw, head, source, limit)
            data = head + raw.read(limit - 1)
            if raw.read(1):
                raise too_big
            return data
    if not hasattr(path_or_file, "read"):
        raise TypeError(f"expected a path or a file object, got {type(path_or_file).__name__}")
    first = path_or_file.read(2)
    if isinstance(first, bytes) and first == _GZIP_MAGIC:
        return _inflate(path_or_file, first, source, limit)
    data = first + path_or_file.read(max(limit - len(first), 0))
    if path_or_file.read(1):
        raise too_big
    return data


def _split_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` one at a time (no list of every line: O(1) extra memory)."""
    start, n = 0, len(text)
    while start < n:
        end = text.find("\n", start)
        if end < 0:
            end = n
        yield text[start:end]
        start = end + 1


def _iter_lines(
    path_or_file: PathOrFile,
    encoding: str,
    problems: _Problems,
    limits: InputLimits | Mapping[str, Any] | None = None,
) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every line, without its line ending.

    A line that cannot be decoded is reported through ``problems`` (raised when strict).
    At most ``max_input_bytes`` are read (see :func:`_read_bytes`).
    """
    data = _read_bytes(path_or_file, limits)
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
        del data
    if text.startswith("\ufeff"):
        text = text[1:]
    for k, line in enumerate(_split_lines(text), start=1):
        yield k, line[:-1] if line.endswith("\r") else line


def _iter_lines_bytewise(
    data: bytes, encoding: str, problems: _Problems
) -> Iterator[tuple[int, str]]:
    start, n, k = 0, len(data), 0
    while start < n:
        end = data.find(b"\n", start)
        end = n if end < 0 else end
        line = data[start:end].removesuffix(b"\r")
        start, k = end + 1, k + 1
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
