"""Old module names of controllers that moved, so class strings in existing scenario files keep
working (`cosim.scenario.classes` logs a deprecation warning once per old name)."""

ALIASES: dict[str, str] = {
    "controllers.base": "controllers",
    **{f"controllers.{m}": f"controllers.library.{m}" for m in (
        "avoider", "follow_leader", "instrument", "probes", "random_walk", "random_waypoint", "relay", "station",
        "waypoints")},
    **{f"controllers.{m}": f"controllers.case_studies.{m}" for m in (
        "baraka", "barrier", "flock_coverage", "kilobot", "rf_gradient")},
}
