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
    params = sim.population.controllers[0].params
    assert params.table == {"a": 1} and params.order == [3, 1]


def test_a_type_the_scenario_cannot_fill_names_the_key():
    with pytest.raises(ScenarioError, match=r"groups\[0\]\.controller\.params\.when: its declared type 'complex' is not one"):
        cosim.from_dict(_with({"when": 1}), source="s.yaml")


def _controller(cls: str, params: dict) -> dict:
    data = base_scenario()
    data["groups"][0]["controller"] = {"class": cls, "params": params}
    return data


def test_params_for_a_class_without_any_say_where_params_are_declared():
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(_controller("controllers:Controller", {"speed": 2}), source="s.yaml")
    assert "groups[0].controller.params: Controller takes no params, got speed: remove them, or declare them as " \
           "fields of a frozen dataclass Controller.Params" in str(err.value)


def test_an_unknown_param_lists_the_class_params_and_names_the_base_to_subclass():
    """A kilolib program's params are KiloParams: the message says to subclass it."""
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(_controller("controllers.case_studies.kilolib_programs:Mover", {"speeed": 2}), source="s.yaml")
    text = str(err.value)
    assert "groups[0].controller.params.speeed: Mover has no param 'speeed'; its params: distance_noise_mm, forward_speed" in text
    assert "declare it as a field of a frozen dataclass Mover.Params (a subclass of KiloParams)" in text
