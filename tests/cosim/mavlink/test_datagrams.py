"""Frames parsed one datagram at a time (cosim.mavlink.datagrams): the system and message ids of a
frame whose message our dialect does not know are read from its header."""

from __future__ import annotations

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.datagrams import Codec, frame_ids


def unknown_frame(msgid: int, sysid: int) -> bytes:
    """A MAVLink 2 frame from `sysid` carrying message `msgid` (one pymavlink's dialect lacks): a
    heartbeat's frame with its id changed, which is all a parser without the message can check."""
    sender = mav.MAVLink(None, srcSystem=sysid, srcComponent=1)
    frame = bytearray(mav.MAVLink_heartbeat_message(2, 12, 0, 0, 0, 3).pack(sender))
    frame[7:10] = msgid.to_bytes(3, "little")
    return bytes(frame)


def test_an_unknown_messages_ids_come_from_its_header():
    codec = Codec()
    known = mav.MAVLink_heartbeat_message(2, 12, 0, 0, 0, 3).pack(mav.MAVLink(None, srcSystem=4, srcComponent=1))
    msgs = codec.parse(unknown_frame(436, 7) + known)  # PX4's CURRENT_MODE, then a heartbeat
    assert [m.get_type() for m in msgs] == ["UNKNOWN_436", "HEARTBEAT"]
    assert msgs[0].get_srcSystem() == 0  # what pymavlink says: why the header is read instead
    assert [frame_ids(m) for m in msgs] == [(7, 436), (4, 0)]
    v1 = mav.MAVLink(None, srcSystem=9, srcComponent=1)
    v1.WIRE_PROTOCOL_VERSION = "1.0"
    frame = bytearray(mav.MAVLink_heartbeat_message(2, 12, 0, 0, 0, 3).pack(v1, force_mavlink1=True))
    frame[5] = 8  # LINK_NODE_STATUS, which PX4 sends and our dialect lacks
    (msg,) = Codec().parse(bytes(frame))
    assert frame_ids(msg) == (9, 8)
