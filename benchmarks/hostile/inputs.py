"""Files and paths: scenario files that are not files, too large, not text or nested too deep;
world, state and model files likewise; output paths that cannot be written or hold someone's work."""

from __future__ import annotations

import os
from pathlib import Path

from benchmarks.hostile.base import scenario_text
from benchmarks.hostile.case import Case

FAMILY = "inputs"
RUN = ("cosim", "run", "s.yaml", "--out", "run", "--quiet")


def _fifo(name: str):
    def make(folder: Path) -> None:
        os.mkfifo(folder / name)
    return make


def _symlink(name: str, target: str):
    def make(folder: Path) -> None:
        os.symlink(target, folder / name)
    return make


def _bigfile(name: str, size: int):
    def make(folder: Path) -> None:
        with open(folder / name, "wb") as f:
            f.write(b"# " + b"x" * (size - 3) + b"\n")
    return make


def _dir(name: str):
    def make(folder: Path) -> None:
        (folder / name).mkdir()
    return make


def _scenario_file_cases() -> list[Case]:
    def case(name: str, target: str, mention: tuple[str, ...], **kw: object) -> Case:
        return Case(FAMILY, f"scenario-{name}", ("cosim", "run", target, "--out", "run", "--quiet"), "refuse",
                    mention=mention, timeout_s=60, **kw)
    deep = "a: " + "[" * 3000 + "]" * 3000 + "\n"
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(9))
    return [
        case("missing", "nope.yaml", ("nope.yaml",)),
        case("fifo", "s.yaml", ("s.yaml",), prepare=_fifo("s.yaml")),
        case("dev-zero", "/dev/zero", ("/dev/zero",)),
        case("dev-null", "/dev/null", ("/dev/null",)),
        case("folder", "s.yaml", ("s.yaml",), prepare=_dir("s.yaml")),
        case("dangling-symlink", "s.yaml", ("s.yaml",), prepare=_symlink("s.yaml", "/nonexistent/x.yaml")),
        case("symlink-loop", "s.yaml", ("s.yaml",), prepare=_symlink("s.yaml", "s.yaml")),
        case("too-large", "s.yaml", ("s.yaml",), prepare=_bigfile("s.yaml", 20 * 2**20)),
        case("latin1", "s.yaml", ("s.yaml",), files={"s.yaml": scenario_text().encode() + b"# caf\xe9\n"}),
        case("binary", "s.yaml", ("s.yaml",), files={"s.yaml": bytes(range(256)) * 4}),
        case("utf16", "s.yaml", ("s.yaml",), files={"s.yaml": scenario_text().encode("utf-16")}),
        case("deep-nesting", "s.yaml", ("s.yaml",), files={"s.yaml": deep}),
        case("alias-bomb", "s.yaml", ("s.yaml",), files={"s.yaml": bomb}),
        case("self-alias", "s.yaml", ("s.yaml",), files={"s.yaml": "a: &a [*a]\n"}),
        case("python-tag", "s.yaml", ("s.yaml",), files={"s.yaml": "!!python/object/apply:os.system ['touch pwned']\n"}),
        case("nul-bytes", "s.yaml", ("s.yaml",), files={"s.yaml": scenario_text() + "\x00\n"}),
        case("one-long-list", "s.yaml", ("s.yaml",), files={"s.yaml": "a: [" + "1," * 2_000_000 + "1]\n"}),
        Case(FAMILY, "validate-dev-zero", ("cosim", "validate", "/dev/zero"), "refuse", mention=("/dev/zero",)),
    ]


def _named_file_cases() -> list[Case]:
    out = []
    keys = {
        "world.file": ("world.yaml", {"world.file": "world.yaml"}),
        "initial_state": ("state.json", {"initial_state": "state.json"}),
    }
    for key, (name, change) in keys.items():
        leaf = key.split(".")[-1]
        for what, kw in {
            "missing": {},
            "fifo": {"prepare": _fifo(name)},
            "dev-zero": {"prepare": _symlink(name, "/dev/zero")},
            "folder": {"prepare": _dir(name)},
            "too-large": {"prepare": _bigfile(name, 20 * 2**20 if name.endswith("yaml") else 2**30 + 10)},
            "garbage": {"files": {name: bytes(range(256)) * 8}},
            "empty": {"files": {name: ""}},
            "wrong-shape": {"files": {name: "[1, 2, 3]\n"}},
            "absolute-etc": {"files": {}},
        }.items():
            changes = dict(change)
            if what == "absolute-etc":
                changes = {key: "/etc/passwd"}
            files = {"s.yaml": scenario_text(changes), **kw.pop("files", {})}
            out.append(Case(FAMILY, f"{key}-{what}", RUN, "refuse", mention=(leaf,), files=files, run_dir=None,
                            timeout_s=60, **kw))
    return out


def _output_cases() -> list[Case]:
    thesis = {"s.yaml": scenario_text(), "run/thesis.tex": "\\documentclass{article} my thesis\n"}
    run_file = {"s.yaml": scenario_text(), "run": "I am a file\n"}
    return [
        Case(FAMILY, "out-nonempty-folder", RUN, "refuse", mention=("run",), files=thesis, guard=("run",)),
        Case(FAMILY, "overwrite-folder-with-thesis", (*RUN, "--overwrite"), "refuse", mention=("run directory",),
             files=thesis, guard=("run",)),
        Case(FAMILY, "out-is-a-file", RUN, "refuse", mention=("run",), files=run_file, guard=("run",)),
        Case(FAMILY, "out-under-a-file", ("cosim", "run", "s.yaml", "--out", "f/run", "--quiet"), "refuse",
             mention=("f",), files={"s.yaml": scenario_text(), "f": "x"}, guard=("f",)),
        Case(FAMILY, "out-in-proc", ("cosim", "run", "s.yaml", "--out", "/proc/run", "--quiet"), "refuse",
             mention=("/proc",), files={"s.yaml": scenario_text()}),
        Case(FAMILY, "out-empty-string", ("cosim", "run", "s.yaml", "--out", "", "--quiet"), "refuse",
             mention=("--out",), files={"s.yaml": scenario_text()}),
        Case(FAMILY, "output-dir-is-file", ("cosim", "run", "s.yaml", "--quiet"), "refuse", mention=("runs",),
             files={"s.yaml": scenario_text(), "runs": "a file\n"}, guard=("runs",)),
        Case(FAMILY, "out-symlink-to-etc", RUN, "refuse", mention=("run",), files={"s.yaml": scenario_text()},
             prepare=_symlink("run", "/etc")),
        Case(FAMILY, "overwrite-run-dir", (*RUN, "--overwrite"), "ok", files={"s.yaml": scenario_text()},
             prepare=_prior_run, run_dir="run"),
        Case(FAMILY, "validate-ok", ("cosim", "validate", "s.yaml"), "ok", files={"s.yaml": scenario_text()}),
    ]


def _prior_run(folder: Path) -> None:
    import subprocess
    import sys

    subprocess.run([str(Path(sys.executable).parent / "cosim"), "run", "s.yaml", "--out", "run", "--quiet"],
                   cwd=folder, check=True, capture_output=True)


def cases() -> list[Case]:
    return _scenario_file_cases() + _named_file_cases() + _output_cases()
