"""A controller's `params` checked against the names its class declares, before their values are:
a name it does not declare is refused saying where params are declared."""

from __future__ import annotations

import dataclasses

from controllers.api.base import ControllerBase
from cosim.scenario.schema import Mapper, yaml_key


def check_param_names(cls: type, params: object, path: str, m: Mapper) -> None:
    """Params the class does not declare: refused saying where params are declared (a class with
    none, or a kilolib program, whose Params subclass KiloParams)."""
    if not isinstance(params, dict) or not params:
        return
    names = sorted(yaml_key(f.name) for f in dataclasses.fields(cls.Params) if f.init)
    unknown = [str(k) for k in params if str(k) not in names]
    if not unknown:
        return
    where = f"a frozen dataclass {cls.__name__}.Params"
    if cls.Params is not ControllerBase.Params:
        where += f" (a subclass of {cls.Params.__qualname__})"
    if not names:
        raise m.error(path, f"{cls.__name__} takes no params, got {', '.join(unknown)}: remove them, or declare them "
                            f"as fields of {where}")
    raise m.error(f"{path}.{unknown[0]}", f"{cls.__name__} has no param {unknown[0]!r}; its params: {', '.join(names)}. "
                                          f"To add one, declare it as a field of {where}")
