"""Sweep files: a base scenario, a grid of dotted-key overrides, exclusions and replications.

A sweep expands into runs. Each run has a stable key derived from its parameter point and its
replication, so re-running the same sweep finds the runs already done. Replication r uses the same
master seed at every parameter point (derived from the campaign seed and r alone), so protocols
or parameter values are compared on the same random draws.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cosim.errors import ScenarioError
from cosim.scenario.input_files import read_text
from cosim.scenario.loading import load
from cosim.scenario.specs import Scenario
from cosim.scenario.strict_yaml import load_yaml

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

    def points(self) -> list[RunPoint]:
        """Every (parameter point, replication) not excluded, in a stable order."""
        axes = list(self.grid)  # file order: the order users read in tables
        out = []
        for values in itertools.product(*(self.grid[a] for a in axes)):
            params = dict(zip(axes, values))
            if any(all(params.get(k) == v for k, v in ex.items()) for ex in self.exclude):
                continue
            for r in range(self.replications):
                out.append(RunPoint(run_key(params, r), params, r, replication_seed(self.campaign_seed, r)))
        return out

    def scenario(self, point: RunPoint) -> Scenario:
        return load(self.base, point.overrides(self.fixed))


def run_key(params: dict[str, Any], replication: int) -> str:
    """A short, stable name: the same parameters and replication give the same key in any process."""
    canonical = json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:12]
    return f"p{digest}-r{replication}"


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
    for i, ex in enumerate(exclude):
        for k in ex:
            if k not in grid:
                raise ScenarioError(src, f"exclude[{i}].{k}", f"not a grid axis; axes are: {', '.join(grid)}")
    fixed = data.get("set") or {}
    if not isinstance(fixed, dict):
        raise ScenarioError(src, "set", "expected a mapping of dotted keys to values")
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
    out_dir = Path(output["dir"]).resolve() if "dir" in output else None  # outputs: relative to the working directory
    spec = SweepSpec(path.resolve(), base, grid, exclude, fixed, reps, seed, float(timeout), out_dir)
    _validate_points(spec)
    return spec


def _validate_points(spec: SweepSpec) -> None:
    """Load every distinct parameter point once, so a bad value fails before the first run."""
    seen = set()
    for point in spec.points():
        if point.replication:
            continue
        if point.key in seen:
            continue
        seen.add(point.key)
        try:
            spec.scenario(point)
        except ScenarioError as exc:
            where = ", ".join(f"{k}={v!r}" for k, v in point.params.items())
            raise ScenarioError(str(spec.source), f"grid ({where})", f"the base scenario rejects this point: {exc}") from None
