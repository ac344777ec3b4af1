"""The ``rankclust`` command: cluster rankings, rank labels, and reproduce the papers.

Run ``rankclust --help`` or ``rankclust COMMAND --help``. Every command reads a file, fits
one of the library's estimators, prints a readable summary and optionally writes figures
(``--plots DIR``), the full result as JSON (``--json FILE``) and the fitted model
(``--save FILE``, see :mod:`rankclust.persistence`).

Exit codes: 0 success; 1 an unexpected internal error (a bug: please report it with the
traceback shown by ``--debug``); 2 bad usage or bad input (missing file, malformed line,
unknown item, K larger than the number of rankings, an option the command or its method
cannot honour), with a one-line message on stderr that names the option or the file line.
A reader that closes standard output early (``| head``) ends the printing only: every
requested file is still written and the exit code stays 0.

This package holds no mathematics and no file parsing. Its modules, one job each:

* ``_parser``: the argument parser (commands, options, refusals);
* ``_main``: :func:`main`, the entry point (errors to exit codes);
* ``_methods``: the method registries (CLI names to estimator classes) and
  :func:`make_estimator`;
* ``_input``: reading files through :mod:`rankclust.io`; ``_checks``: input checks made
  before a fit;
* ``_console``: where output goes (pipes, ``--quiet``, ``--wide``); ``_outputs``: figures,
  JSON and saved models;
* ``commands/``: one module per command;
* ``report``: the summary tables and the JSON result.
"""

from __future__ import annotations

# The private helpers under their former names (tests check them directly).
from rankclust.cli._console import Console as _Console  # noqa: F401
from rankclust.cli._errors import CLIError
from rankclust.cli._input import READ_FORMATS as _READ_FORMATS  # noqa: F401
from rankclust.cli._input import data_row_lines as _data_row_lines  # noqa: F401
from rankclust.cli._input import load_rankings
from rankclust.cli._input import where as _where  # noqa: F401
from rankclust.cli._main import main
from rankclust.cli._methods import (
    CLUSTER_METHODS,
    LABEL_RANKING_METHODS,
    ORDINAL_METHODS,
    SUPERVISED_METHODS,
    Method,
    make_estimator,
    method_registry,
)
from rankclust.cli._parser import build_parser
from rankclust.cli._parser import option_strings as _option_strings  # noqa: F401
from rankclust.cli.commands.reproduce import PAPERS, QUICK_ARGS
from rankclust.cli.commands.select_k import parse_ks as _parse_ks  # noqa: F401

__all__ = [
    "CLUSTER_METHODS",
    "LABEL_RANKING_METHODS",
    "ORDINAL_METHODS",
    "PAPERS",
    "QUICK_ARGS",
    "SUPERVISED_METHODS",
    "CLIError",
    "Method",
    "build_parser",
    "load_rankings",
    "main",
    "make_estimator",
    "method_registry",
]
