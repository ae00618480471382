"""pybullet itself, imported once without its build-time banner (it writes one to stderr on import,
which is noise in `cosim validate` and in every run's log)."""

from __future__ import annotations

import os
import sys
from types import ModuleType


def pybullet_module() -> ModuleType:
    """The pybullet module; its first import runs with stderr (the file descriptor) silenced."""
    if "pybullet" in sys.modules:
        return sys.modules["pybullet"]
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            import pybullet
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    return pybullet
