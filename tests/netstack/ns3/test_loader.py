"""The backend loads the eleven ns-3 modules it drives, their dependencies first, and not the wheel's
all-modules loader (which parses every module's headers: 14-18 s against about 6 s)."""

from __future__ import annotations

import re
import sys

import pytest

from netstack.ns3.loader import MODULES, dependency_order, library_dir_of, load, wheel_prefix


def test_libraries_come_after_everything_they_link_and_cover_the_modules():
    library_dir = library_dir_of(wheel_prefix())
    order = dependency_order(library_dir, MODULES)
    assert len(order) == len(set(order))
    for i, name in enumerate(order):
        linked = {d.decode() for d in re.findall(rb"\x00(libns3[^\x00/]*?\.so)", (library_dir / name).read_bytes())}
        assert linked - {name} <= set(order[:i]), name
    assert {re.sub(r"^libns3[0-9.]*-|\.so$", "", n) for n in order} >= set(MODULES)
    assert "libns3.44-lte.so" not in order


def test_the_backend_has_what_it_names_and_not_the_wheels_loader():
    ns, helper = load()
    assert load() == (ns, helper)  # once per process
    assert ns.Simulator.Now().GetNanoSeconds() >= 0 and helper.Net
    assert "ns" not in sys.modules and "ns3.ns" not in sys.modules


def test_a_missing_module_library_is_named():
    with pytest.raises(RuntimeError, match=r"has no libns3\.44-nosuchmodule\.so: the ns3 backend needs ns-3 3\.44 with"):
        dependency_order(library_dir_of(wheel_prefix()), ("core", "nosuchmodule"))
