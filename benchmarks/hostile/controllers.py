"""Controllers that misbehave in every way we could think of: each must end in a message naming
the class (and the robot or group where one acted), with the run directory kept and readable."""

from __future__ import annotations

import signal

from benchmarks.hostile.base import scenario_text
from benchmarks.hostile.case import Case, Signal

FAMILY = "controllers"

# name -> (body of the class, what it does wrong in which method, expectation, words the message needs)
ROBOT = {
    "RaiseInit": ("def __init__(self, params=None):\n    raise RuntimeError('bad init')", "refuse", ()),
    "RaiseSetup": ("def setup(self):\n    raise RuntimeError('bad setup')", "fail", ("robot",)),
    "RaiseStep": ("def step(self):\n    if self.now > 0.5:\n        raise RuntimeError('bad step')", "fail", ("robot",)),
    "RaiseOnMessage": ("def setup(self):\n    self.every(0.2, lambda: self.net.broadcast(b'x'))\n"
                       "def on_message(self, msg):\n    raise RuntimeError('bad message')", "fail", ("robot",)),
    "RaiseTimer": ("def setup(self):\n    self.after(0.3, self.boom)\ndef boom(self):\n    raise ValueError('bad timer')",
                   "fail", ("robot",)),
    "KeyboardInterruptInStep": ("def step(self):\n    raise KeyboardInterrupt", "either", ("KeyboardInterrupt",)),
    "SysExitInStep": ("def step(self):\n    import sys\n    sys.exit(3)", "fail", ("sys.exit",)),
    "OsExitInStep": ("def step(self):\n    import os\n    if self.now > 0.5:\n        os._exit(3)", "fail",
                     ("exit status 3",)),
    "AbortInStep": ("def step(self):\n    import os\n    if self.now > 0.5:\n        os.abort()", "fail", ("SIGABRT",)),
    "Chdir": ("def setup(self):\n    import os\n    os.chdir('/')", "ok", ()),
    "Umask": ("def setup(self):\n    import os\n    os.umask(0o777)", "either", ("permission",)),
    "Recursion": ("def step(self):\n    self.step()", "fail", ("RecursionError",)),
    "MemoryBomb": ("def step(self):\n    import numpy as np\n    np.ones(10**13)", "fail", ("memory",)),
    "RecordIntName": ("def step(self):\n    self.record(42, 1.0)", "fail", ("record",)),
    "RecordStringValue": ("def step(self):\n    self.record('x', '1.5')", "fail", ("record",)),
    "RecordNone": ("def step(self):\n    self.record('x', None)", "fail", ("record",)),
    "RecordNan": ("def step(self):\n    self.record('x', float('nan'))", "either", ("record",)),
    "RecordHugeName": ("def step(self):\n    self.record('x' * 100000, 1.0)", "either", ("record",)),
    "VelocityNan": ("def step(self):\n    self.robot.set_velocity(float('nan'), 0, 0)", "fail", ("set_velocity",)),
    "VelocityHuge": ("def step(self):\n    self.robot.set_velocity(1e308, 0, 0)", "fail", ("set_velocity",)),
    "VelocityString": ("def step(self):\n    self.robot.set_velocity('fast', 0, 0)", "fail", ("set_velocity",)),
    "VelocityInf": ("def step(self):\n    self.robot.set_velocity(0, float('inf'), 0)", "fail", ("set_velocity",)),
    "TurnNan": ("def step(self):\n    self.robot.turn(float('nan'))", "fail", ("turn",)),
    "HeadingInf": ("def step(self):\n    self.robot.set_heading(float('inf'))", "fail", ("heading",)),
    "SendString": ("def step(self):\n    self.net.send(1, 'text')", "fail", ("send",)),
    "SendNegative": ("def step(self):\n    self.net.send(-5, b'x')", "fail", ("send",)),
    "SendNowhere": ("def step(self):\n    self.net.send(10**9, b'x')", "fail", ("send",)),
    "SendHuge": ("def step(self):\n    self.net.send(1, bytes(10**7))", "fail", ("send",)),
    "BroadcastNone": ("def step(self):\n    self.net.broadcast(None)", "fail", ("broadcast",)),
    "BroadcastBadPort": ("def step(self):\n    self.net.broadcast(b'x', port=-1)", "fail", ("port",)),
    "Storm": ("def setup(self):\n    self.net.broadcast(b'x')\ndef on_message(self, msg):\n"
              "    self.net.broadcast(b'x')", "either", ("queue",)),
    "WritePoses": ("def step(self):\n    p, h = self.net.poses()\n    p[:] = float('nan')", "fail", ("read-only",)),
    "WritePosition": ("def step(self):\n    p = self.robot.position\n    p[:] = float('nan')", "either", ("read-only",)),
    "RangeNegative": ("def step(self):\n    self.net.range_to(-1)", "fail", ("range_to",)),
    "RangeFloat": ("def step(self):\n    self.net.range_to(1.5)", "fail", ("range_to",)),
    "EveryZero": ("def setup(self):\n    self.every(0, lambda: None)", "fail", ("every",)),
    "EveryNegative": ("def setup(self):\n    self.every(-1, lambda: None)", "fail", ("every",)),
    "EveryNan": ("def setup(self):\n    self.every(float('nan'), lambda: None)", "fail", ("every",)),
    "EveryNotCallable": ("def setup(self):\n    self.every(1, 5)", "fail", ("every",)),
    "AfterNegative": ("def setup(self):\n    self.after(-1, lambda: None)", "fail", ("after",)),
    "AfterForever": ("def setup(self):\n    self.after(1e300, lambda: None)", "either", ("after",)),
    "SaveStateSet": ("def save_state(self):\n    return {1, 2}", "warn", ("save_state",)),
    "SaveStateRaises": ("def save_state(self):\n    raise RuntimeError('no')", "warn", ("save_state",)),
    "SaveStateBytes": ("def save_state(self):\n    return b'xx'", "warn", ("save_state",)),
    "SaveStateNan": ("def save_state(self):\n    return {'x': float('nan')}", "warn", ("save_state",)),
    "SaveStateHuge": ("def save_state(self):\n    return {'x': list(range(10**6))}", "either", ("save_state",)),
    "PrintSpam": ("def step(self):\n    print('x' * 10000)", "ok", ()),
    "LogSpam": ("def step(self):\n    self.log.error('y' * 1000)", "ok", ()),
    "Thread": ("def setup(self):\n    import threading, time\n    threading.Thread(target=lambda: time.sleep(1e9)).start()",
               "either", ("thread",)),
    "ReturnsValue": ("def step(self):\n    return 42", "ok", ()),
    "AssignRobot": ("def setup(self):\n    self.robot = None", "fail", ("robot",)),
    "IgnoreSigterm": ("def setup(self):\n    import signal\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)", "ok", ()),
    "IgnoreSigtermSlowly": ("def setup(self):\n    import signal\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                            "def step(self):\n    import time\n    time.sleep(0.005)", "ok", ()),
    "DieEarly": ("def step(self):\n    self.robot.set_velocity(0, 0, 0)\n    raise SystemExit", "fail", ("exit",)),
    "GlobalNumpySeed": ("def setup(self):\n    import numpy as np\n    np.random.seed(5)", "ok", ()),
    "Fork": ("def setup(self):\n    import os\n    if os.fork() == 0:\n        os._exit(0)", "either", ("fork",)),
}

# The process ends natively (no Python exception): the message names how, not whose code.
NATIVE = {"OsExitInStep", "AbortInStep"}

GROUP = {
    "GroupRaiseStep": ("def step(self):\n    raise RuntimeError('bad group step')", "fail", ("bees",)),
    "GroupVelocityShape": ("def step(self):\n    self.group.set_velocity(np.zeros(3), 0, 0)", "fail", ("set_velocity",)),
    "GroupVelocityNan": ("def step(self):\n    self.group.set_velocity(np.full(10, np.nan), 0, 0)", "fail",
                         ("set_velocity",)),
    "GroupRecordShape": ("def step(self):\n    self.group.record('x', np.zeros(3))", "fail", ("record",)),
    "GroupRecordStrings": ("def step(self):\n    self.group.record('x', ['a'] * 10)", "fail", ("record",)),
    "GroupSendOutOfRange": ("def step(self):\n    self.group.send(np.array([50]), np.array([1]), b'x')", "fail",
                            ("send",)),
    "GroupBroadcastIdxFloat": ("def step(self):\n    self.group.broadcast(np.array([0.5]), b'x')", "fail",
                               ("broadcast",)),
    "GroupWritePositions": ("def step(self):\n    self.group.positions()[:] = np.nan", "fail", ("read-only",)),
    "GroupReadUnknownSensor": ("def step(self):\n    self.group.read('sonar')", "fail", ("sonar",)),
    "GroupHeadingInf": ("def step(self):\n    self.group.set_heading(np.inf)", "fail", ("heading",)),
    "GroupInitRaises": ("def __init__(self, params=None):\n    raise RuntimeError('bad init')", "refuse",
                        ("GroupInitRaises",)),
}


def _module() -> str:
    lines = ["import numpy as np", "from controllers.api import Controller, GroupController", ""]
    for base, table in (("Controller", ROBOT), ("GroupController", GROUP)):
        for name, (body, _, _) in table.items():
            lines.append(f"class {name}({base}):")
            lines += ["    " + ln for ln in body.splitlines()]
            lines.append("")
    return "\n".join(lines) + "\n"


def _scenario(cls: str, steps: bool = True, **extra: object) -> str:
    controller = {"class": f"ctl:{cls}", "period": "100 ms"} if steps else {"class": f"ctl:{cls}"}
    return scenario_text({"groups.0.controller": controller, "duration": 2, **extra})


def _steps(body: str) -> bool:
    return "def step(" in body


def cases() -> list[Case]:
    module = _module()
    run = ("cosim", "run", "s.yaml", "--out", "run", "--quiet")
    out = []
    for table in (ROBOT, GROUP):
        for name, (body, expect, words) in table.items():
            files = {"s.yaml": _scenario(name, _steps(body)), "ctl.py": module}
            mention = words if name in NATIVE else (name, *words)
            out.append(Case(FAMILY, name, run, expect, mention=mention, files=files,
                            run_dir=None if expect == "refuse" else "run", guard=("ctl.py",), timeout_s=90))
    loop = "def step(self):\n    if self.now > 0.5:\n        while True:\n            pass"
    stuck = module + "\nclass Stuck(Controller):\n" + "".join("    " + ln + "\n" for ln in loop.splitlines())
    out.append(Case(FAMILY, "StuckWithWatchdog", run, "fail", mention=("Stuck", "watchdog"),
                    files={"s.yaml": _scenario("Stuck", watchdog="2 s"), "ctl.py": stuck}, run_dir="run", timeout_s=60))
    for sig in (signal.SIGINT, signal.SIGTERM):
        words = ("Ctrl-C" if sig == signal.SIGINT else sig.name,)
        out.append(Case(FAMILY, f"StuckThen{sig.name}", run, "stopped", mention=words,
                        files={"s.yaml": _scenario("Stuck"), "ctl.py": stuck}, signals=(Signal(6.0, sig),),
                        run_dir="run", timeout_s=60))
    out.append(Case(FAMILY, "IgnoreSigtermThenSigterm", run, "stopped", mention=("SIGTERM",),
                    files={"s.yaml": _scenario("IgnoreSigtermSlowly", duration=600), "ctl.py": module},
                    signals=(Signal(5.0, signal.SIGTERM),), run_dir="run", timeout_s=60))
    return out
