"""Bad values for every key of a small scenario, unknown and missing keys, and bad command-line
overrides: each must be refused naming the key and the file."""

from __future__ import annotations

from benchmarks.hostile.base import scenario_text
from benchmarks.hostile.case import Case

FAMILY = "values"
NAN, INF = float("nan"), float("inf")

BAD = {
    "duration": ["abc", -1, "-5 ms", "1 parsec", NAN, INF, [1], {"a": 1}, True, "1e999999 s"],
    "positive": ["abc", NAN, INF, -1, [1], True, {"a": 1}],
    "number": ["abc", NAN, INF, -INF, [1], True],
    "int": ["ten", 1.5, NAN, [1], True, {"a": 1}],
    "enum": [123, "bogus", "", [1], None],
    "vec3": [[1, 2], [1, 2, 3, 4], "abc", ["a", "b", "c"], [NAN, 0, 0], 5, [INF, 0, 0]],
    "bool": ["yes please", 3, [True], 0.5],
    "class": ["nomodule_xyz:X", "controllers.library.instrument:Nope", "no_colon_here", "builtins:dict", "", 5,
              "os:system", "controllers.library.instrument:"],
    "mapping": [5, "abc", [1, 2], True],
    "probability": [-0.1, 1.5, NAN, "x", INF],
    "name": [5, "", [1], None, {"a": 1}],
}

KEYS = {
    "seed": ("int", [-1, "1e3"]),
    "duration": ("duration", []),
    "quantum": ("duration", ["0 s"]),
    "physics": ("mapping", []),
    "physics.backend": ("enum", []),
    "physics.dt": ("duration", ["0 s"]),
    "network": ("mapping", []),
    "network.backend": ("enum", []),
    "network.radio": ("mapping", []),
    "network.radio.standard": ("enum", ["802.11zz"]),
    "network.radio.tx_power_dbm": ("number", [100, -1000]),
    "network.radio.rx_sensitivity_dbm": ("number", [50, -1e6]),
    "network.radio.pathloss.model": ("enum", []),
    "network.radio.pathloss.range_m": ("positive", [0]),
    "network.radio.fast.latency": ("duration", []),
    "network.radio.fast.contention.model": ("enum", []),
    "network.radio.fast.loss_probability": ("probability", []),
    "world": ("mapping", []),
    "world.arena_lower": ("vec3", [[60, 60, 30]]),
    "world.arena_upper": ("vec3", [[-60, -60, -1], [1e9, 1e9, 1e9]]),
    "groups": ("mapping", [{}]),
    "groups.0": ("mapping", []),
    "groups.0.name": ("name", []),
    "groups.0.count": ("int", [-1, 10**12, 10**7]),
    "groups.0.layout": ("mapping", []),
    "groups.0.layout.type": ("enum", []),
    "groups.0.layout.center": ("vec3", [[1e9, 0, 0]]),
    "groups.0.layout.radius": ("positive", []),
    "groups.0.robot": ("mapping", []),
    "groups.0.robot.radius": ("positive", [0, 1e6]),
    "groups.0.robot.mass": ("positive", [0]),
    "groups.0.robot.max_speed": ("positive", [1e6]),
    "groups.0.sensors": ("mapping", []),
    "groups.0.sensors.compass.noise_std": ("number", [-1]),
    "groups.0.controller": ("mapping", []),
    "groups.0.controller.class": ("class", []),
    "groups.0.controller.period": ("duration", ["0 s"]),
    "groups.0.controller.params": ("mapping", []),
    "groups.0.controller.params.max_speed": ("number", [-1]),
    "groups.0.controller.params.sensor_period": ("number", [0, -1]),
    "groups.0.controller.params.message_bytes": ("int", [0, 100000]),
    "output": ("mapping", []),
    "output.dir": ("name", []),
    "output.trace": ("mapping", []),
    "output.trace.positions_every": ("duration", ["0 s", "1 ns"]),
    "output.trace.network": ("bool", []),
    "output.trace.records": ("bool", []),
}

