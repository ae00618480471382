"""`cosim report` on real run and sweep directories: the figures exist, the HTML stands alone, and
the numbers in it are the run's.

Routed run (AntHocNet on the fast radio, 40 m range, a wall beside the chain):

    0 ---- 1 ---- 2 ---- 3 ---- 4        (30 m apart; 0 sends CBR to 4, 4 to 0)
                 |wall|
"""

import base64
import math
import re

import pytest
import yaml

import cosim
from cosim.cli import main
from cosim.report import write_report
from cosim.report.sweep_figures import mean_ci
from cosim.sweep.runner import run_sweep
from cosim.sweep.spec import load_sweep
from tests.conftest import base_scenario

PNG = b"\x89PNG\r\n\x1a\n"


def routed_scenario() -> dict:
    return {
        "name": "chain", "seed": 4, "duration": 20.0, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"},
        "network": {"backend": "fast", "radio": {"pathloss": {"model": "unit_disk", "range_m": 40.0}},
                    "routing": {"protocol": "anthocnet"}},
        "world": {"arena_lower": [-20, -20, 0], "arena_upper": [140, 40, 10],
                  "obstacles": [{"type": "wall", "start": [55, 8], "end": [65, 8], "height": 2}]},
        "traffic": [{"rate": 4.0, "size": 64, "pairs": [[0, 4], [4, 0]], "start": 2.0}],
        "output": {"trace": {"positions_every": 0.5}},
        "groups": [
            {"name": "motes", "count": 5, "layout": {"type": "grid", "origin": [0, 0, 1], "spacing": 30.0, "columns": 5},
             "controller": {"class": "controllers.library.station:Station"},
             "battery": {"capacity_j": 50.0, "electronics_w": 0.5}},
            {"name": "walker", "count": 1, "layout": {"type": "list", "points": [[60, 20, 1]]},
             "controller": {"class": "tests.controllers.helpers:Strider"}},
        ],
    }


@pytest.fixture(scope="module")
def routed_run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report") / "run"
    result = cosim.run(cosim.from_dict(routed_scenario()), out_dir=directory)
    assert result.status == "ok", result.error
    return result


def test_run_report_has_every_figure_and_stands_alone(routed_run):
    page = write_report(routed_run.directory)
    out = page.parent
    html = page.read_text()
    for name in ("trajectories", "received_per_node", "delivery_over_time", "end_to_end_delay", "route_discovery",
                 "neighbours", "energy", "records"):
        png = (out / f"{name}.png").read_bytes()
        assert png.startswith(PNG), name
        assert f'id="{name}"' in html, name
    # self-contained: every image is inline data, no scripts, no links to fetch
    assert not re.search(r"https?://", html) and "<script" not in html and "<link" not in html
    images = re.findall(r'src="([^"]*)"', html)
    assert len(images) == 8 and all(src.startswith("data:image/png;base64,") for src in images)
    assert base64.b64decode(images[0].split(",", 1)[1]) == (out / "trajectories.png").read_bytes()


def test_run_report_numbers_are_the_runs(routed_run):
    html = write_report(routed_run.directory).read_text()
    r = routed_run.metrics["routing"]
    rows = re.search(r"end-to-end delay \(ms\)</td><td>(\d+)</td><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>", html)
    assert rows is not None and int(rows.group(1)) == r["data_delivered"] > 0
    assert float(rows.group(2)) == pytest.approx(r["delay_median_s"] * 1e3, rel=1e-5)
    counts = r["received_per_node"]
    assert f"most {max(counts)} (node {counts.index(max(counts))})" in html
    assert "<td>routing.delivery_ratio</td>" in html


def test_sweep_report_plots_each_metric_against_the_swept_parameter(tmp_path, capsys):
    base = base_scenario(duration=1.0)
    base["groups"][0]["count"] = 8
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base))
    sweep = {"base": "base.yaml", "campaign_seed": 5, "replications": 3,
             "grid": {"network.radio.loss_probability": [0.0, 0.5, 0.9]}}
    (tmp_path / "sweep.yaml").write_text(yaml.safe_dump(sweep))
    run_sweep(load_sweep(tmp_path / "sweep.yaml"), out_dir=tmp_path / "out", jobs=2)
    assert main(["report", str(tmp_path / "out"), "--metric", "messages_delivered", "--metric", "mean_neighbors"]) == 0
    out = tmp_path / "out" / "report"
    html = (out / "index.html").read_text()
    assert (out / "sweep_messages_delivered.png").read_bytes().startswith(PNG)
    assert "swept: network.radio.loss_probability" in html and "9 ok" in html
    assert main(["report", str(tmp_path / "out"), "--metric", "mesages_delivered"]) == 2  # a typo is named
    err = capsys.readouterr().err
    assert "no run has the metric 'mesages_delivered'" in err and "messages_delivered" in err
    # the points table: more loss, fewer deliveries, each mean with its confidence interval
    cells = re.findall(r"<tr><td>(0\.0|0\.5|0\.9)</td><td>3/3</td><td>([\d.]+) \[([\d.]+), [\d.]+\] \(n = 3\)</td>", html)
    means = [float(m) for _, m, _ in cells]
    assert len(means) == 3 and means[0] > means[1] > means[2]


def test_confidence_interval_uses_students_t():
    mean, half, n = mean_ci([1.0, 2.0, 3.0])
    assert (mean, n) == (2.0, 3) and half == pytest.approx(4.303 / math.sqrt(3))
    assert math.isnan(mean_ci([5.0])[1]) and mean_ci([])[2] == 0


def test_report_of_something_else_is_a_clear_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "neither a run directory" in capsys.readouterr().err
