"""A controller's Params may declare bare dict and list fields; a type the scenario cannot fill is
an error naming the key, not a traceback."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

import cosim
from controllers.api.controller import Controller
from cosim.errors import ScenarioError
from tests.conftest import base_scenario


class Tables(Controller):
    @dataclass
    class Params:
        table: dict = field(default_factory=dict)
        order: list = field(default_factory=list)
        when: complex = 0j


def _with(params: dict) -> dict:
    data = base_scenario()
    data["groups"][0]["controller"] = {"class": "tests.cosim.scenario.test_params_types:Tables", "params": params}
    return data


def test_bare_dict_and_list_fields_are_filled():
    sim = cosim.build(cosim.from_dict(_with({"table": {"a": 1}, "order": [3, 1]}), source="s.yaml"))
    params = sim.controllers[0].params
    assert params.table == {"a": 1} and params.order == [3, 1]


def test_a_type_the_scenario_cannot_fill_names_the_key():
    with pytest.raises(ScenarioError, match=r"groups\[0\]\.controller\.params\.when: its declared type 'complex' is not one"):
        cosim.from_dict(_with({"when": 1}), source="s.yaml")