UNKNOWN_AT = ("", "physics.", "network.", "network.radio.", "network.radio.pathloss.", "network.radio.fast.", "world.",
              "groups.0.", "groups.0.layout.", "groups.0.robot.", "groups.0.sensors.", "groups.0.controller.",
              "groups.0.controller.params.", "output.", "output.trace.")

MISSING = ("name", "duration", "groups", "physics", "network", "groups.0.count", "groups.0.controller",
           "groups.0.controller.class", "network.radio", "groups.0.name", "world")

CLI = {
    "set-bad-number": (["--set", "groups.0.count=abc"], ("count",)),
    "set-unknown-key": (["--set", "nonexistent.key=1"], ("nonexistent",)),
    "set-index-out-of-range": (["--set", "groups.5.count=1"], ("groups",)),
    "set-empty-key": (["--set", "=5"], ("--set",)),
    "set-no-equals": (["--set", "noequals"], ("--set",)),
    "seed-word": (["--seed", "abc"], ("seed",)),
    "seed-negative": (["--seed", "-1"], ("seed",)),
    "duration-negative": (["--duration", "-1"], ("duration",)),
    "duration-word": (["--duration", "abc"], ("duration",)),
    "duration-overflow": (["--duration", "1e999"], ("duration",)),
    "duration-nan": (["--duration", "nan"], ("duration",)),
    "set-nan-speed": (["--set", "groups.0.robot.max_speed=nan"], ("max_speed",)),
}


def _case(name: str, text: str, mention: tuple[str, ...], expect: str = "refuse", extra: tuple[str, ...] = ()) -> Case:
    return Case(FAMILY, name, ("cosim", "run", "s.yaml", "--out", "run", "--quiet", *extra), expect,
                mention=mention, files={"s.yaml": text}, run_dir="run", timeout_s=120)


def _label(value: object) -> str:
    return repr(value).replace(" ", "")[:40]


def cases() -> list[Case]:
    out = []
    for key, (kind, extra) in KEYS.items():
        leaf = next(p for p in reversed(key.split(".")) if not p.isdigit())
        for value in BAD[kind] + extra:
            out.append(_case(f"{key}={_label(value)}", scenario_text({key: value}), (leaf, "s.yaml")))
    for where in UNKNOWN_AT:
        out.append(_case(f"unknown-key-in-{where or 'top'}", scenario_text({f"{where}bogus_key": 1}), ("bogus_key",)))
    for key in MISSING:
        leaf = key.split(".")[-1]
        out.append(_case(f"missing-{key}", scenario_text(remove=(key,)), (leaf,), expect="either"))
    out += _cross()
    for name, (args, mention) in CLI.items():
        out.append(_case(f"cli-{name}", scenario_text(), mention, extra=tuple(args)))
    return out


def _cross() -> list[Case]:
    return [
        _case("arena-inverted", scenario_text({"world.arena_lower": [10, 10, 10], "world.arena_upper": [0, 0, 0]}),
              ("arena",)),
        _case("layout-outside-arena", scenario_text({"groups.0.layout.center": [500, 0, 1]}), ("arena", "layout")),
        _case("quantum-longer-than-run", scenario_text({"quantum": "10 s"}), ("quantum",)),
        _case("dt-longer-than-quantum", scenario_text({"physics.dt": "1 s"}), ("dt",), expect="either"),
        _case("duplicate-group-names", _two_groups(), ("bees",)),
        _case("yaml-syntax-error", scenario_text() + "groups: [unclosed\n", ("s.yaml",)),
        _case("top-level-list", "- 1\n- 2\n", ("s.yaml",)),
        _case("top-level-scalar", "hello\n", ("s.yaml",)),
        _case("empty-file", "", ("s.yaml",)),
        _case("tabs-indentation", scenario_text().replace("  count: 10", "\tcount: 10"), ("s.yaml",)),
        _case("duplicate-key", scenario_text() + "seed: 2\n", ("seed",)),
        _case("group-null", scenario_text({"groups.0": None}), ("groups",)),
    ]


def _two_groups() -> str:
    from benchmarks.hostile.base import dump, variant

    data = variant()
    data["groups"].append(dict(data["groups"][0]))
    return dump(data)
