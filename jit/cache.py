"""The project's one on-disk cache of compiled code, in a folder named by a digest of that code.

numba checks a cached function against its own source file only. A kernel that calls a kernel (or
reads a constant) of another module keeps the machine code it was compiled with after that other
module changes (a `git pull`, an edit), and would silently compute with the old one. So everything
compiled lives in `<base>/<digest>`, the digest taken over every module that uses numba and every
project module those import directly, and the bounds-check switch: any change there starts a fresh
folder. numba's cache is that folder; the modules generated for compiled programs
(controllers.compiled.codegen) sit in its `programs/`. `<base>` is COSIM_CACHE_DIR if set, else
~/.cache/swarm-cosim/numba (a temporary folder where that cannot be written); there, other digests'
folders left untouched for two weeks are removed. Importing `jit` sets this up, before numba is loaded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("jit", "spatial", "physics", "netstack", "controllers", "cosim")
ENV = "COSIM_CACHE_DIR"
"""The one setting: where the cache's digest folders go (default ~/.cache/swarm-cosim/numba)."""
NUMBA_ENV = "NUMBA_CACHE_DIR"
"""numba's own setting, which configure() sets to the folder chosen."""
BOUNDSCHECK_ENV = "NUMBA_BOUNDSCHECK"
"""numba's bounds-check switch, read when numba is imported; its machine code differs, its cache key not."""
MARK = "COSIM_NUMBA_CACHE"
"""Set to the folder chosen, so that child processes (sweeps, test workers) keep it."""

DEFAULT_BASE = Path.home() / ".cache" / "swarm-cosim" / "numba"
PROGRAMS = "programs"
STALE_S = 14 * 24 * 3600.0
"""Other digests' folders untouched this long are removed (code that old is compiled again if it runs)."""
_DIGEST = re.compile(r"[0-9a-f]{16}")
_NUMBA = re.compile(r"^\s*(?:from|import)\s+numba\b", re.MULTILINE)
_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+\(?([\w\s,]+)|import\s+([\w.]+))", re.MULTILINE)


def compiled_sources(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> list[Path]:
    """The modules under `packages` that import numba, and the project modules each of them imports."""
    files = {p: p.read_text() for pkg in packages for p in (root / pkg).rglob("*.py")}
    kernels = [p for p, text in files.items() if _NUMBA.search(text)]
    seen = set(kernels)
    for p in kernels:
        for match in _IMPORT.finditer(files[p]):
            module = (match.group(1) or match.group(3)).replace(".", "/")
            names = [n.split()[0] for n in (match.group(2) or "").split(",") if n.strip()]
            for name in (module, *(f"{module}/{n}" for n in names)):  # `from pkg import module` too
                seen.update(q for q in (root / f"{name}.py", root / name / "__init__.py") if q in files)
    return sorted(seen)


def digest(paths: list[Path], root: Path = ROOT) -> str:
    """A digest of these files' names and contents, numba's version and the compile flags numba's own
    cache does not tell apart (NUMBA_BOUNDSCHECK: checked and unchecked code in different folders)."""
    flags = "boundscheck=" + os.environ.get(BOUNDSCHECK_ENV, "")
    h = hashlib.sha256(metadata.version("numba").encode() + b"\0" + flags.encode())
    for p in paths:
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def configure(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> Path:
    """Point numba's cache at `<base>/<digest>` (see the module docstring), once per process tree."""
    chosen = os.environ.get(MARK)
    if chosen and os.environ.get(NUMBA_ENV) == chosen:
        return Path(chosen)
    if os.environ.get(NUMBA_ENV):
        log.warning("%s=%s is replaced: swarm-cosim keeps its compiled code in folders under %s (default %s)",
                    NUMBA_ENV, os.environ[NUMBA_ENV], ENV, DEFAULT_BASE)
    own = not os.environ.get(ENV)  # our default base, not a folder the user named: ours to prune
    base = DEFAULT_BASE if own else Path(os.environ[ENV])
    folder = base / digest(compiled_sources(root, packages), root)
    try:
        (folder / PROGRAMS).mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a read-only home on a cluster node
        fallback = Path(tempfile.gettempdir()) / "swarm-cosim-numba" / folder.name
        log.warning("cannot use %s for compiled code (%s); using %s", folder, exc, fallback)
        folder = fallback
        (folder / PROGRAMS).mkdir(parents=True, exist_ok=True)
    os.environ[NUMBA_ENV] = os.environ[MARK] = str(folder)
    if own:
        prune(folder.parent, keep=folder)
    if "numba" in sys.modules:  # loaded already (by the user's own code): later kernels follow
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    return folder


def programs() -> Path:
    """The folder for generated program modules: `programs/` in this process tree's cache folder."""
    return configure() / PROGRAMS


def prune(base: Path, keep: Path, now: float | None = None) -> list[Path]:
    """Remove the digest folders in `base` but `keep` that nothing was written to for STALE_S;
    returns them. A folder in use elsewhere only costs that code a compile again."""
    limit = (time.time() if now is None else now) - STALE_S
    gone = []
    for folder in base.iterdir():
        try:
            if folder != keep and folder.is_dir() and _DIGEST.fullmatch(folder.name) and folder.stat().st_mtime < limit:
                shutil.rmtree(folder)
                gone.append(folder)
        except OSError as exc:  # another process pruning too, or not ours to remove
            log.debug("kept %s: %s", folder, exc)
    return gone
