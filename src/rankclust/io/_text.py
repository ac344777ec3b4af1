"""Turning a file's bytes into text: byte-order marks, declared encodings, refusals.

One rule for every reader that goes through :func:`rankclust.io.read_rankings`:

* a byte-order mark says the encoding (UTF-8, UTF-16 or UTF-32) and is removed -- it never
  becomes part of the first field;
* ``encoding=`` (``--encoding`` on the command line) declares any other encoding;
* otherwise the bytes must be valid UTF-8: anything else is refused, naming the line and
  how to declare the encoding. Nothing is guessed: ``Zoë`` and ``Zoé`` written in Latin-1 are
  not valid UTF-8, and reading them as something else could merge them.

Private module.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Mapping
from typing import Any

from rankclust._limits import InputLimits
from rankclust.io._common import DataFormatError, PathOrFile, _read_bytes, _source_name

# Longest first: the UTF-32-LE mark starts with the UTF-16-LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)

#: How to declare an encoding, quoted in every refusal.
HOW_TO_DECLARE = "declare it with --encoding (encoding= in Python), e.g. --encoding latin-1"


class NamedText(io.StringIO):
    """Decoded text that the readers of :mod:`rankclust.io` see as a file named ``name``."""

    def __init__(self, text: str, name: str) -> None:
        super().__init__(text, newline="")
        self.name = name


def decode(
    path_or_file: PathOrFile,
    encoding: str | None,
    limits: InputLimits | Mapping[str, Any] | None,
) -> tuple[str, str]:
    """The text of a file (gunzipped, within ``max_input_bytes``) and the encoding used.

    Parameters
    ----------
    path_or_file : path or file object
        A text stream is taken as already decoded (encoding ``"text"``).
    encoding : str or None
        Declared encoding; None: a byte-order mark or else UTF-8, refused when not valid.
    limits : InputLimits or mapping, optional

    Returns
    -------
    text : str
        Without a leading byte-order mark.
    used : str
        The encoding, as reported in :class:`~rankclust.io.ReadReport`.
    """
    source = _source_name(path_or_file)
    data = _read_bytes(path_or_file, limits)
    if isinstance(data, str):
        return data.removeprefix("\ufeff"), "text"
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise ValueError(f"unknown encoding {encoding!r}") from None
        bom = next((b for b, _, _ in _BOMS if data.startswith(b)), b"")
        name = encoding.lower().replace("_", "-")
        if bom and name.startswith(("utf-8", "utf8")) and bom == codecs.BOM_UTF8:
            data = data[len(bom) :]
        return _strict(data, encoding, source, declared=True).removeprefix("\ufeff"), encoding
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            return _strict(data[len(bom) :], codec, source, declared=False), f"{label} (BOM)"
    if b"\x00" in data[:65536]:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise DataFormatError(
            source,
            line,
            "holds NUL bytes: UTF-16 or UTF-32 text without a byte-order mark, or not a "
            f"text file; if it is text, {HOW_TO_DECLARE.replace('latin-1', 'utf-16-le')}",
        )
    return _strict(data, "utf-8", source, declared=False), "UTF-8"


def _strict(data: bytes, codec: str, source: str, *, declared: bool) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 1].hex()
        if declared:
            problem = f"cannot decode byte 0x{bad} as {codec} ({exc.reason})"
        else:
            problem = (
                f"byte 0x{bad} is not valid {codec.upper()}: the file's encoding is not "
                f"{codec.upper()}; {HOW_TO_DECLARE}"
            )
        raise DataFormatError(source, line, problem) from None
