"""numba's cache lives in a folder named by the compiled code's sources, so a kernel never runs
machine code compiled against an older version of a kernel it calls."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from jit import cache

SCRIPT = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
if {configure}:  # the module alone: importing the cosim package would configure it for the project
    import importlib.util
    spec = importlib.util.spec_from_file_location("jit_cache", {module!r})
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.configure(Path({root!r}), ("pkg",))
from pkg.b import g
print(g())
"""


def _write(root: Path, value: int) -> None:
    (root / "pkg" / "a.py").write_text(f"from numba import njit\n\n\n@njit(cache=True)\ndef f():\n    return {value}\n")


def _run(root: Path, configure: bool, env: dict) -> str:
    code = SCRIPT.format(root=str(root), configure=configure, module=cache.__file__)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.strip()


def test_a_kernel_is_recompiled_when_a_kernel_it_calls_changes(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in (cache.ENV, cache.NUMBA_ENV, cache.MARK)}
    for configure in (False, True):
        root = tmp_path / str(configure)
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "__init__.py").write_text("")
        (root / "pkg" / "b.py").write_text(textwrap.dedent("""
            from numba import njit

            from pkg.a import f


            @njit(cache=True)
            def g():
                return f() + 1
            """))
        _write(root, 1)
        run_env = {**env, cache.ENV: str(tmp_path / f"cache-{configure}")} if configure else env
        assert _run(root, configure, run_env) == "2"
        _write(root, 10)  # b.py untouched
        # numba alone checks b.py's own stamp and serves g as compiled against the old f
        assert _run(root, configure, run_env) == ("11" if configure else "2")


def test_importing_cosim_chose_the_folder_of_this_code(monkeypatch, tmp_path):
    folder = Path(os.environ[cache.NUMBA_ENV])
    assert os.environ[cache.MARK] == str(folder)
    assert folder.name == cache.digest(cache.compiled_sources())
    assert cache.configure() == folder  # once per process tree: a child keeps it
    names = {str(p.relative_to(cache.ROOT)) for p in cache.compiled_sources()}
    assert {"physics/kinematic/compiled.py", "physics/kinematic/pairs.py", "physics/kinematic/verlet.py",
            "physics/kinematic/scenery_kernels.py", "netstack/fast/csma_compiled.py", "cosim/fused_engine/kernels.py"} <= names
    monkeypatch.setenv(cache.ENV, str(tmp_path / "mine"))  # the user's own base
    monkeypatch.delenv(cache.MARK)
    if "numba" in sys.modules:  # configure points a loaded numba there too: put it back afterwards
        monkeypatch.setattr(sys.modules["numba"].config, "CACHE_DIR", sys.modules["numba"].config.CACHE_DIR)
    chosen = cache.configure()
    assert chosen == tmp_path / "mine" / folder.name and chosen.is_dir()
    assert os.environ[cache.MARK] == os.environ[cache.NUMBA_ENV] == str(chosen)
    assert cache.programs() == chosen / "programs" and cache.programs().is_dir()


def test_bounds_checked_code_has_a_folder_of_its_own(monkeypatch):
    sources = cache.compiled_sources()
    monkeypatch.delenv(cache.BOUNDSCHECK_ENV, raising=False)
    unchecked = cache.digest(sources)
    monkeypatch.setenv(cache.BOUNDSCHECK_ENV, "1")
    assert cache.digest(sources) != unchecked  # numba's own cache would serve the unchecked code


def test_old_digests_folders_are_pruned_and_nothing_else(tmp_path):
    keep, old, fresh, other = (tmp_path / n for n in ("0123456789abcdef", "fedcba9876543210", "00000000000000aa", "notes"))
    for folder in (keep, old, fresh, other):
        folder.mkdir()
        (folder / "f").write_text("x")
    stale = 1_000_000.0
    for folder in (keep, old, other):
        os.utime(folder, (stale, stale))
    now = stale + cache.STALE_S + 1.0
    os.utime(fresh, (now - 60.0, now - 60.0))
    assert cache.prune(tmp_path, keep=keep, now=now) == [old]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([keep.name, fresh.name, other.name])


def _fresh(monkeypatch) -> None:
    """Forget this process tree's choice (configure chooses again), and put a loaded numba back afterwards."""
    monkeypatch.delenv(cache.MARK)
    if "numba" in sys.modules:
        monkeypatch.setattr(sys.modules["numba"].config, "CACHE_DIR", sys.modules["numba"].config.CACHE_DIR)


def test_an_unwritable_base_falls_back_to_the_temporary_folder(monkeypatch, tmp_path, caplog):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv(cache.ENV, str(blocked / "cache"))
    _fresh(monkeypatch)
    chosen = cache.configure()
    assert chosen.parent.name == "swarm-cosim-numba" and (chosen / "programs").is_dir()
    assert "cannot use" in caplog.text and str(blocked / "cache") in caplog.text


def test_numbas_own_setting_is_replaced_and_the_user_told(monkeypatch, tmp_path, caplog):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "ours"))
    monkeypatch.setenv(cache.NUMBA_ENV, str(tmp_path / "theirs"))
    _fresh(monkeypatch)
    chosen = cache.configure()
    assert chosen.parent == tmp_path / "ours" and os.environ[cache.NUMBA_ENV] == str(chosen)
    assert f"NUMBA_CACHE_DIR={tmp_path / 'theirs'} is replaced" in caplog.text and "COSIM_CACHE_DIR" in caplog.text


def test_generated_programs_live_in_the_folder_of_this_code():
    from controllers.compiled import codegen

    module = codegen.load_generated("probe", "VALUE = 42\n", ["programs folder test"])
    assert module.VALUE == 42 and Path(module.__file__).parent == cache.programs()
