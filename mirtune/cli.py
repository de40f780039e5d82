"""The `mirtune` command: one entry point whose sub-commands live in mirtune/commands/.

Each command module exposes `register(subparsers)`, which adds its parser and sets `func(args) -> int`.
Heavy libraries are imported inside the commands, so `mirtune --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from typing import Any

import mirtune
from mirtune import __version__
from mirtune.errors import MirtuneError, Terminated

# Sub-command modules, in the order `mirtune --help` lists them.
COMMANDS = (
    "demo",
    "recommend",
    "tune",
    "compile",
    "graph",
    "inspect",
    "apply",
    "tokenizer",
    "collect",
    "cluster",
    "corpus",
    "pretrain",
    "model",
    "embed",
    "evaluate",
    "fit",
)
# Commands whose arguments after `--` are handed to the user's program unparsed.
PROGRAM_ARGS_COMMANDS = ("recommend", "tune", "collect")
# Options whose value may itself start with a dash (compiler flags: `--cflags -O3`).
DASH_VALUE_OPTIONS = ("--cflags",)


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr (no usage block) and exit code 2."""

    def error(self, message: str):  # type: ignore[override]
        """Print `<prog>: <message> (see <prog> --help)` and exit 2."""
        line = " ".join(message.split())
        self.exit(2, f"{self.prog}: {line} (see {self.prog} --help)\n")


def split_dash_values(argv: list[str]) -> list[str]:
    """`--cflags -O3` as `--cflags=-O3`: argparse would read a value that starts with a dash as an option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in DASH_VALUE_OPTIONS and i + 1 < len(argv):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every registered sub-command, or with command `only` alone (the one being run:
    importing the other command modules would cost a tenth of a second of every run)."""
    parser = OneLineParser(prog="mirtune", description=mirtune.__doc__)
    parser.add_argument("--version", action="version", version=f"mirtune {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        try:
            module = importlib.import_module(f"mirtune.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"mirtune.commands.{name}":
                continue  # a command that is not part of this build
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one sub-command; expected failures become one stderr line and exit code 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    rest = None
    if argv and argv[0] in PROGRAM_ARGS_COMMANDS and "--" in argv:  # after `--`: the user program's own arguments
        rest = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    args = parser.parse_args(split_dash_values(argv))
    if rest is not None:
        if not hasattr(args, "program_args"):
            parser.error("'--' ARGS: this command runs no program of yours with arguments")
        args.program_args = rest
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    previous = _sigterm_as_interrupt()
    try:
        return int(args.func(args) or 0)
    except MirtuneError as exc:
        print(f"mirtune {args.command}: {exc.line()}", file=sys.stderr)
        return exc.exit_code
    except Terminated:
        print(f"mirtune {args.command}: terminated (SIGTERM)", file=sys.stderr)
        return Terminated.exit_code
    except KeyboardInterrupt:
        print(f"mirtune {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: never show a user a traceback
        if os.environ.get("MIRTUNE_DEBUG"):
            raise
        print(f"mirtune {args.command}: internal error: {type(exc).__name__}: {exc} "
              "(set MIRTUNE_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _sigterm_as_interrupt() -> Any:
    """While a command runs, SIGTERM stops it as Ctrl-C does, so that what keeps work on Ctrl-C (a sweep's rows, a
    tuning run's measurements and summary, a checkpoint) also keeps it on SIGTERM: the signal is passed on as SIGINT
    to whatever handles that now (Ray Tune's graceful stop, Python's KeyboardInterrupt), or, where SIGINT is ignored
    (a shell's background job), raises Terminated, a KeyboardInterrupt. Returns the handler it replaces, or None
    off the main thread (where no handler can be set)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def terminate(signum: int, frame: Any) -> None:  # noqa: ARG001
        if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None):
            raise Terminated()
        os.kill(os.getpid(), signal.SIGINT)

    return signal.signal(signal.SIGTERM, terminate)


if __name__ == "__main__":
    sys.exit(main())
