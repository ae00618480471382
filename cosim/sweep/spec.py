"""Sweep files: a base scenario, a grid of dotted-key overrides, exclusions and replications.

A sweep expands into runs. Each run's key is a digest of what it runs: the whole resolved scenario
(seed included) and the source of its controller classes, so re-running the same sweep finds the
runs already done, and a changed `set:`, campaign seed or controller reruns them. Replication r
uses the same master seed at every parameter point (derived from the campaign seed and r alone), so
protocols or parameter values are compared on the same random draws; a `seed` axis (or a `seed`
in `set:`) chooses the seeds itself instead.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cosim.errors import ScenarioError
from cosim.scenario.classes import import_class
from cosim.scenario.input_files import read_text
from cosim.scenario.loading import load
from cosim.scenario.schema import dump
from cosim.scenario.specs import Scenario
from cosim.scenario.strict_yaml import load_yaml

MAX_RUNS = 100_000
"""Runs one sweep may have (each is a child process and a directory); checked before expanding the grid."""
SWEEP_KEYS = {"base", "grid", "exclude", "set", "replications", "campaign_seed", "timeout", "output"}


@dataclass(frozen=True)
class RunPoint:
    """One run of a sweep: its overrides, replication, seed and stable key."""

    key: str
    params: dict[str, Any]
    replication: int
    seed: int

    def overrides(self, fixed: dict[str, Any]) -> dict[str, Any]:
        return {**fixed, **self.params, "seed": self.seed}


def _fixed_seed(fixed: dict[str, Any], params: dict[str, Any]) -> int | None:
    """The seed a point names itself (a `seed` axis, or `seed` in `set:`), or None."""
    return params.get("seed", fixed.get("seed"))


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep file."""

    source: Path
    base: Path
    grid: dict[str, list[Any]]
    exclude: list[dict[str, Any]] = field(default_factory=list)
    fixed: dict[str, Any] = field(default_factory=dict)
    replications: int = 1
    campaign_seed: int = 0
    timeout_s: float = 3600.0
    output_dir: Path | None = None

    run_points: tuple[RunPoint, ...] = ()
    """Every run, in a stable order (filled by load_sweep, which loads each point to key it)."""

    def points(self) -> list[RunPoint]:
        """Every (parameter point, replication) not excluded, in a stable order."""
        return list(self.run_points)

    def parameter_points(self) -> list[tuple[dict[str, Any], int, int]]:
        """(params, replication, seed) of every run, before keys are known."""
        axes = list(self.grid)  # file order: the order users read in tables
        out = []
        for values in itertools.product(*(self.grid[a] for a in axes)):
            params = dict(zip(axes, values))
            if any(all(params.get(k) == v for k, v in ex.items()) for ex in self.exclude):
                continue
            own = _fixed_seed(self.fixed, params)
            for r in range(self.replications):
                out.append((params, r, own if own is not None else replication_seed(self.campaign_seed, r)))
        return out

    def scenario(self, point: RunPoint) -> Scenario:
        return load(self.base, point.overrides(self.fixed))


def run_key(scenario: Scenario, replication: int, code: dict[str, str] | None = None) -> str:
    """A short, stable name for what a run runs: a digest of its resolved scenario (seed included,
    the file it came from left out) and of its controller classes' source; the same in any process.
    `code` keeps each class's source digest for the other runs of one sweep (its files read once)."""
    code = {} if code is None else code
    resolved = {k: v for k, v in dump(scenario).items() if k != "source"}
    h = hashlib.sha256(json.dumps(resolved, sort_keys=True, separators=(",", ":"), default=str).encode())
    for name in sorted({g.controller.cls for g in scenario.groups if g.controller is not None}):
        if name not in code:
            code[name] = _code_digest(import_class(name, scenario.source))
        h.update(b"\0" + name.encode() + b"\0" + code[name].encode())
    return f"p{h.hexdigest()[:12]}-r{replication}"


def _code_digest(cls: type) -> str:
    """A digest of the source files of `cls` and its bases (a change in any of them reruns the point)."""
    h = hashlib.sha256()
    for klass in cls.__mro__:
        try:
            path = inspect.getsourcefile(klass)
        except TypeError:  # builtins
            continue
        if path and Path(path).is_file():
            h.update(Path(path).read_bytes())
    return h.hexdigest()


def replication_seed(campaign_seed: int, replication: int) -> int:
    """The master seed of replication r: the same at every parameter point."""
    state = np.random.SeedSequence(campaign_seed, spawn_key=(replication,)).generate_state(1, np.uint64)[0]
    return int(state) & 0x7FFF_FFFF


