"""The command's exit codes and its one error type (bad usage or bad input)."""

from __future__ import annotations

__all__ = ["EXIT_INTERNAL", "EXIT_OK", "EXIT_SIGPIPE", "EXIT_USAGE", "CLIError"]

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_SIGPIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left


class CLIError(Exception):
    """Bad usage or bad input: printed as one line, exit code 2."""
