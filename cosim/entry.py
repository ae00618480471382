"""The `cosim` command's entry point: a Ctrl-C or a signal that would kill the process while Python
is still loading the program ends it with a word, not a traceback or silence (a run, once started,
keeps every result: cosim.engine.signals takes these handlers over)."""

from __future__ import annotations

import signal
import sys

from cosim.core.interruption import Terminated, stop_by_signal

_ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGXCPU, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
           signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF)


def main() -> int:
    for s in _ENDING:
        if s == signal.SIGINT or signal.getsignal(s) == signal.SIG_DFL:
            signal.signal(s, stop_by_signal)
    try:
        from cosim.cli import main as cli_main
    except KeyboardInterrupt as exc:
        print(f"\n{exc if isinstance(exc, Terminated) else 'interrupted (Ctrl-C)'} while starting", file=sys.stderr)
        return 130
    return cli_main()  # the handlers stay: a signal before or after a run ends the command as Ctrl-C does
