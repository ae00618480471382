"""Sweeps: expansion, stable keys, replication seeds, local execution, failures, resume, export."""

import csv
import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
import yaml

from cosim.cli import main
from cosim.errors import ScenarioError
from cosim.sweep.runner import run_sweep
from cosim.sweep.spec import load_sweep, replication_seed, run_key
from netstack.routing.registry import protocol_name
from tests.conftest import ROOT, base_scenario


def write_sweep(tmp_path, grid, replications=2, exclude=None, timeout=300, base_overrides=None, fixed=None):
    base = base_scenario(duration=1.0)
    base["groups"][0]["count"] = 8
    base.update(base_overrides or {})
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base))
    sweep = {"base": "base.yaml", "campaign_seed": 11, "replications": replications, "grid": grid, "timeout": timeout,
             "set": fixed or {"output.trace.network": False}}
    if exclude:
        sweep["exclude"] = exclude
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(sweep, sort_keys=False))
    return path


def test_expansion_keys_and_seeds(tmp_path):
    grid = {"groups.0.count": [4, 8], "network.radio.loss_probability": [0.0, 0.5]}
    exclude = [{"groups.0.count": 8, "network.radio.loss_probability": 0.5}]
    spec = load_sweep(write_sweep(tmp_path, grid, replications=3, exclude=exclude))
    points = spec.points()
    assert len(points) == 3 * 3
    assert len({p.key for p in points}) == 9
    # replication r has one seed at every parameter point, and the seeds differ between replications
    for r in range(3):
        assert {p.seed for p in points if p.replication == r} == {replication_seed(11, r)}
    assert len({replication_seed(11, r) for r in range(3)}) == 3
    # keys are digests of what runs: the same in another process, whatever the order of the axes
    code = ("from cosim.sweep.spec import load_sweep; import sys; "
            "print(' '.join(p.key for p in load_sweep(sys.argv[1]).points()))")
    other = subprocess.run([sys.executable, "-c", code, str(tmp_path / "sweep.yaml")], cwd=ROOT, capture_output=True,
                           text=True, check=True)
    assert other.stdout.split() == [p.key for p in points]
    flipped = load_sweep(write_sweep(tmp_path, dict(reversed(list(grid.items()))), replications=3, exclude=exclude))
    assert {p.key for p in flipped.points()} == {p.key for p in points}
    scenario = spec.scenario(points[0])
    assert run_key(scenario, 0) == points[0].key != run_key(dataclasses.replace(scenario, seed=12), 0)


def test_a_changed_set_campaign_seed_or_controller_gives_new_keys(tmp_path):
    grid = {"groups.0.count": [4, 8]}
    keys = {p.key for p in load_sweep(write_sweep(tmp_path, grid)).points()}
    assert keys.isdisjoint(p.key for p in load_sweep(write_sweep(tmp_path, grid, fixed={"duration": 0.5})).points())
    text = (tmp_path / "sweep.yaml").read_text()
    (tmp_path / "sweep.yaml").write_text(text.replace("campaign_seed: 11", "campaign_seed: 12"))
    assert keys.isdisjoint(p.key for p in load_sweep(tmp_path / "sweep.yaml").points())
    (tmp_path / "mybee.py").write_text("from controllers.library.instrument import InstrumentBee\n\n\n"
                                       "class Bee(InstrumentBee):\n    pass\n")
    mine = {"groups": [{**base_scenario()["groups"][0], "count": 8,
                        "controller": {"class": "mybee:Bee", "period": 0.1}}]}
    before = {p.key for p in load_sweep(write_sweep(tmp_path, grid, base_overrides=mine)).points()}
    (tmp_path / "mybee.py").write_text((tmp_path / "mybee.py").read_text() + "    # a changed controller\n")
    assert before.isdisjoint(p.key for p in load_sweep(tmp_path / "sweep.yaml").points())


def test_a_seed_axis_is_honoured_and_shown(tmp_path):
    spec = load_sweep(write_sweep(tmp_path, {"seed": [5, 6, 7]}, replications=1))
    assert [p.seed for p in spec.points()] == [5, 6, 7]
    assert [spec.scenario(p).seed for p in spec.points()] == [5, 6, 7]
    with pytest.raises(ScenarioError, match=r"replications: a seed axis .* 2 replications would repeat the same runs"):
        load_sweep(write_sweep(tmp_path, {"seed": [5, 6]}, replications=2))


