"""Griffe extension of the API reference: docstrings completed at import time.

Some classes fill a placeholder line of their docstring when the class is created (the mixtures
share one description of the restart parameters, written once as ``{restart_parameters}``).
Griffe reads docstrings from the source, where the placeholder is still there; for such a class
this extension takes the docstring the class has at run time instead.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import griffe

_PLACEHOLDER = re.compile(r"^\s*\{[a-z_]+\}\s*$", re.MULTILINE)


class RuntimeDocstrings(griffe.Extension):
    """Replace a templated class docstring by the class's ``__doc__`` after import."""

    def on_class_instance(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        if cls.docstring is None or not _PLACEHOLDER.search(cls.docstring.value):
            return
        runtime = getattr(importlib.import_module(cls.module.path), cls.name).__doc__
        old = cls.docstring
        cls.docstring = griffe.Docstring(
            inspect.cleandoc(runtime),
            lineno=old.lineno,
            endlineno=old.endlineno,
            parent=cls,
            parser=old.parser,
            parser_options=old.parser_options,
        )
