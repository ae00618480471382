"""ArduPilot's parameter defaults files, read as AP_Param reads them, and the frame they give ArduCopter's
motor mixer checked against the scenario's quad X."""

from __future__ import annotations

from cosim.mavlink.sitl.ardupilot_defaults import frame_problem, read_defaults


def test_files_are_read_as_the_firmware_reads_them(tmp_path):
    first = tmp_path / "a.parm"
    first.write_text("# a comment line\nFRAME_TYPE 0\nATC_RAT_RLL_P=0.135\nMOT_THST_EXPO,0.65\n"
                     "SIM_RATE_HZ\t1200 @READONLY\nLONE_NAME\nBAD_VALUE abc\nLEADING 2.5e1xyz\n   INDENTED  3\n")
    second = tmp_path / "b.parm"
    second.write_text("FRAME_TYPE  1\r\n")
    values = read_defaults(f"{first},{second}")
    assert values == {"FRAME_TYPE": 1.0, "ATC_RAT_RLL_P": 0.135, "MOT_THST_EXPO": 0.65, "SIM_RATE_HZ": 1200.0,
                      "BAD_VALUE": 0.0, "LEADING": 25.0, "INDENTED": 3.0}
    assert read_defaults(f"{first},{tmp_path / 'missing.parm'}") is None


def test_only_a_quad_x_passes(tmp_path):
    def problem(text: str) -> str | None:
        path = tmp_path / "p.parm"
        path.write_text(text)
        return frame_problem(str(path))

    assert problem("FRAME_CLASS 1\nFRAME_TYPE 1\n") is None
    assert problem("MOT_THST_HOVER 0.39\n") is None  # only what a file sets is checked (FRAME_TYPE defaults to X)
    assert "FRAME_TYPE 0 (plus)" in problem("FRAME_TYPE 0\n")
    assert "FRAME_TYPE 12 (X in BetaFlight's motor order)" in problem("FRAME_TYPE 12\n")
    assert "FRAME_TYPE 16 (another frame)" in problem("FRAME_TYPE 16\n")
    assert "FRAME_CLASS 2, but the scenario's quadrotors are quads (FRAME_CLASS 1)" in problem("FRAME_CLASS 2\n")
    assert frame_problem(str(tmp_path / "elsewhere.parm")) is None  # a path on the firmware's machine: not checked here
