"""Digests of the files a run wrote, kept in its status.json: a file cut short, overwritten or
edited since shows as changed when the run is read back (cosim.output.results, the sweep index)."""

from __future__ import annotations

import hashlib
from pathlib import Path

KEPT = ("scenario.yaml", "metadata.json", "final_state.json")
"""Besides metrics.json (whose digest status.json keeps as metrics_sha256)."""


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kept_digests(directory: Path) -> dict[str, str]:
    """sha256 of each of KEPT that the run wrote."""
    out = {}
    for name in KEPT:
        try:
            out[name] = file_sha256(directory / name)
        except OSError:  # not written (a failed run), or unreadable: nothing to check it against
            continue
    return out
