"""Where the controller classes a scenario names (`package.module:Class`) are found.

Lookup order: the old names of moved classes (`ALIASES`, with a deprecation warning once per name),
then the installed packages and `sys.path`, then the directory of the scenario file, then the
working directory. So a user's `my_controllers.py` beside the scenario imports without PYTHONPATH.
"""

from __future__ import annotations

import importlib
import logging
import sys
from pathlib import Path

from controllers.aliases import ALIASES

log = logging.getLogger(__name__)
_warned: set[str] = set()


def import_class(spec: str, source: str | None = None) -> type:
    """Import `package.module:Class`; `source` is the scenario file that names it (its directory is searched)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ImportError(f"{spec!r} is not an import string of the form 'package.module:Class'")
    module_name = _current_name(module_name, spec)
    module = _import_module(module_name, source)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImportError(f"module {module_name!r} has no attribute {attr!r}") from None


def _current_name(module_name: str, spec: str) -> str:
    new = ALIASES.get(module_name)
    if new is None:
        return module_name
    if module_name not in _warned:
        _warned.add(module_name)
        log.warning("%r is an old name: the module moved to %r; write %s:%s in the scenario", spec, new, new,
                    spec.partition(":")[2])
    return new


def search_dirs(source: str | None) -> list[Path]:
    """The directories searched after sys.path: the scenario file's, then the working directory."""
    dirs = []
    if source and source != "<memory>":
        dirs.append(Path(source).resolve().parent)
    dirs.append(Path.cwd())
    return dirs


def _import_module(module_name: str, source: str | None):
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        top = module_name.partition(".")[0]
        if exc.name != top:
            raise  # the module exists but imports something missing: report that
        for directory in search_dirs(source):
            if (directory / f"{top}.py").is_file() or (directory / top / "__init__.py").is_file():
                if str(directory) not in sys.path:
                    sys.path.append(str(directory))  # appended: never shadows an installed package
                importlib.invalidate_caches()
                return importlib.import_module(module_name)
        raise ModuleNotFoundError(f"no module named {top!r} (looked in sys.path, then in "
                                  f"{', '.join(str(d) for d in search_dirs(source))})", name=top) from None