@pytest.mark.parametrize(("grid", "fixed", "message"), [
    ({"groups.0.count": [4], "groups.00.count": [8]}, None, r"grid.groups.00.count: the same key as grid.groups.0.count"),
    ({"groups.0.count": [4, 8]}, {"groups.0.count": 6}, r"set.groups.0.count: the same key as grid.groups.0.count"),
    ({"groups.0": [{"name": "a"}], "groups.0.count": [4]}, None, r"grid.groups.0.count: overlaps grid.groups.0"),
    ({"groups.0.count": [4, 4]}, None, r"grid \(groups.0.count=4\): runs the same scenario as \(groups.0.count=4\)"),
    ({"duration": [1.0, "1 s"]}, None, r"grid \(duration='1 s'\): runs the same scenario as \(duration=1.0\)"),
])
def test_keys_and_points_that_would_run_something_else_are_refused(tmp_path, grid, fixed, message):
    with pytest.raises(ScenarioError, match=message):
        load_sweep(write_sweep(tmp_path, grid, replications=1, fixed=fixed))


@pytest.mark.parametrize(("change", "message"), [
    ({"grdi": {}}, "sweep.yaml: grdi: unknown key"),
    ({"replications": 0}, "sweep.yaml: replications: expected an integer >= 1, got 0"),
    ({"output": {"dir": 5}}, "sweep.yaml: output.dir: expected a path, got 5"),
    ({"exclude": [{"seed": 3}]}, "sweep.yaml: exclude[0].seed: not a grid axis"),
    ({"grid": {"groups.0.count": [4, -1]}}, "sweep.yaml: grid (groups.0.count=-1): the base scenario rejects this point"),
    ({"timeout": float("nan")}, "sweep.yaml: timeout: expected seconds > 0, got nan"),
    ({"timeout": float("inf")}, "sweep.yaml: timeout: expected seconds > 0, got inf"),
])
def test_bad_sweep_files_are_rejected_before_running(tmp_path, change, message):
    path = write_sweep(tmp_path, {"groups.0.count": [4]})
    data = yaml.safe_load(path.read_text())
    data.update(change)
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError) as info:
        load_sweep(path)
    assert str(info.value).startswith(str(path.resolve()).rsplit("/", 1)[0] + "/" + message) or message in str(info.value)


def test_sweep_runs_resumes_and_exports(tmp_path):
    spec = load_sweep(write_sweep(tmp_path, {"groups.0.count": [4, 8]}))
    out = tmp_path / "out"
    first = run_sweep(spec, out_dir=out, jobs=2)
    assert (first.total, first.ok, first.failed, first.skipped) == (4, 4, 0, 0)
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(p.key for p in spec.points())
    assert (out / "sweep.yaml").read_text() == spec.source.read_text()
    assert json.loads((out / "manifest.json").read_text())["versions"]["numpy"]
    again = run_sweep(spec, out_dir=out, jobs=2)
    assert (again.ran, again.skipped) == (0, 4)
    assert main(["sweep", "results", str(out)]) == 0
    rows = list(csv.DictReader(open(out / "results.csv")))
    assert len(rows) == 4 and {r["status"] for r in rows} == {"ok"}
    assert sorted(int(r["groups.0.count"]) for r in rows) == [4, 4, 8, 8]
    assert all(int(r["messages_sent"]) > 0 for r in rows)
    # the same replication saw the same seed at both points
    assert len({r["seed"] for r in rows if r["replication"] == "0"}) == 1


def test_a_crashing_run_is_recorded_failed_and_the_others_complete(tmp_path):
    grid = {"groups.0.controller": [{"class": "controllers.library.instrument:InstrumentBee"},
                                    {"class": "tests.controllers.helpers:Exploder", "params": {"victim": -1}}]}
    spec = load_sweep(write_sweep(tmp_path, grid, replications=1, base_overrides={"duration": 1.5}))
    out = tmp_path / "out"
    outcome = run_sweep(spec, out_dir=out, jobs=2)
    assert (outcome.ok, outcome.failed) == (1, 1)
    (error,) = outcome.failures.values()
    assert "ZeroDivisionError: controller bug" in error
    again = run_sweep(spec, out_dir=out, jobs=2)
    assert (again.ran, again.skipped) == (0, 2)  # failed runs are not retried unless asked
    retried = run_sweep(spec, out_dir=out, jobs=2, retry_failed=True)
    assert (retried.ran, retried.failed) == (1, 1)


