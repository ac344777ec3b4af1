"""The entry point: parse the command line, run the command, turn errors into exit codes."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rankclust.cli._console import Console, one_line, silence, warnings_as_lines
from rankclust.cli._errors import EXIT_SIGPIPE, EXIT_USAGE, CLIError
from rankclust.cli._parser import build_parser

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankclust`` command; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 on an internal error, 2 on bad usage or input.
    """
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    passthrough: list[str] = []
    if "--" in argv:  # everything after "--" goes to the experiment script (reproduce)
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1 :]
    try:
        args = parser.parse_args(argv)
        if passthrough and args.command != "reproduce":
            parser.error(f"unexpected arguments after --: {' '.join(passthrough)}")
    except SystemExit as exc:  # --help, --version, or a usage error (already printed)
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE
    except BrokenPipeError:  # `rankclust --help | head -1`
        silence(sys.stdout)
        return EXIT_SIGPIPE
    args.script_args = passthrough
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    console = Console(quiet=args.quiet, wide=getattr(args, "wide", False))
    prog = f"rankclust {args.command}"
    try:
        with warnings_as_lines(console):
            return int(args.handler(args, console))
    except BrokenPipeError:
        # the reader of our output went away outside console.print: end as a pipe writer does
        silence(sys.stdout)
        return EXIT_SIGPIPE
    except CLIError as exc:
        if args.debug:
            raise
        print(f"{prog}: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, OSError) as exc:
        # bad input reported by the library (DataFormatError and UnicodeDecodeError are
        # ValueErrors); anything else is a bug and keeps its traceback (exit code 1)
        if args.debug:
            raise
        message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        where = f"{exc.filename}: " if isinstance(exc, OSError) and exc.filename else ""
        print(f"{prog}: error: {where}{one_line(message)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
