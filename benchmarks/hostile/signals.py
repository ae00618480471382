"""Signals at every stage of `cosim run`: while it loads, while the child runs, twice in a row, to
the process group (Ctrl-C in a terminal) or to the child alone. A signal that ends a run must leave
it under its final name, readable, with metrics that match its trace."""

from __future__ import annotations

import signal

from benchmarks.hostile.base import scenario_text
from benchmarks.hostile.case import Case, Signal

FAMILY = "signals"
SLOW = ("from controllers.api import Controller\n"
        "import time\n\n"
        "class Slow(Controller):\n"
        "    def step(self):\n"
        "        self.robot.set_velocity(0.5, 0, 0)\n"
        "        self.record('v', 0.5)\n"
        "        time.sleep(0.002)\n")
RUN = ("cosim", "run", "s.yaml", "--out", "run", "--quiet")
ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGXCPU, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM,
          signal.SIGVTALRM, signal.SIGPROF, signal.SIGQUIT)


def _files() -> dict[str, str]:
    text = scenario_text({"groups.0.controller": {"class": "ctl:Slow", "period": "100 ms"}, "duration": 200,
                          "groups.0.sensors": {}})
    return {"s.yaml": text, "ctl.py": SLOW}


def _words(sig: signal.Signals) -> tuple[str, ...]:
    return ("Ctrl-C",) if sig == signal.SIGINT else (sig.name,)


def cases() -> list[Case]:
    out = []
    for sig in ENDING:
        for at in (0.3, 3.0):
            for target in ("proc", "group"):
                expect = "stopped" if at > 1 else "either"
                out.append(Case(FAMILY, f"{sig.name}-at-{at:g}s-to-{target}", RUN, expect, mention=_words(sig),
                                files=_files(), signals=(Signal(at, sig, target),), run_dir="run", timeout_s=90))
        out.append(Case(FAMILY, f"{sig.name}-to-child", RUN, "stopped", mention=_words(sig), files=_files(),
                        signals=(Signal(3.0, sig, "child"),), run_dir="run", timeout_s=90))
    out += [
        Case(FAMILY, "SIGINT-twice-to-group", RUN, "stopped", mention=("Ctrl-C",), files=_files(),
             signals=(Signal(3.0, signal.SIGINT, "group"), Signal(3.05, signal.SIGINT, "group")), run_dir="run"),
        Case(FAMILY, "SIGINT-three-times-spread", RUN, "stopped", mention=("Ctrl-C",), files=_files(),
             signals=tuple(Signal(3.0 + 0.4 * k, signal.SIGINT, "group") for k in range(3)), run_dir="run"),
        Case(FAMILY, "SIGTERM-then-SIGINT", RUN, "stopped", mention=("SIGTERM",), files=_files(),
             signals=(Signal(3.0, signal.SIGTERM), Signal(3.2, signal.SIGINT, "group")), run_dir="run"),
        Case(FAMILY, "SIGKILL-to-child", RUN, "fail", mention=("SIGKILL",), files=_files(),
             signals=(Signal(3.0, signal.SIGKILL, "child"),), run_dir="run"),
        Case(FAMILY, "SIGSTOP-SIGCONT", ("cosim", "run", "s.yaml", "--out", "run", "--quiet", "--duration", "10"), "ok",
             files=_files(), signals=(Signal(2.0, signal.SIGSTOP, "group"), Signal(3.0, signal.SIGCONT, "group")),
             run_dir="run"),
        Case(FAMILY, "SIGINT-in-process", (*RUN, "--in-process"), "stopped", mention=("Ctrl-C",), files=_files(),
             signals=(Signal(3.0, signal.SIGINT),), run_dir="run"),
        Case(FAMILY, "SIGTERM-in-process", (*RUN, "--in-process"), "stopped", mention=("SIGTERM",), files=_files(),
             signals=(Signal(3.0, signal.SIGTERM),), run_dir="run"),
        Case(FAMILY, "SIGKILL-to-parent", RUN, "either", files=_files(),
             signals=(Signal(3.0, signal.SIGKILL),), check=_child_gone),
    ]
    return out


def _child_gone(folder, result) -> str | None:
    """A parent killed outright leaves the hidden partial directory; its child must not run on for ever."""
    partial = [p.name for p in folder.iterdir() if p.name.startswith(".run.partial")]
    return None if partial else "lost: no run directory and no partial one"