def test_killing_the_driver_and_resuming_gives_every_run_once(tmp_path):
    path = write_sweep(tmp_path, {"groups.0.count": [4, 5, 6, 7]}, replications=2, base_overrides={"duration": 3.0})
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "cosim.cli", "sweep", str(path), "--out", str(out), "--jobs", "1", "--quiet"]
    driver = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        done = [p for p in (out / "runs").glob("p*")] if (out / "runs").exists() else []
        if len(done) >= 2:
            break
        time.sleep(0.1)
    os.killpg(driver.pid, signal.SIGKILL)  # the driver and the run it was executing
    driver.wait()
    done_before = {p.name for p in (out / "runs").glob("p*")}
    assert 2 <= len(done_before) < 8
    resumed = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    names = sorted(p.name for p in (out / "runs").iterdir())
    assert names == sorted(p.key for p in load_sweep(path).points())  # all 8, each once, no leftovers
    assert f"{len(done_before)} already done" in resumed.stdout


def test_a_run_over_its_time_limit_is_killed_and_recorded(tmp_path):
    spec = load_sweep(write_sweep(tmp_path, {"groups.0.count": [300]}, replications=1, timeout=3,
                                  base_overrides={"duration": 10_000.0}))
    outcome = run_sweep(spec, out_dir=tmp_path / "out", jobs=1)
    (error,) = outcome.failures.values()
    assert "timed out after 3 s of wall-clock time" in error


def test_a_worker_killed_mid_run_is_retried(tmp_path):
    spec = load_sweep(write_sweep(tmp_path, {"groups.0.count": [500]}, replications=1, base_overrides={"duration": 8.0}))
    out = tmp_path / "out"
    killed = []

    def kill_the_first_child():
        found = _find_run_process(out)
        if found:
            time.sleep(0.3)
            os.kill(found[0], signal.SIGKILL)  # the run's own process, as the OOM killer would
            killed.append(found[0])

    killer = threading.Thread(target=kill_the_first_child)
    killer.start()
    outcome = run_sweep(spec, out_dir=out, jobs=1)
    killer.join()
    assert killed and (outcome.ok, outcome.failed) == (1, 0)


EXAMPLE_SWEEPS = sorted((ROOT / "configs" / "sweeps").glob("*.yaml"))


def test_the_example_sweeps_exist():
    assert EXAMPLE_SWEEPS, "configs/sweeps/ holds no sweep file (was it committed?)"


def covering(points: list) -> list:
    """Few points in which every value of every axis appears at least once (greedy)."""
    def pairs(p):
        return {(axis, json.dumps(v, sort_keys=True)) for axis, v in p.params.items()}

    left, keep = set().union(*(pairs(p) for p in points)), []
    while left:
        best = max(points, key=lambda p: len(pairs(p) & left))
        keep.append(best)
        left -= pairs(best)
    return keep or points[:1]


@pytest.mark.parametrize("path", EXAMPLE_SWEEPS, ids=lambda p: p.name)
def test_example_sweeps_run(path, tmp_path):
    """Every point of every example sweep builds, and every value of every axis runs (one
    replication, 3 simulated seconds each). The runs share this process, so ns-3 is imported once
    (a child process per run would import it every time, about 20 s each); the sweep machinery's
    child processes are the other tests' concern."""
    import cosim

    spec = load_sweep(path)
    short = dataclasses.replace(spec, replications=1, fixed={**spec.fixed, "duration": 3.0})
    points = short.points()
    for point in points:
        short.scenario(point)
    for point in covering(points):
        result = cosim.run(short.scenario(point), out_dir=tmp_path / point.key)
        assert result.status == "ok", (point.params, result.error)


def test_the_routing_sweep_is_protocol_by_pause_time_by_five():
    spec = load_sweep(ROOT / "configs" / "sweeps" / "ppsn_routing.yaml")
    points = spec.points()
    assert len(points) == 2 * 3 * 5
    assert {p.params["network.routing.protocol"] for p in points} == {"anthocnet", "aodv"}
    assert {p.params["groups.0.controller.params.pause"] for p in points} == {0, 30, 120}
    scenario = spec.scenario(points[-1])
    assert protocol_name(scenario.network.routing) == "aodv" and scenario.duration_ns == 900 * 10**9


