"""summary.txt: a run's outcome and main figures for humans."""

from __future__ import annotations

from collections.abc import Sequence

from cosim.scenario.specs import Scenario


def summary_text(scenario: Scenario, m: dict, status: str, error: str | None, warnings: Sequence[str] = ()) -> str:
    lines = [f"scenario   {scenario.name} ({scenario.source}), seed {scenario.seed}, status {status}"]
    if m:  # a run that died before producing metrics has only its status and error
        lines += [
            f"robots     {m.get('nodes')}  simulated {m.get('simulated_s', 0):.3f} s in {m.get('wall_s', 0):.2f} s wall"
            f"  (real-time factor {m.get('real_time_factor', 0):.2f}x"
            + (f", {m['compile_s']:.2f} s compiling kernels left out)" if m.get("compile_s", 0) > 0 else ")"),
            f"messages   sent {m.get('messages_sent', 0)}, received {m.get('messages_delivered', 0)} times "
            f"(a broadcast counts once per receiver), dropped {m.get('messages_dropped', 0)}",
            f"neighbours {m.get('mean_neighbors', 0):.2f} on average (heard within the neighbour timeout)",
            ]
        lines += [f"slower     {part}" for part in m.get("slower_paths", [])]
        rt = m.get("realtime")
        if rt:
            lines.append(f"real time  paced at {rt['speed']}x the wall clock: {rt['overruns']} overruns "
                         f"(worst {rt['worst_late_s'] * 1e3:.1f} ms late)")
        served = {k: v["failsafes"] for k, v in m.get("mavlink", {}).items() if k.startswith("served") and v["failsafes"]}
        for name, taken in served.items():
            lines.append(f"failsafe   {name} (a served vehicle) by itself: {'; '.join(taken)}")
        gcs = m.get("mavlink", {}).get("ground_station")
        if gcs:
            lines.append(f"mavlink    over the radio: {gcs['frames_into_network']} frames from the ground station "
                         f"({gcs['frames_lost_to_vehicles']} not delivered by the end), {gcs['frames_delivered']} back to it "
                         f"({gcs['frames_lost_from_vehicles']} not delivered)")
        r = m.get("routing")
        if r:
            lines.append(
                f"routing    {r['protocol']}: delivered {r['data_delivered']} of {r['data_sent']} packets "
                f"(ratio {r['delivery_ratio']:.3f}), delay median {r['delay_median_s'] * 1e3:.2f} ms, "
                f"{r['control_frames']} control frames")
    lines += [f"warning    {w}" for w in warnings]
    if error:
        lines.append(f"error      {error}")
    return "\n".join(lines) + "\n"
