"""The documentation site builds with `mkdocs build --strict` (no broken link, no missing page, no
docstring mkdocstrings cannot read), and holds the generated scenario reference and the API."""

import ast
import os
import subprocess
import sys

from tests.conftest import ROOT


def test_the_site_builds_strictly_with_the_reference_and_the_api(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    keys = (tmp_path / "site" / "reference" / "scenario" / "index.html").read_text()
    for key in ("groups[].robot", "network.radio.fast", "physics", "solver_iterations", "max_speed", "output.stream"):
        assert key in keys, key
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text()
    for name in ("Controller", "GroupController", "Robot", "Net", "Message", "Group", "Inbox", "Swarm", "KiloProgram",
                 "rssi_dbm", "not <code>self.now()</code>", "CompiledController", "set_velocity", "CompiledGroup"):
        assert name in api, name
    for member in _api_members():  # every public member of the contract has its own entry
        assert f'id="{member}"' in api, member
    bench = (tmp_path / "site" / "benchmarks" / "index.html").read_text()
    assert "Each script prints one JSON line per case" in bench  # benchmarks/README.md, included


def _api_members() -> list[str]:
    """controllers.api.<module>.<Class>.<member> for every public method and property of the
    Protocols and classes the API page shows."""
    out = []
    for module in ("robot", "group", "net", "services"):
        tree = ast.parse((ROOT / "controllers" / "api" / f"{module}.py").read_text())
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and not n.name.startswith("_")):
            out += [f"controllers.api.{module}.{cls.name}.{f.name}" for f in cls.body
                    if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")]
    return out
