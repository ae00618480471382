"""`cosim sweep --dask local[:N]`: a scheduler, its dashboard and N workers on loopback only, for
one sweep, stopped after it."""

from __future__ import annotations

import csv
import subprocess
import sys
import textwrap

import pytest

from cosim.cli import main
from cosim.sweep.dask_local import local_workers
from tests.conftest import ROOT
from tests.cosim.sweep.test_sweep import write_sweep

PROBE = textwrap.dedent("""
    import psutil
    from cosim.sweep.dask_local import local_cluster

    if __name__ == "__main__":
        with local_cluster(2, announce=print) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            me = psutil.Process()
            for p in [me, *me.children(recursive=True)]:
                for c in p.net_connections(kind="inet"):
                    if c.status == psutil.CONN_LISTEN:
                        print("listening", c.laddr.ip, c.laddr.port)
""")


def test_everything_the_local_cluster_starts_listens_on_loopback_only(tmp_path):
    (tmp_path / "probe.py").write_text(PROBE)
    proc = subprocess.run([sys.executable, str(tmp_path / "probe.py")], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    listening = [ln.split()[1:] for ln in proc.stdout.splitlines() if ln.startswith("listening")]
    assert len(listening) >= 4  # scheduler, dashboard, two workers (and their nannies)
    assert {ip for ip, _ in listening} == {"127.0.0.1"}
    assert "dashboard http://127.0.0.1:" in proc.stdout


def test_a_sweep_on_a_local_cluster_runs_every_point(tmp_path, capsys):
    spec = write_sweep(tmp_path, {"groups.0.count": [4, 8]}, replications=1)
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--dask", "local:2", "--quiet"]) == 0
    assert "Dask on 127.0.0.1: 2 worker(s), dashboard http://127.0.0.1:" in capsys.readouterr().err
    main(["sweep", "results", str(tmp_path / "out")])
    rows = list(csv.DictReader(open(tmp_path / "out" / "results.csv")))
    assert sorted((r["groups.0.count"], r["status"]) for r in rows) == [("4", "ok"), ("8", "ok")]


def test_the_local_spelling_is_checked():
    assert local_workers("local:3") == 3 and local_workers("local") >= 1 and local_workers("tcp://h:8786") is None
    with pytest.raises(ValueError, match="expected local or local:N"):
        local_workers("local:zero")
