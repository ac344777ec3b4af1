"""Griffe extension of the API reference: docstrings as the reader of the source sees them.

* Some classes fill a placeholder line of their docstring when the class is created (the
  mixtures share one description of the restart parameters, written once as
  ``{restart_parameters}``). Griffe reads docstrings from the source, where the placeholder is
  still there; for such a class the docstring it has at run time is used instead.
* Docstrings cross-reference with Sphinx roles (``:class:`~rankclust.Rankings```), which
  Markdown does not know; they are shown as code (the last component after ``~``, as Sphinx
  would).
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import griffe

_PLACEHOLDER = re.compile(r"^\s*\{[a-z_]+\}\s*$", re.MULTILINE)
_ROLE = re.compile(r":(?:class|func|meth|data|mod|attr|obj|exc|const):`(~?)([^`]+)`")


def _code(match: re.Match) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


class RuntimeDocstrings(griffe.Extension):
    """Fill templated class docstrings from the imported class; render Sphinx roles as code."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        doc = obj.docstring
        if doc is None:
            return
        value = doc.value
        if isinstance(obj, griffe.Class) and _PLACEHOLDER.search(value):
            runtime = getattr(importlib.import_module(obj.module.path), obj.name).__doc__
            value = inspect.cleandoc(runtime)
        value = _ROLE.sub(_code, value)
        if value != doc.value:
            obj.docstring = griffe.Docstring(
                value,
                lineno=doc.lineno,
                endlineno=doc.endlineno,
                parent=obj,
                parser=doc.parser,
                parser_options=doc.parser_options,
            )
