"""ArduPilot's parameter defaults files (`--defaults a.parm,b.parm`) read as the firmware reads them
(AP_Param: `NAME VALUE` per line, `#` starts a comment, later files over earlier ones), so that the
frame they give the firmware's motor mixer can be checked against the scenario's quadrotors.

The scenario's quadrotors are quad X (ArduCopter's motor order for FRAME_CLASS 1, FRAME_TYPE 1).
ArduPilot's stock `copter.parm` sets FRAME_TYPE 0, plus, for its own SITL model: with it alone the
firmware mixes for a plus frame, its roll and pitch act 45 degrees off the body's axes, and the copter
loses control after take-off. `copter-X.parm` (FRAME_TYPE 1) beside it sets it right.
"""

from __future__ import annotations

import re
from pathlib import Path

QUAD_CLASS = 1
X_TYPE = 1
_FRAME_TYPES = {0: "plus", 2: "V", 3: "H", 12: "X in BetaFlight's motor order", 13: "X in DJI's motor order",
                14: "X in clockwise motor order"}
_SEPARATORS = re.compile(r"[, =\t\r\n]+")
_LEADING_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def read_defaults(spec: str) -> dict[str, float] | None:
    """The parameters the comma-separated files of `spec` set, later files over earlier ones; None when
    a file cannot be read here (its path may be the firmware's, on another machine)."""
    values: dict[str, float] = {}
    for name in spec.split(","):
        try:
            text = Path(name).read_text(errors="replace")
        except OSError:
            return None
        for line in text.splitlines():
            if line.startswith("#"):
                continue
            tokens = [t for t in _SEPARATORS.split(line) if t]
            if len(tokens) >= 2:
                values[tokens[0]] = _strtof(tokens[1])
    return values


def _strtof(text: str) -> float:
    """The number `text` starts with, 0 when none (C's strtof, which the firmware uses)."""
    match = _LEADING_NUMBER.match(text)
    return float(match.group(0)) if match else 0.0


def frame_problem(spec: str) -> str | None:
    """Why the defaults in `spec` would make ArduCopter mix for another frame than a quad X, or None
    (also when the files cannot be read here)."""
    values = read_defaults(spec)
    if values is None:
        return None
    frame_class = values.get("FRAME_CLASS", QUAD_CLASS)
    if frame_class != QUAD_CLASS:
        return (f"--defaults {spec} sets FRAME_CLASS {frame_class:g}, but the scenario's quadrotors are quads "
                f"(FRAME_CLASS {QUAD_CLASS})")
    frame_type = values.get("FRAME_TYPE", X_TYPE)
    if frame_type != X_TYPE:
        name = _FRAME_TYPES.get(int(frame_type), "another frame")
        return (f"--defaults {spec} sets FRAME_TYPE {frame_type:g} ({name}), but the scenario's quadrotors are "
                f"quad X (FRAME_TYPE {X_TYPE}): the firmware would mix its motors for the wrong frame and lose control "
                f"after take-off; add a file that sets FRAME_TYPE {X_TYPE}, e.g. --defaults copter.parm,copter-X.parm "
                f"(both in ArduPilot's Tools/autotest/default_params)")
    return None
