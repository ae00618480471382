"""The `cosim` command's entry point: a Ctrl-C or a signal that would kill the process while Python
is still loading the program ends it with a word, not a traceback or silence (the program's own
handling, which keeps every result of a run, starts with `cosim.cli.main`)."""

from __future__ import annotations

import signal
import sys

_ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGXCPU, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
           signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF)


class _Stopped(KeyboardInterrupt):
    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)


def _stop(signum: int, frame: object) -> None:
    raise _Stopped(signum)


def _what(exc: KeyboardInterrupt) -> str:
    return f"stopped by {exc}" if isinstance(exc, _Stopped) and str(exc) != "SIGINT" else "interrupted (Ctrl-C)"


def main() -> int:
    for s in _ENDING:
        if s == signal.SIGINT or signal.getsignal(s) == signal.SIG_DFL:
            signal.signal(s, _stop)
    try:
        from cosim.cli import main as cli_main
    except KeyboardInterrupt as exc:
        print(f"\n{_what(exc)} while starting", file=sys.stderr)
        return 130
    return cli_main()  # the handlers stay: a signal before or after a run ends the command as Ctrl-C does
