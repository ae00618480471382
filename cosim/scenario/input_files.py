"""Files a scenario or sweep names, checked before anything reads them: a regular file (a FIFO would
block forever, /dev/zero never end) of a bounded size, and text that is UTF-8."""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_TEXT_BYTES = 16 << 20
"""Scenario, world and sweep files: the YAML parser takes about a minute for this much."""
MAX_MODEL_BYTES = 1 << 30
"""Meshes, URDFs, terrains and state files."""

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def check_input(path: str | Path, limit: int) -> None:
    """ValueError unless `path` (symlinks followed) is a regular file of at most `limit` bytes."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"no such file: {path}") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
        raise ValueError(f"{path} is {kind}, not a regular file")
    if st.st_size > limit:
        raise ValueError(f"{path} is {st.st_size:,} bytes, more than the {limit:,} such a file may have")


def read_text(path: str | Path, limit: int = MAX_TEXT_BYTES) -> str:
    """The file's text, checked first (check_input); ValueError naming the file if it is not UTF-8."""
    check_input(path, limit)
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    if len(raw) > limit:
        raise ValueError(f"{path} grew past {limit:,} bytes while it was read")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ValueError(f"{path} is not UTF-8 text (byte {exc.start:,}, line {line}: {raw[exc.start:exc.end]!r})") from None