def load_sweep(path: str | Path) -> SweepSpec:
    """Read and check a sweep file; every run's scenario is validated before anything runs."""
    path = Path(path)
    src = str(path)
    try:
        data = load_yaml(read_text(path))
    except ValueError as exc:
        raise ScenarioError(src, "", f"cannot read the file: {exc}") from None
    except yaml.YAMLError as exc:
        raise ScenarioError(src, "", f"not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ScenarioError(src, "", "expected a mapping with at least `base` and `grid`")
    unknown = sorted(set(data) - SWEEP_KEYS)
    if unknown:
        raise ScenarioError(src, unknown[0], f"unknown key; expected one of: {', '.join(sorted(SWEEP_KEYS))}")
    if "base" not in data or not isinstance(data["base"], str):
        raise ScenarioError(src, "base", "missing: the path of the base scenario, relative to this file")
    base = (path.parent / data["base"]).resolve()
    grid = data.get("grid") or {}
    if not isinstance(grid, dict):
        raise ScenarioError(src, "grid", "expected a mapping of dotted keys to values (a list makes an axis)")
    grid = {str(k): (list(v) if isinstance(v, list) else [v]) for k, v in grid.items()}
    for k, v in grid.items():
        if not v:
            raise ScenarioError(src, f"grid.{k}", "an axis needs at least one value")
    exclude = data.get("exclude") or []
    if not isinstance(exclude, list) or not all(isinstance(e, dict) for e in exclude):
        raise ScenarioError(src, "exclude", "expected a list of mappings {dotted.key: value}")
    fixed = data.get("set") or {}
    if not isinstance(fixed, dict):
        raise ScenarioError(src, "set", "expected a mapping of dotted keys to values")
    reps, seed, timeout, out_dir = _run_settings(src, data)
    _check_keys(src, grid, fixed, exclude)
    runs = reps * math.prod(len(v) for v in grid.values())
    if runs > MAX_RUNS:
        sizes = " x ".join(str(len(v)) for v in grid.values()) or "1"
        raise ScenarioError(src, "grid", f"{sizes} points x {reps:,} replications is {runs:,} runs, more than "
                            f"{MAX_RUNS:,} in one sweep; split it, or sweep fewer values")
    if reps > 1 and ("seed" in grid or "seed" in fixed):
        raise ScenarioError(src, "replications", "a seed axis (or `seed` in set:) chooses every run's seed, so "
                            f"{reps} replications would repeat the same runs; set replications: 1")
    spec = SweepSpec(path.resolve(), base, grid, exclude, fixed, reps, seed, timeout, out_dir)
    return dataclasses.replace(spec, run_points=_keyed_points(spec))


def _run_settings(src: str, data: dict[str, Any]) -> tuple[int, int, float, Path | None]:
    """The sweep's replications, campaign seed, per-run timeout (s) and output folder, checked."""
    reps = data.get("replications", 1)
    if not isinstance(reps, int) or isinstance(reps, bool) or reps < 1:
        raise ScenarioError(src, "replications", f"expected an integer >= 1, got {reps!r}")
    seed = data.get("campaign_seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ScenarioError(src, "campaign_seed", f"expected a non-negative integer, got {seed!r}")
    timeout = data.get("timeout", 3600)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout < math.inf:
        raise ScenarioError(src, "timeout", f"expected seconds > 0, got {timeout!r}")
    output = data.get("output") or {}
    if not isinstance(output, dict) or set(output) - {"dir"}:
        raise ScenarioError(src, "output", "expected {dir: PATH}")
    if "dir" in output and (not isinstance(output["dir"], str) or not output["dir"].strip()):
        raise ScenarioError(src, "output.dir", f"expected a path, got {output['dir']!r}")
    out_dir = Path(output["dir"]).resolve() if "dir" in output else None  # outputs: relative to the working directory
    return reps, seed, float(timeout), out_dir


def _canonical(key: str) -> str:
    """A dotted key as an override applies it: `groups.00.count` is `groups.0.count`."""
    return ".".join(str(int(part)) if part.isdigit() else part for part in key.split("."))


def _check_keys(src: str, grid: dict[str, Any], fixed: dict[str, Any], exclude: list[dict[str, Any]]) -> None:
    """Refuse two spellings of one key, and a key set together with a part of it (which one wins would
    depend on the order), across the grid and `set:`; exclusions name grid axes."""
    seen: dict[str, str] = {}
    for section, keys in (("grid", grid), ("set", fixed)):
        for key in keys:
            c = _canonical(str(key))
            here = f"{section}.{key}"
            for other_c, other in seen.items():
                if c == other_c:
                    raise ScenarioError(src, here, f"the same key as {other}; give it once")
                if c.startswith(other_c + ".") or other_c.startswith(c + "."):
                    raise ScenarioError(src, here, f"overlaps {other} (one sets a part of the other); give one")
            seen[c] = here
    axes = {_canonical(a): a for a in grid}
    for i, ex in enumerate(exclude):
        for k in ex:
            if k not in grid:
                hint = f" (write it as the axis is written: {axes[_canonical(k)]})" if _canonical(k) in axes else ""
                raise ScenarioError(src, f"exclude[{i}].{k}", f"not a grid axis; axes are: {', '.join(grid)}{hint}")


def _keyed_points(spec: SweepSpec) -> tuple[RunPoint, ...]:
    """Every run with its key; each parameter point is loaded once, so a bad value fails before the
    first run, and two points that would run the same scenario are refused."""
    out: list[RunPoint] = []
    first: dict[str, str] = {}  # key: the point that first gave it
    loaded: dict[str, Scenario] = {}
    code: dict[str, str] = {}  # controller class: its source digest
    for params, r, seed in spec.parameter_points():
        where = ", ".join(f"{k}={v!r}" for k, v in params.items())
        token = json.dumps(params, sort_keys=True, default=str)
        if token not in loaded:
            try:
                loaded[token] = load(spec.base, {**spec.fixed, **params, "seed": seed})
            except ScenarioError as exc:
                raise ScenarioError(str(spec.source), f"grid ({where})", f"the base scenario rejects this point: {exc}") from None
        key = run_key(dataclasses.replace(loaded[token], seed=seed), r, code)
        if key in first:
            raise ScenarioError(str(spec.source), f"grid ({where})", f"runs the same scenario as ({first[key]}), "
                                "replication for replication: give each point once")
        first[key] = where
        out.append(RunPoint(key, params, r, seed))
    return tuple(out)
