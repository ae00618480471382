"""The ardupilot stand-in flies as ArduCopter does: the reference flight of
benchmarks/firmware_flights.py (take-off, GUIDED position and velocity targets, climb and descent,
a mission, RTL, LAND) flown on the stand-in over MAVLink, every figure within 10% of the firmware's
recorded flight (tests/data/ardupilot: ArduCopter V4.7.0-dev SITL, stock copter.parm), with the
default parameters and with eight of them changed by PARAM_SET."""

from functools import cache
from pathlib import Path

import pytest

from benchmarks.firmware_flights import CHANGED, figures, fly_standin, load

DATA = Path(__file__).resolve().parents[2] / "data" / "ardupilot"
TOLERANCE = 0.10
MOVED = {
    "east100_peak_speed_m_s": ("WPNAV_SPEED", -1), "climb15_peak_m_s": ("WPNAV_SPEED_UP", -1),
    "sink15_peak_m_s": ("WPNAV_SPEED_DN", -1), "velocity_rise_s": ("WPNAV_ACCEL", +1),
    "land_sink_below_4m_m_s": ("LAND_SPEED", -1), "land_sink_6_to_9m_m_s": ("LAND_ALT_LOW", +1),
    "rtl_top_m": ("RTL_ALT", +1), "rtl_peak_speed_m_s": ("RTL_SPEED", -1),
}
"""A figure each changed parameter moves, and which way (lowered speeds, a lower LAND_ALT_LOW that
keeps the faster sink down to 5 m, a higher RTL_ALT)."""


@cache
def stand_in(which: str) -> dict[str, float]:
    return figures(fly_standin(CHANGED if which == "changed" else None, speed=8.0))


@cache
def firmware(which: str) -> dict[str, float]:
    return figures(load(DATA / f"flight_{which}.csv"))


@pytest.mark.parametrize("which", ["default", "changed"])
def test_every_manoeuvre_is_within_ten_percent_of_the_firmware(which):
    ours, theirs = stand_in(which), firmware(which)
    assert set(ours) == set(theirs)
    off = {name: round(ours[name] / theirs[name] - 1.0, 3) for name in theirs
           if abs(ours[name] / theirs[name] - 1.0) > TOLERANCE}
    assert not off, f"{which} parameters: figures more than 10% off the firmware's: {off}"


def test_each_changed_parameter_moves_the_flight_as_on_the_firmware():
    base, changed, ours = firmware("default"), firmware("changed"), stand_in("changed")
    assert {param for param, _ in MOVED.values()} == set(CHANGED)  # every changed parameter is checked
    for name, (param, sign) in MOVED.items():
        assert (changed[name] - base[name]) * sign > 0, f"the firmware's {name} did not move with {param}"
        assert (ours[name] - base[name]) * sign > 0, f"{param}: the stand-in's {name} did not move as the firmware's"
