"""Loads the part of the `ns3` wheel the backend uses, once per process.

The wheel's own `from ns import ns` parses the headers of all 40-odd ns-3 modules (14-18 s). The
backend needs eleven modules; loading only those, with their library dependencies and the macros
the wheel defines, and parsing only the headers our helper includes, takes about 6 s.
The result is the same `ns3` namespace (`cppyy.gbl.ns3`) the wheel returns.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

MODULES = ("core", "network", "mobility", "propagation", "spectrum", "wifi", "lr-wpan", "internet", "aodv", "dsdv",
           "olsr")
# what the wheel's loader defines when a loaded library links gsl, libxml2 or sqlite3, or is openflow or click
_DEFINES = ("HAVE_GSL", "HAVE_LIBXML2", "HAVE_SQLITE3", "NS3_OPENFLOW", "ENABLE_OPENFLOW", "NS3_CLICK")
_HELPER = Path(__file__).with_name("cosim_ns3.h")
_loaded: tuple | None = None


def wheel_prefix() -> Path:
    """The installed `ns3` wheel's directory (lib64/, include/)."""
    spec = importlib.util.find_spec("ns3")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the ns3 network backend needs the ns3 wheel: pip install ns3")
    return Path(next(iter(spec.submodule_search_locations)))


def library_dir_of(prefix: Path) -> Path:
    """The directory of the wheel's ns-3 libraries."""
    for variant in ("lib64", "lib"):
        if any((prefix / variant).glob("libns3*-core.so")):
            return prefix / variant
    raise RuntimeError(f"no ns-3 libraries under {prefix}")


def dependency_order(library_dir: Path, modules: tuple[str, ...]) -> list[str]:
    """The ns-3 libraries of `modules` and everything they link, each after its dependencies."""
    core = next(library_dir.glob("libns3*-core.so")).name
    version = core[len("libns3"):-len("-core.so")]
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        if not (library_dir / name).exists():
            raise RuntimeError(f"the ns3 wheel in {library_dir.parent} has no {name}: the ns3 backend needs ns-3 "
                               f"3{version} with the modules {', '.join(modules)}")
        for dep in sorted(set(re.findall(rb"\x00(libns3[^\x00/]*?\.so)", (library_dir / name).read_bytes()))):
            if dep.decode() != name:
                visit(dep.decode())
        order.append(name)

    for module in modules:
        visit(f"libns3{version}-{module}.so")
    return order


def load() -> tuple:
    """(the `ns3` namespace, our helper's `cosim_ns3` namespace), loading both on the first call."""
    global _loaded
    if _loaded is None:
        import cppyy
        import libcppyy

        prefix = wheel_prefix()
        library_dir = library_dir_of(prefix)
        libcppyy.AddSmartPtrType("Ptr")
        cppyy.add_library_path(str(library_dir))
        cppyy.add_include_path(str(prefix / "include"))
        cppyy.cppdef("".join(f"#define {name} 1\n" for name in _DEFINES))
        for library in dependency_order(library_dir, MODULES):
            cppyy.load_library(library)
        cppyy.cppdef(_HELPER.read_text())
        _loaded = (cppyy.gbl.ns3, cppyy.gbl.cosim_ns3)
    return _loaded
