"""Shared plumbing of the atheris targets: which exceptions are findings.

A reader may refuse an input with a ``ValueError``/``TypeError`` raised by rankclust itself
(``DataFormatError`` is a ``ValueError``) or a ``UnicodeError`` subclass of it raised while
decoding; everything else -- another exception type, or a ValueError raised deep inside numpy
-- is a finding and is re-raised, so libFuzzer records the crashing input.
"""

from __future__ import annotations

import os
import traceback
import warnings

import rankclust

_SRC = os.path.dirname(os.path.realpath(rankclust.__file__))


def is_clean(exc: BaseException) -> bool:
    if not isinstance(exc, ValueError | TypeError) or not str(exc).strip():
        return False
    tb = traceback.extract_tb(exc.__traceback__)
    return bool(tb) and os.path.realpath(tb[-1].filename).startswith(_SRC)


def run(fn, *args, **kwargs):
    """Call a reader; swallow clean refusals and warnings, re-raise findings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if is_clean(exc):
                return None
            raise
