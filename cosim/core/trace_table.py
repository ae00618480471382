"""One trace table: rows buffered as numpy chunks, each column hashed as it is written (SHA-256 over
consecutive chunks is SHA-256 over the column), and a Parquet writer when the run streams its trace."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from cosim.core.coded_text import Coded, joined, strings, text_bytes
from cosim.core.interruption import uninterrupted


class TraceTable:
    """One trace table: buffered chunks, per-column digests, and a Parquet writer when streaming."""

    def __init__(self, name: str, chunk_rows: int, schema: dict[str, Any]) -> None:
        self.name = name
        self.schema = schema
        self.chunk_rows = chunk_rows
        self.path: Path | None = None
        self._buffer: list[dict[str, Any]] = []  # tables with text: the chunks as given
        self._numeric = all(kind != "str" for kind in schema.values())
        self._cols: dict[str, np.ndarray] = {}  # tables of numbers only: the rows written in place, grown as needed
        self._buffered = 0
        self._kept: list[dict[str, Any]] = []  # flushed chunks, kept only when not streaming
        self._hash = {c: hashlib.sha256() for c in self.schema}
        self._writer = None
        self.rows = 0

    def append(self, chunk: dict[str, Any], n: int | None = None) -> None:
        """n rows (len(chunk["t_ns"]) if not given): one value per column of the schema, an array of n
        or, in a table of numbers only, a scalar for all n."""
        n = len(chunk["t_ns"]) if n is None else n
        if n == 0:
            return
        if self._numeric:
            self._put(chunk, n)
        else:
            self._buffer.append(chunk)
        self._buffered += n
        if self._buffered >= self.chunk_rows:
            self.flush()

    def _put(self, chunk: dict[str, Any], n: int) -> None:
        """Write n rows after the buffered ones, each column cast to its type as numpy assigns."""
        a = self._buffered
        b = self._buffered + n
        if not self._cols or b > len(self._cols["t_ns"]):
            size = max(b, 2 * a, 1024)
            grown = {c: np.empty(size, np.int8 if isinstance(kind, tuple) else kind) for c, kind in self.schema.items()}
            for c, col in self._cols.items():
                grown[c][:a] = col[:a]
            self._cols = grown
        for c, col in self._cols.items():
            col[a:b] = chunk[c]

    def flush(self) -> None:
        if not self._buffered:
            return
        if self._numeric:
            self._flushed({c: col[:self._buffered].copy() for c, col in self._cols.items()})
            return
        cols: dict[str, Any] = {}
        for c, kind in self.schema.items():
            parts = [ch[c] for ch in self._buffer]
            if kind == "str":
                col = joined(parts)
            else:
                dtype = np.int8 if isinstance(kind, tuple) else kind
                col = np.concatenate([np.asarray(p, dtype=dtype) for p in parts])
            cols[c] = col
        self._buffer = []
        self._flushed(cols)

    def _flushed(self, cols: dict[str, Any]) -> None:
        """The buffered rows, as one column each: written (or kept), then counted and hashed, in one
        stretch no Ctrl-C cuts in two, so the counts are always what the file holds."""
        with uninterrupted:
            if self.path is None:
                self._kept.append(cols)
            else:
                self._write(cols)
            for c, kind in self.schema.items():
                if kind == "str":
                    self._hash[c].update(text_bytes(cols[c]))
                else:
                    self._hash[c].update(np.ascontiguousarray(cols[c]).tobytes())
            self.rows += self._buffered
            self._buffered = 0

    def _write(self, cols: dict[str, Any]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        arrays = {}
        for c, kind in self.schema.items():
            if isinstance(kind, tuple):
                arrays[c] = pa.DictionaryArray.from_arrays(pa.array(cols[c], pa.int8()), pa.array(kind))
            elif isinstance(cols[c], Coded):
                arrays[c] = cols[c].arrow()
            else:
                arrays[c] = pa.array(cols[c])
        table = pa.table(arrays)
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            categorical = [c for c, kind in self.schema.items() if isinstance(kind, tuple)]  # others: plain encoding
            self._writer = pq.ParquetWriter(self.path, table.schema, use_dictionary=categorical or False)
        self._writer.write_table(table)

    def close(self) -> None:
        self.flush()
        if self._writer is not None:
            with uninterrupted:
                self._writer.close()
                self._writer = None

    def columns(self) -> dict[str, Any]:
        self.flush()
        out = {}
        for c, kind in self.schema.items():
            parts = [k[c] for k in self._kept]
            if kind == "str":
                out[c] = strings(parts)
            else:
                out[c] = np.concatenate(parts) if parts else np.zeros(0, np.int8 if isinstance(kind, tuple) else kind)
        return out

    def digest_lines(self) -> list[str]:
        return [f"{self.name}.{c}:{h.hexdigest()}" for c, h in self._hash.items()]
