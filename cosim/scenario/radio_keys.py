"""Reading a `network.radio` section: the one radio description both engines share (netstack.radio).

Before the shared description, each engine read its own keys. Those keys still work: each is
moved to its new place with a warning that names the new key (`rx_threshold_dbm` becomes
`rx_sensitivity_dbm`, `latency` becomes `fast.latency`, `rate_manager` becomes `ns3.rate_manager`,
...). Without `standard`, a radio is `generic` on the fast engine; ns-3 refuses it, naming the key (it
used to assume 802.11b without a word).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

from cosim.scenario.schema import Mapper, dump
from netstack.radio import RadioSpec
from netstack.radio.spec import GENERIC, MAC_KEYS, NoContention
from netstack.radio.standards import GENERIC_NOISE_FLOOR_NF0_DBM, STANDARDS

log = logging.getLogger(__name__)

_MOVED = {"latency": "fast.latency", "loss_probability": "fast.loss_probability", "contention": "fast.contention",
          "rate_manager": "ns3.rate_manager", "pcap": "ns3.pcap", "rx_threshold_dbm": "rx_sensitivity_dbm"}
"""Old keys with the same meaning in a new place."""


def read_radio(raw: Any, backend: str, path: str, m: Mapper) -> RadioSpec:
    """`network.radio` (or an interface's) as the shared description, old keys moved with a warning."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise m.error(path, f"expected a mapping, got {type(raw).__name__} {raw!r}")
    data = dict(raw)
    if backend == "ns3" and "contention" in data:
        raise m.error(f"{path}.contention", "ns-3 models medium access itself (802.11's DCF, 802.15.4's CSMA-CA); "
                                            f"the fast engine's contention model goes under {path}.fast.contention")
    if backend == "ns3" and "standard" not in data:
        raise m.error(f"{path}.standard", f"ns-3 models a radio standard and this radio names none; give one of "
                                          f"{', '.join(STANDARDS)} (ns-3 no longer assumes 802.11b)")
    data.setdefault("standard", GENERIC)
    standard = data["standard"]
    if not isinstance(standard, str):
        raise m.error(f"{path}.standard", f"expected one of {GENERIC}, {', '.join(STANDARDS)}, got {standard!r}")
    if standard in STANDARDS or standard == GENERIC:
        _migrate(data, standard, backend, path, m)
        _standard_contention(data, path, m)
    spec: RadioSpec = m.build(RadioSpec, data, path)
    if backend == "ns3" and spec.spec is None:
        raise m.error(f"{path}.standard", "ns-3 models radio standards and `generic` is none of them; give one of "
                                          "802.11a, 802.11b, 802.11g, 802.11n, 802.15.4 (the fast engine models it too)")
    if backend == "fast" and isinstance(spec.fast.contention, NoContention):
        plain = RadioSpec(standard=spec.standard, data_rate_mbps=spec.data_rate_mbps)  # a resolved file has them all
        for key in (k for k in MAC_KEYS if k in data and getattr(spec, k) != getattr(plain, k)):
            log.warning("%s: %s.%s acts on ns-3 only: the fast engine's per-link model (fast.contention: none) has "
                        "no medium access", m.source, path, key)
    if backend == "ns3" and spec.standard == "802.15.4" and spec.queue.lifetime_ns is not None:
        raise m.error(f"{path}.queue.lifetime", "ns-3's 802.15.4 MAC keeps a frame until it is sent or given up; "
                                                "remove queue.lifetime (queue.frames applies; the fast engine has it)")
    return spec


def _warn(m: Mapper, path: str, old: str, new: str, detail: str = "") -> None:
    log.warning("%s: %s.%s is an old key; write %s.%s%s", m.source, path, old, path, new, detail)


def _put(data: dict, dotted: str, value: Any) -> None:
    """Set `sub.key` (or `key`) in the raw section. An old key's value wins over the new key's: old
    keys come from earlier files, sweeps and `--set` lines written before the new ones existed."""
    parts = dotted.split(".")
    node = data
    for part in parts[:-1]:
        node[part] = dict(node.get(part) or {})
        node = node[part]
    node[parts[-1]] = value


def _migrate(data: dict, standard: str, backend: str, path: str, m: Mapper) -> None:
    for old, new in _MOVED.items():
        if old in data:
            _warn(m, path, old, new)
            _put(data, new, data.pop(old))
    _lift_engine_keys(data, path, m)
    for key in ("bit_rate_bps", "noise_floor_dbm", "preamble_min_rssi_dbm", "rx_sensitivity_dbm"):
        if key in data:  # numbers now: YAML reads 1.0e6 as a string
            data[key] = m.value(float, data[key], f"{path}.{key}")
    if "bit_rate_bps" in data:
        _warn(m, path, "bit_rate_bps", "data_rate_mbps", " (in Mbit/s)")
        if not 1.0 <= data["bit_rate_bps"] <= 1e11:
            raise m.error(f"{path}.bit_rate_bps", f"must be within 1..1e11 bit/s (1 bit/s to 100 Gbit/s), got "
                                                  f"{data['bit_rate_bps']:g}; write data_rate_mbps (in Mbit/s) instead")
        _put(data, "data_rate_mbps", data.pop("bit_rate_bps") / 1e6)
    if "data_mode" in data:
        _put(data, "data_rate_mbps", _mode_rate(data.pop("data_mode"), standard, path, m))
        _warn(m, path, "data_mode", "data_rate_mbps", " (in Mbit/s)")
    if "noise_floor_dbm" in data:
        value = data.pop("noise_floor_dbm")
        _warn(m, path, "noise_floor_dbm", "noise_figure_db", " (the noise floor is thermal noise plus the figure)")
        _put(data, "noise_figure_db", _figure_for(value, standard))
    if "preamble_min_rssi_dbm" in data:  # ns-3's effective threshold: the higher of the two it had
        value = data.pop("preamble_min_rssi_dbm")
        _warn(m, path, "preamble_min_rssi_dbm", "rx_sensitivity_dbm", " (the weakest frame received)")
        data["rx_sensitivity_dbm"] = max(value, data.pop("rx_sensitivity_dbm", -101.0))


_ENGINE_MAC = {("ns3", "preamble_threshold_db"): "preamble_threshold_db",
               ("fast.contention", "preamble_threshold_db"): "preamble_threshold_db",
               ("fast.contention", "retry_limit"): "retry_limit", ("fast.contention", "queue_frames"): "queue.frames",
               ("fast.contention", "max_queue_delay"): "queue.lifetime"}
"""Engine sub-keys the one description now covers, read by both engines: (section, key) -> new key."""


def _lift_engine_keys(data: dict, path: str, m: Mapper) -> None:
    """Engine sub-keys the description now has, moved to it with a warning; two engines' values that
    disagree are refused, as a radio has one of each."""
    moved: dict[str, tuple[str, Any]] = {}
    for (section, key), new in _ENGINE_MAC.items():
        node: Any = data
        for part in section.split("."):
            node = node.get(part) if isinstance(node, Mapping) else None
        if not isinstance(node, Mapping) or key not in node:
            continue
        value = node[key]
        _put(data, section, {k: v for k, v in node.items() if k != key})
        _warn(m, path, f"{section}.{key}", new, " (read by both engines)")
        if new in moved and moved[new][1] != value:
            raise m.error(f"{path}.{section}.{key}", f"{value!r} disagrees with {path}.{moved[new][0]}: "
                                                     f"{moved[new][1]!r}; a radio has one {new}")
        moved[new] = (f"{section}.{key}", value)
        _put(data, new, value)


def _mode_rate(mode: Any, standard: str, path: str, m: Mapper) -> Any:
    std = STANDARDS.get(standard)
    if std is None or standard == "802.15.4":
        raise m.error(f"{path}.data_mode", f"{standard} has one rate and no ns-3 data modes; remove data_mode")
    for rate in std.rates:
        if rate.ns3_mode == mode:
            return rate.mbps
    raise m.error(f"{path}.data_mode", f"unknown data_mode {mode!r} for {standard}; expected one of: "
                                       f"{', '.join(r.ns3_mode for r in std.rates)} (write data_rate_mbps instead)")


def _figure_for(noise_floor: float, standard: str) -> float:
    """The noise figure that gives this noise floor (to the last bit, where a float allows)."""
    std = STANDARDS.get(standard)
    base = std.noise_floor_nf0_dbm if std is not None else GENERIC_NOISE_FLOOR_NF0_DBM
    figure = noise_floor - base
    for _ in range(8):
        if base + figure == noise_floor:
            break
        figure = math.nextafter(figure, math.inf if base + figure < noise_floor else -math.inf)
    return figure


def _standard_contention(data: dict, path: str, m: Mapper) -> None:
    """A `fast.contention: {model: csma, ...}` mapping starts from the standard's own timing."""
    fast = data.get("fast")
    contention = fast.get("contention") if isinstance(fast, Mapping) else None
    if not (isinstance(contention, Mapping) and contention.get("model") == "csma"):
        return
    std = STANDARDS.get(data["standard"])
    if std is None:
        return
    rate = data.get("data_rate_mbps", std.rates[0].mbps)
    try:
        base = RadioSpec(standard=data["standard"], data_rate_mbps=rate).standard_csma()
    except (TypeError, ValueError) as exc:
        raise m.error(f"{path}.data_rate_mbps", str(exc)) from None
    data["fast"] = {**fast, "contention": {**dump(base), **contention}}
