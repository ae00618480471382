"""The records not yet written, in the order they were made: single records as tuples (cheapest to
add one at a time), batches (a group's or the fused engine's) as arrays, names as codes into one
growing vocabulary (cosim.core.coded_text)."""

from __future__ import annotations

import numpy as np

from cosim.core.coded_text import Coded


class RecordBuffer:
    """Rows of (t_ns, node, name, value) for the trace's records table."""

    def __init__(self) -> None:
        self.vocab: list[str] = []
        self._code: dict[str, int] = {}
        self._single: list[tuple[int, int, str, float]] = []
        self._pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.rows = 0

    def code(self, name: str) -> int:
        """The name's code (a new one the first time it is seen)."""
        c = self._code.get(name)
        if c is None:
            c = self._code[name] = len(self.vocab)
            self.vocab.append(name)
        return c

    def add(self, t_ns: int, node: int, name: str, value: float) -> None:
        self._single.append((t_ns, node, name, value))
        self.rows += 1

    def add_rows(self, t_ns: np.ndarray, nodes: np.ndarray, codes: np.ndarray, values: np.ndarray) -> None:
        """Rows given as arrays of one length (codes from `code`), after every row added so far; copied
        (a caller may write its arrays again)."""
        self._settle()
        self._pieces.append((np.array(t_ns, np.int64), np.array(nodes, np.int32), np.array(codes, np.int32),
                             np.array(values, np.float64)))
        self.rows += len(codes)

    def _settle(self) -> None:
        """The single records so far as one piece of arrays."""
        if not self._single:
            return
        t, node, name, value = zip(*self._single)
        codes = np.array([self.code(s) for s in name], np.int32)
        self._pieces.append((np.array(t, np.int64), np.array(node, np.int32), codes, np.array(value, np.float64)))
        self._single = []

    def take(self) -> dict[str, object] | None:
        """Every row so far as the records table's columns (None if there are none); the buffer empties."""
        self._settle()
        if not self._pieces:
            return None
        cols = [np.concatenate(c) if len(c) > 1 else c[0] for c in zip(*self._pieces)]
        self._pieces = []
        self.rows = 0
        return {"t_ns": cols[0], "node": cols[1], "name": Coded(cols[2], tuple(self.vocab)), "value": cols[3]}
