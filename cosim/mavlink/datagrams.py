"""MAVLink 2 codec for UDP datagrams, shared by vehicles and the adapter: one datagram in, its
messages out, with nothing left over to corrupt the next one; optional MAVLink 2 signing."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass

from pymavlink.dialects.v20 import ardupilotmega as apm
from pymavlink.dialects.v20 import common as mav

_EPOCH_2015 = 1420070400  # MAVLink signing timestamps count 10 us units since 2015-01-01


@dataclass
class ParseStats:
    """Messages returned, and datagrams or frames that were dropped (bad CRC, garbage, bad signature)."""

    messages: int = 0
    malformed: int = 0
    rejected_signature: int = 0


def signing_key(key: str | bytes) -> bytes:
    """A 32-byte MAVLink 2 secret key from 64 hex digits or from a passphrase (SHA-256, as MAVProxy does)."""
    if isinstance(key, bytes):
        if len(key) != 32:
            raise ValueError(f"a MAVLink signing key has 32 bytes, got {len(key)}")
        return key
    text = key.strip()
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raw = b""
    if len(raw) == 32:
        return raw
    if not text:
        raise ValueError("the MAVLink signing key is empty")
    return hashlib.sha256(text.encode()).digest()


def key_from_env(name: str) -> bytes:
    """The signing key held in environment variable `name` (keys do not belong in scenario files)."""
    value = os.environ.get(name)
    if not value:
        raise ValueError(f"environment variable {name} (the MAVLink signing key) is not set")
    return signing_key(value)


def frame_ids(msg) -> tuple[int, int]:
    """(system id, message id) of a parsed frame. A message its dialect does not know (PX4 sends newer
    ones, CURRENT_MODE say) comes back from pymavlink with neither set; they are read from its header."""
    if msg.get_msgId() >= 0:
        return msg.get_srcSystem(), msg.get_msgId()
    frame = msg.get_msgbuf()
    if frame[0] == mav.PROTOCOL_MARKER_V2:
        return frame[5], int.from_bytes(frame[7:10], "little")
    return frame[3], frame[5]


class Codec:
    """pymavlink's MAVLink 2 encoder/parser for one system/component id, fed one datagram at a time.

    With a signing key every outgoing frame is signed and unsigned or badly signed incoming frames
    are rejected (counted in `stats.rejected_signature`)."""

    def __init__(self, src_system: int = 255, src_component: int = 190, key: bytes | None = None,
                 link_id: int = 0) -> None:
        # ArduPilot's dialect (a superset of common): its EKF_STATUS_REPORT tells when a position is real
        self.mav = apm.MAVLink(None, srcSystem=src_system, srcComponent=src_component)
        self.mav.robust_parsing = True
        self.stats = ParseStats()
        if key is not None:
            s = self.mav.signing
            s.secret_key = signing_key(key)
            s.sign_outgoing = True
            s.link_id = link_id
            s.timestamp = int((max(time.time(), _EPOCH_2015) - _EPOCH_2015) * 100_000)

    @property
    def signed(self) -> bool:
        return self.mav.signing.secret_key is not None

    def pack(self, msg) -> bytes:
        return msg.pack(self.mav)

    def parse(self, data: bytes) -> list:
        """The valid messages in one datagram; anything else is counted and dropped."""
        try:
            msgs = self.mav.parse_buffer(data) or []
        except Exception:  # pymavlink raises on some corrupt frames even with robust parsing
            self.stats.malformed += 1
            msgs = []
        if self.mav.buf_index < len(self.mav.buf):  # a datagram's leftover never joins the next
            self.stats.malformed += 1
            self._reset()
        out = []
        for m in msgs:
            if m.get_type() == "BAD_DATA":
                if "signature" in str(getattr(m, "reason", "")).lower():
                    self.stats.rejected_signature += 1
                else:
                    self.stats.malformed += 1
            else:
                out.append(m)
        self.stats.messages += len(out)
        return out

    def _reset(self) -> None:
        p = self.mav
        p.buf = bytearray()
        p.buf_index = 0
        p.expected_length = mav.HEADER_LEN_V1 + 2
        p.have_prefix_error = False
