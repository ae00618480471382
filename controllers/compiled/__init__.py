"""Compiled robot programs: kilolib's shape in plain Python, compiled with numba (`Program`), run robot by
robot on the event engine or all together on the fused engine (cosim.fused_engine); general controllers with
compiled callbacks (`CompiledController`) and group steps (`group.CompiledGroup`)."""

from controllers.compiled.controller import CompiledController
from controllers.compiled.program import Program
from controllers.compiled.refusals import ProgramError

__all__ = ["CompiledController", "Program", "ProgramError"]
