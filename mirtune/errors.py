"""Error types that the CLI turns into one line on stderr and a non-zero exit code."""

from __future__ import annotations


class MirtuneError(Exception):
    """An expected failure: bad input, a missing tool, a failed compile. Exit code 2."""

    exit_code = 2

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path

    def line(self) -> str:
        """One line for stderr, naming the file when there is one."""
        msg = " | ".join(part.strip() for part in str(self).strip().splitlines() if part.strip())
        return f"{self.path}: {msg}" if self.path else msg


class ToolMissing(MirtuneError):
    """A required outside tool (clang, libomp) is not installed."""


class CompileError(MirtuneError):
    """clang rejected a source file; the message carries clang's own diagnostics."""


class IRParseError(MirtuneError):
    """A file is not LLVM IR that llvmlite can parse (empty, binary, truncated...)."""


class UsageError(MirtuneError):
    """The user asked for something that does not exist (unknown task, bad option value)."""


class Interrupted(MirtuneError):
    """The user stopped the work (Ctrl-C); what was kept and how to go on is in the message. Exit code 130."""

    exit_code = 130


class Terminated(KeyboardInterrupt):
    """SIGTERM (`timeout`, a batch scheduler, `kill`), raised in the main thread as Ctrl-C's KeyboardInterrupt is, so
    that work stopped either way keeps what it finished. Exit code 143 (128 + SIGTERM)."""

    exit_code = 143
