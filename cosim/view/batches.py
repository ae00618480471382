"""Rows of several frames per entity, sent to Rerun as one column per component.

A `log` call costs Rerun 30-70 µs whatever its size, so the painter queues each frame's arrays
and sends every few frames with `send_columns`: one call per entity for the whole batch.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import rerun as rr

TIMELINE = "sim_time"
SEGMENTS = pa.list_(pa.field("item", pa.list_(pa.field("item", pa.float32(), nullable=False), 3), nullable=False))
"""Rerun's LineStrip3D column type: built here in one go for many two-point strips, which its
per-strip Python conversion would take about three times as long to do."""


def segments(pairs: np.ndarray) -> pa.Array:
    """Two-point line strips from (K, 2, 3) end points, as one Arrow column."""
    flat = np.ascontiguousarray(pairs, dtype=np.float32).reshape(-1)
    points = pa.FixedSizeListArray.from_arrays(pa.array(flat, type=pa.float32()), type=SEGMENTS.value_type)
    return pa.ListArray.from_arrays(pa.array(np.arange(0, 2 * len(pairs) + 1, 2, dtype=np.int32)), points, type=SEGMENTS)


class ColumnBatches:
    """Queued frames per entity: `add` one frame's arrays, `flush` sends them all."""

    def __init__(self, rec: rr.RecordingStream) -> None:
        self.rec = rec
        self._pending: dict[str, tuple[type, list[int], dict[str, list[np.ndarray]], list[int]]] = {}

    def add(self, entity: str, archetype: type, t_ns: int, **fields: np.ndarray) -> None:
        """One frame of `entity`: each field holds one row per instance (`strips`: (K, 2, 3) segment ends)."""
        _, times, columns, lengths = self._pending.setdefault(entity, (archetype, [], {k: [] for k in fields}, []))
        times.append(t_ns)
        lengths.append(len(next(iter(fields.values()))))
        for k, v in fields.items():
            columns[k].append(v)

    def flush(self) -> None:
        for entity, (archetype, times, columns, lengths) in self._pending.items():
            if not times:
                continue
            joined = {k: segments(np.concatenate(v)) if k == "strips" else np.concatenate(v) for k, v in columns.items()}
            self.rec.send_columns(entity, indexes=[rr.TimeColumn(TIMELINE, duration=np.array(times, dtype="timedelta64[ns]"))],
                                  columns=archetype.columns(**joined).partition(lengths))
            times.clear()
            lengths.clear()
            for v in columns.values():
                v.clear()
