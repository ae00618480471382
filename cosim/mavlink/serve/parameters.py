"""A served vehicle's parameters: the ones that act (cosim.mavlink.flight_params, under the
autopilot's own names) can be set within the firmware's range; the rest are reported as an
autopilot would but are read-only, since nothing here would use a new value; unknown names are
refused. Each answer is a PARAM_VALUE, as the protocol asks."""

from __future__ import annotations

import math

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.flight_params import ParamSpec


class Parameters:
    """The table, sorted by name (PARAM_VALUE indices follow that order)."""

    HANDLED = ("PARAM_REQUEST_LIST", "PARAM_REQUEST_READ", "PARAM_SET")

    def handle(self, m) -> tuple[list, str | None]:
        """One of HANDLED: the PARAM_VALUEs to answer with, and why a PARAM_SET was refused (or None)."""
        kind = m.get_type()
        if kind == "PARAM_REQUEST_LIST":
            return self.all(), None
        if kind == "PARAM_REQUEST_READ":
            reply = self.read(m.param_id, m.param_index)
            return ([] if reply is None else [reply]), None
        reply, refused = self.set(m.param_id, m.param_value)
        return ([] if reply is None else [reply]), refused

    def __init__(self, settable: tuple[ParamSpec, ...], read_only: dict[str, float]) -> None:
        self.specs = {spec.name: spec for spec in settable}
        self.values = {**read_only, **{spec.name: spec.default for spec in settable}}
        self.read_only = set(read_only)

    def __getitem__(self, name: str) -> float:
        return self.values[name]

    def _message(self, name: str):
        names = sorted(self.values)
        return mav.MAVLink_param_value_message(name.encode(), self.values[name], mav.MAV_PARAM_TYPE_REAL32, len(names),
                                               names.index(name))

    def all(self) -> list:
        return [self._message(name) for name in sorted(self.values)]

    def read(self, name: str | bytes, index: int):
        """PARAM_REQUEST_READ: the PARAM_VALUE by name (index < 0) or by index; None if there is none."""
        names = sorted(self.values)
        if index >= 0:
            return self._message(names[index]) if index < len(names) else None
        name = name.decode(errors="replace") if isinstance(name, bytes) else name
        return self._message(name) if name in self.values else None

    def set(self, name: str | bytes, value: float) -> tuple[object | None, str | None]:
        """PARAM_SET: (the PARAM_VALUE to answer, why it was refused or None). A refused value is
        answered with the unchanged one, so that a ground station sees it did not take; an unknown
        name has no value to answer with."""
        name = name.decode(errors="replace") if isinstance(name, bytes) else name
        if name not in self.values:
            return None, f"{name}: no such parameter"
        if name in self.read_only:
            return self._message(name), f"{name} is read-only here"
        spec = self.specs[name]
        if not (math.isfinite(value) and spec.low <= value <= spec.high):
            return self._message(name), f"{name}: expected {spec.low:g}..{spec.high:g} {spec.unit}, got {value:g}"
        self.values[name] = float(value)
        return self._message(name), None
