"""A run's trace digest recomputed from its Parquet files, to check a finished run on disk against
the `trace_sha256` it recorded (cosim.core.recorder hashes the same columns the same way)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from cosim.core.recorder import SCHEMAS


def trace_digest(trace_dir: Path) -> str:
    """SHA-256 over every non-empty trace table's column digests; raises OSError or ValueError
    (pyarrow's ArrowInvalid) for a file that cannot be read."""
    import pyarrow.parquet as pq

    h = hashlib.sha256()
    for name in sorted(SCHEMAS):
        path = trace_dir / f"{name}.parquet"
        if not path.is_file():
            continue
        table = pq.read_table(path)
        if table.num_rows == 0:
            continue
        lines = []
        for column, kind in SCHEMAS[name].items():
            values = table.column(column)
            if kind == "str":
                data = "".join(s + "\x00" for s in values.to_pylist()).encode()
            elif isinstance(kind, tuple):
                code = {label: k for k, label in enumerate(kind)}
                data = np.array([code[s] for s in values.to_pylist()], dtype=np.int8).tobytes()
            else:
                data = np.ascontiguousarray(values.to_numpy(), dtype=kind).tobytes()
            lines.append(f"{name}.{column}:{hashlib.sha256(data).hexdigest()}")
        h.update("\n".join(lines).encode())
    return h.hexdigest()
