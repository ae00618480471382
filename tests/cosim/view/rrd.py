"""Read a recording back through Rerun's own reader: per entity, its frame times and instance counts."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from rerun.chunk import RrdReader

MAIN = ("positions", "strips", "vectors", "scalars", "text", "half_sizes", "lengths")
"""The component that counts an entity's instances, by archetype (styling-only rows have none)."""


def contents(path: Path) -> dict[str, list[tuple[int | None, int]]]:
    """entity path -> sorted (sim_time ns or None when static, instances in the row's first component)."""
    out: dict[str, list[tuple[int | None, int]]] = defaultdict(list)
    for chunk in RrdReader(str(path)).stream():
        batch = chunk.to_record_batch()
        names = [n for n in batch.schema.names if n.split(":")[-1] in MAIN]
        if not names:
            continue
        timed = "sim_time" in batch.schema.names
        times = batch.column("sim_time").cast("int64").to_pylist() if timed else [None] * batch.num_rows
        data = batch.column(names[0]).to_pylist()
        for t, row in zip(times, data):
            out[chunk.entity_path].append((t, 0 if row is None else len(row)))
    return {k: sorted(v, key=lambda tv: (tv[0] is not None, tv[0] or 0)) for k, v in out.items()}
