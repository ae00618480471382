"""A stream on an ipc:// path: its socket file never replaces anything, and goes at the end.
(libzmq on its own deletes whatever is at an ipc path before it binds.)"""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

import cosim
from tests.conftest import ROOT, base_scenario


def _run(tmp_path, url: str, out: str = "run", **stream):
    data = base_scenario(duration=1.0, output={"trace": {"positions_every": 0.5}, "stream": {"url": url, **stream}})
    return cosim.run(cosim.from_dict(data, source="test.yaml"), out_dir=tmp_path / out)


def _occupy(where, kind: str) -> None:
    target = where.parent / "thesis.tex"
    target.write_text("chapter 1")
    if kind == "file":
        where.write_text("precious")
    elif kind == "symlink":
        where.symlink_to(target)
    elif kind == "dangling symlink":
        where.symlink_to(where.parent / "nothing")
    elif kind == "folder":
        where.mkdir()
        (where / "data.csv").write_text("1,2")
    elif kind == "fifo":
        os.mkfifo(where)


@pytest.mark.parametrize("kind", ["file", "symlink", "dangling symlink", "folder", "fifo"])
def test_anything_at_the_path_is_left_alone_and_the_run_refused(tmp_path, kind):
    where = tmp_path / "s.sock"
    _occupy(where, kind)
    before = os.lstat(where)
    result = _run(tmp_path, f"ipc://{where}")
    assert result.status == "failed"
    assert f"output.stream.url: ipc://{where}: something is there already" in result.error
    after = os.lstat(where)
    assert (after.st_ino, after.st_mode, after.st_size) == (before.st_ino, before.st_mode, before.st_size)
    assert (tmp_path / "thesis.tex").read_text() == "chapter 1"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".cs")] == []  # no private folder left


def test_a_subscriber_reads_the_stream_at_the_path_and_the_socket_file_goes_at_the_end(tmp_path):
    where = tmp_path / "s.sock"
    url = f"ipc://{where}"
    sub = subprocess.Popen([sys.executable, str(ROOT / "docs" / "stream_subscriber.py"), url, "--json", "--timeout", "30"],
                           stdout=subprocess.PIPE, text=True)
    try:
        result = _run(tmp_path, url, every=10, wait_for=1, wait_s=30)
        out, _ = sub.communicate(timeout=30)
    finally:
        sub.kill()
    assert result.status == "ok" and result.metrics["stream"]["published"] == 12  # 11 states over 1 s and the end
    assert out.count('"cosim.v1.end"') == 1
    assert not os.path.lexists(where)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_a_relative_path_is_the_working_folders_and_goes_at_the_end(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _run(tmp_path, "ipc://here.sock")
    assert result.status == "ok" and result.metrics["stream"]["url"] == "ipc://here.sock"
    assert not os.path.lexists(tmp_path / "here.sock")


def test_a_socket_file_replaced_during_the_run_is_not_removed(tmp_path):
    from cosim.stream.relay import ForwarderLink
    from cosim.stream.spec import StreamSpec

    where = tmp_path / "s.sock"
    link = ForwarderLink(StreamSpec(url=f"ipc://{where}"))
    link.start()
    assert stat.S_ISSOCK(os.lstat(where).st_mode)
    os.unlink(where)
    where.write_text("someone else's")
    link.close()
    assert where.read_text() == "someone else's"


def test_paths_a_socket_cannot_have_are_refused_naming_the_key(tmp_path):
    long = tmp_path / ("x" * 120)
    result = _run(tmp_path, f"ipc://{long}")
    assert result.status == "failed" and "a socket's path holds at most 107 bytes" in result.error
    result = _run(tmp_path, f"ipc://{tmp_path / 'no' / 'such' / 's.sock'}", out="run2")
    assert result.status == "failed" and f"{tmp_path / 'no' / 'such'} is not an existing folder" in result.error
