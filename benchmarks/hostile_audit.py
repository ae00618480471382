"""The hostile audit of issue 53: run every case in benchmarks/hostile as a user would (a command in
a fresh folder) and print one JSON line per case, then the counts.

    python benchmarks/hostile_audit.py                  # all families, 2 at a time
    python benchmarks/hostile_audit.py --family sweeps  # one family
    python benchmarks/hostile_audit.py --jsonl out.jsonl

The exit status is 1 when the goal is missed: any case lost, hung or showed a traceback, or more
than 1% ran nonsense."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.hostile import controllers, inputs, run_dirs, scenario_values, signals, surfaces, sweeps
from benchmarks.hostile.case import OUTCOMES, Case, Result, digest_files, judge

FAMILIES = {m.FAMILY: m for m in (scenario_values, inputs, controllers, signals, run_dirs, sweeps, surfaces)}
BIN = Path(sys.executable).parent


def _command(argv: tuple[str, ...]) -> list[str]:
    head, *rest = argv
    if head == "python":
        return [sys.executable, *rest]
    return [str(BIN / head) if (BIN / head).exists() else head, *rest]


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _send(proc: subprocess.Popen, sig: signal.Signals, target: str) -> None:
    try:
        if target == "group":
            os.killpg(proc.pid, sig)
        elif target == "child":
            for pid in _children(proc.pid):
                os.kill(pid, sig)
        else:
            proc.send_signal(sig)
    except ProcessLookupError:
        pass


def _leftovers(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    time.sleep(2.0)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def run_case(case: Case, root: Path) -> dict:
    folder = root / f"{case.family}-{case.name}".replace("/", "_")
    folder.mkdir(parents=True)
    for name, content in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    if case.prepare is not None:
        case.prepare(folder)
    before = digest_files(folder, case.guard)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]), COLUMNS="200",
               PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    t0 = time.perf_counter()
    proc = subprocess.Popen(_command(case.argv), cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    timers = [threading.Timer(s.after_s, _send, (proc, s.signum, s.target)) for s in case.signals]
    for t in timers:
        t.start()
    try:
        out, _ = proc.communicate(timeout=case.timeout_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        timed_out = True
    for t in timers:
        t.cancel()
    wall = time.perf_counter() - t0
    result = Result(proc.returncode, out.decode(errors="replace"), wall, timed_out)
    verdict = judge(case, folder, result, before)
    if not timed_out and _leftovers(proc.pid):
        verdict = type(verdict)("hang", "processes of the command were still running after it ended")
    row = {"family": case.family, "case": case.name, "outcome": verdict.outcome, "why": verdict.why,
           "exit": proc.returncode, "wall_s": round(wall, 2)}
    if verdict.outcome != "handled":
        row["output"] = result.output[-4000:]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES))
    parser.add_argument("--case", help="only cases whose name contains this")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--jsonl", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the case folders")
    args = parser.parse_args()
    # A shell's background job starts with SIGINT and SIGQUIT ignored, and the commands would inherit
    # that: handled signals are reset to their defaults across exec, so each command gets its own.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGQUIT, lambda *_: None)
    cases = [c for f in (args.family or sorted(FAMILIES)) for c in FAMILIES[f].cases()]
    if args.case:
        cases = [c for c in cases if args.case in c.name]
    names = [f"{c.family}/{c.name}" for c in cases]
    if len(set(names)) != len(names):
        raise SystemExit(f"duplicate case names: {sorted({n for n in names if names.count(n) > 1})}")
    root = Path(tempfile.mkdtemp(prefix="hostile-"))
    rows = []
    sink = args.jsonl.open("w") if args.jsonl else None
    with ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(lambda c: run_case(c, root), cases):
            rows.append(row)
            line = json.dumps(row)
            print(line, flush=True)
            if sink:
                sink.write(line + "\n")
                sink.flush()
    counts = {k: sum(r["outcome"] == k for r in rows) for k in OUTCOMES}
    summary = {"workload": "hostile audit", "cases": len(rows), **counts,
               "nonsense_share": round(counts["nonsense"] / max(len(rows), 1), 4)}
    print(json.dumps(summary))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"case folders: {root}", file=sys.stderr)
    missed = counts["lost"] or counts["hang"] or counts["traceback"] or summary["nonsense_share"] > 0.01
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