def test_local_pool_and_dask_give_identical_results(tmp_path):
    """A Dask LocalCluster bound to 127.0.0.1 (two worker processes) runs the same sweep as the pool."""
    from distributed import Client, LocalCluster

    spec = load_sweep(write_sweep(tmp_path, {"groups.0.count": [4, 9], "network.radio.loss_probability": [0.4]}))
    local = run_sweep(spec, out_dir=tmp_path / "local", jobs=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        with Client(cluster) as client:
            remote = run_sweep(spec, out_dir=tmp_path / "dask", dask_client=client)
    assert (local.ok, remote.ok) == (4, 4)  # two points, two replications each

    def digests(directory):
        return {p.name: json.loads((p / "metrics.json").read_text())["trace_sha256"] for p in (directory / "runs").iterdir()}

    assert digests(tmp_path / "local") == digests(tmp_path / "dask")


def _find_run_process(out, timeout=60.0):
    """(pid, parent pid) of a `cosim.execution.child` process writing under `out`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        for proc in os.listdir("/proc"):
            if not proc.isdigit():
                continue
            try:
                cmdline = open(f"/proc/{proc}/cmdline", "rb").read().decode(errors="replace")
                stat = open(f"/proc/{proc}/stat").read()
            except OSError:
                continue
            if "cosim.execution.child" in cmdline and str(out) in cmdline:
                return int(proc), int(stat.rsplit(")", 1)[1].split()[1])
        time.sleep(0.05)
    return None


def test_a_dask_worker_killed_mid_run_is_retried(tmp_path):
    from distributed import Client, LocalCluster

    spec = load_sweep(write_sweep(tmp_path, {"groups.0.count": [400]}, replications=1, base_overrides={"duration": 8.0}))
    out = tmp_path / "dask"
    killed = []

    def kill_the_worker():
        found = _find_run_process(out)
        if found:
            time.sleep(0.5)
            os.kill(found[1], signal.SIGKILL)  # the Dask worker; its run process dies with it
            killed.append(found)

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster, \
            Client(cluster) as client:
        killer = threading.Thread(target=kill_the_worker)
        killer.start()
        outcome = run_sweep(spec, out_dir=out, dask_client=client)
        killer.join()
    assert killed
    assert (outcome.ok, outcome.failed) == (1, 0), outcome.failures
    assert [p.name for p in (out / "runs").iterdir()] == [spec.points()[0].key]


def test_index_rebuilds_from_run_directories_and_exports_parquet(tmp_path, capsys):
    import pyarrow.parquet as pq

    from cosim.sweep.index import SweepIndex, rebuild_index

    spec = load_sweep(write_sweep(tmp_path, {"groups.0.count": [4, 6]}, replications=1))
    out = tmp_path / "out"
    run_sweep(spec, out_dir=out, jobs=2)
    original = SweepIndex(out / "index.sqlite").rows()
    (out / "index.sqlite").unlink()
    rebuilt = rebuild_index(out)
    assert rebuilt.rows() == original and len(original) == 2
    rebuilt.close()
    assert main(["sweep", "results", str(out), "--format", "parquet", "--rebuild"]) == 0
    table = pq.read_table(out / "results.parquet").to_pydict()
    assert sorted(table["groups.0.count"]) == [4, 6] and table["status"] == ["ok", "ok"]
    assert "2 runs ->" in capsys.readouterr().out
    assert main(["sweep", "results", str(tmp_path)]) == 2  # not a sweep directory


def test_progress_line_counts_done_failed_and_remaining():
    import io
    from contextlib import redirect_stderr

    from cosim.core.progress import ProgressLine

    buf = io.StringIO()
    with redirect_stderr(buf):
        line = ProgressLine()
        line.sweep(3, 1, 6, 10, 8.0)
    text = buf.getvalue()
    assert "done 3, failed 1, remaining 6 of 10" in text and "~12 s left" in text


def test_sweep_command_line_rejects_bad_options(tmp_path, capsys):
    path = write_sweep(tmp_path, {"groups.0.count": [4]}, replications=1)
    with pytest.raises(SystemExit):
        main(["sweep", str(path), "--jobs", "0"])
    assert "--jobs: expected a whole number >= 1, got 0" in capsys.readouterr().err
    assert main(["sweep", str(path), "--dask", "tcp://127.0.0.1:9", "--out", str(tmp_path / "o")]) == 2
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in capsys.readouterr().err
    assert main(["sweep", "results"]) == 2
