"""The `cosim` command's entry point: a signal while the program is still loading ends it with a
word and status 130, not a KeyboardInterrupt traceback (SIGINT) or a silent death (SIGTERM, SIGUSR1)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

SIGNAL_DURING_IMPORT = """
import builtins, os, signal, sys
import cosim.entry
real = builtins.__import__
def importing(name, *args, **kwargs):
    if name == "cosim.cli":
        os.kill(os.getpid(), signal.{sig})
    return real(name, *args, **kwargs)
builtins.__import__ = importing
sys.exit(cosim.entry.main())
"""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGUSR1"])
def test_a_signal_while_the_command_loads_ends_it_with_a_word(sig):
    proc = subprocess.run([sys.executable, "-c", SIGNAL_DURING_IMPORT.format(sig=sig), "validate", "configs/demo.yaml"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 130
    said = "interrupted (Ctrl-C)" if sig == "SIGINT" else f"terminated by {sig}"
    assert f"{said} while starting" in proc.stderr and "Traceback" not in proc.stderr


def test_the_command_runs_through_the_entry_point():
    proc = subprocess.run([sys.executable, "-c", "import sys, cosim.entry; sys.exit(cosim.entry.main())", "validate",
                           "configs/demo.yaml"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "demo" in proc.stdout, proc.stderr


def test_importing_cosim_loads_the_engine_only_when_asked():
    loaded = "print('cosim.execution.execute' in sys.modules)"
    code = f"import sys, cosim; {loaded}; cosim.run; {loaded}"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["False", "True"], proc.stderr
