"""A trace's text column held as codes into a vocabulary: record names repeat a few words over hundreds
of thousands of rows, which as Python strings cost more to buffer, hash and write than the run that
made them. The file and the digest are the same as for the plain strings."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Coded:
    """Text rows as `codes` (int32) into `vocab`; a later chunk's vocabulary may extend an earlier one."""

    codes: np.ndarray
    vocab: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.codes)

    def strings(self) -> list[str]:
        return np.array(self.vocab, dtype=object)[self.codes].tolist() if len(self.codes) else []

    def arrow(self):
        """The column as Arrow strings (decoded in Arrow: the file holds plain text, as for a list)."""
        import pyarrow as pa

        return pa.DictionaryArray.from_arrays(pa.array(self.codes, pa.int32()), pa.array(self.vocab, pa.string())).cast(
            pa.string())


def joined(parts: list) -> Coded | list[str]:
    """Chunks of one text column as one: Coded if every chunk is (the longest vocabulary serves all,
    since vocabularies only grow), else a list of strings."""
    if parts and all(isinstance(p, Coded) for p in parts):
        vocab = max((p.vocab for p in parts), key=len)
        return Coded(np.concatenate([p.codes for p in parts]), vocab)
    return strings(parts)


def strings(parts: list) -> list[str]:
    """Chunks of one text column, coded or not, as one list of strings."""
    return [s for p in parts for s in (p.strings() if isinstance(p, Coded) else p)]


def text_bytes(col: Coded | list[str]) -> bytes:
    """What the trace digest hashes for a text column: each string's UTF-8 followed by a NUL."""
    if isinstance(col, Coded):
        ends = [(s + "\x00").encode() for s in col.vocab]
        return b"".join(np.array(ends, dtype=object)[col.codes].tolist()) if len(col.codes) else b""
    return "".join(s + "\x00" for s in col).encode()
