"""The `cosim` command's entry point: a Ctrl-C or a signal that would kill the process while Python
is still loading the program ends it with a word, not a traceback or silence (a run, once started,
keeps every result: cosim.execution.signals takes these handlers over)."""

from __future__ import annotations

import os
import signal
import sys

from cosim.core.interruption import Terminated, stop_by_signal
from cosim.execution.signals import ENDING


def _said(exc: KeyboardInterrupt) -> str:
    return str(exc) if isinstance(exc, Terminated) else "interrupted (Ctrl-C)"


def _exit_while_starting(signum: int, frame: object) -> None:
    """Nothing is computed yet, so nothing to keep: leave at once. Raising instead could land in an
    object's __del__ during the imports, where Python prints the exception and carries on."""
    said = "interrupted (Ctrl-C)" if signum == signal.SIGINT else f"terminated by {signal.Signals(signum).name}"
    os.write(2, f"\n{said} while starting\n".encode())
    os._exit(130)


def main() -> int:
    taken = [s for s in ENDING if s == signal.SIGINT or signal.getsignal(s) == signal.SIG_DFL]
    for s in taken:
        signal.signal(s, _exit_while_starting)
    from cosim.cli import main as cli_main

    for s in taken:  # from here a signal raises, so that what the command is doing can end in order
        signal.signal(s, stop_by_signal)
    try:
        return cli_main()
    except KeyboardInterrupt as exc:  # before cosim.cli.main could catch it itself (its arguments)
        print(f"\n{_said(exc)}", file=sys.stderr)
        return 130
