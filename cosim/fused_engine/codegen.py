"""The fused engine's loop compiled with a scenario's classes: its source (cosim.fused_engine.loop) followed by
dispatchers, a branch per program, group or controller class, that call their callbacks inlined.
The module is generated and cached like a compiled program's (controllers.compiled.codegen)."""

from __future__ import annotations

import functools
from pathlib import Path
from types import ModuleType

from controllers.compiled.codegen import CONTEXT_IMPORTS, chain, class_ref, context, function, load_generated, sources


def _dispatcher(head: str, selector: str, cases: list[tuple[object, list[str]]], first: tuple[str, ...] = (),
                last: str | None = None, inline: bool = False) -> str:
    """A dispatcher of the fused loop: `first`, then the case whose value `selector` has, then `last`
    (controllers.compiled.codegen.function)."""
    return function(head, first, selector, cases, last if last is not None or cases else "pass", inline)


_PROGRAM_ARGS = "p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist"
_CONTEXT = context(now="t / 1e9", t_ns="t", me="i", params="params[{q}][0]", gens="gens", gi="i", io="io[i]", rec_i="rec_i",
                   rec_v="rec_v", rec_n="rec_n")


def _program_dispatchers(n: int) -> str:
    """`_call_loop`, `_call_rx`, `_call_tx` and `_call_txs`: a kilolib callback of program class p,
    inlined, with its context (controllers.compiled.core.Ctl, a program's: core.NO_CMD and the rest)."""
    calls = (("loop", "_loop_{q}(states[{q}][slot], k)", None),
             ("rx", "_rx_{q}(states[{q}][slot], k, msg[0], dist[0])", None),
             ("tx", "return bool(_tx_{q}(states[{q}][slot], k, msg[0]))", "return False"),
             ("txs", "_txs_{q}(states[{q}][slot], k)", None))
    return "".join(_dispatcher(f"_call_{name}({_PROGRAM_ARGS})", "p",
                               [(q, [_CONTEXT.format(q=q), call.format(q=q)]) for q in range(n)], last=last, inline=True)
                   for name, call, last in calls)


@functools.cache
def fused_module(classes: tuple[type, ...], template: Path, groups: tuple[type, ...] = (),
                 controllers: tuple[type, ...] = ()) -> ModuleType:
    """The fused engine's loop (`template`'s source) compiled with the dispatchers to the program
    `classes`, to the compiled `groups` (a class for each group, in the loop's group order) and to the
    compiled `controllers` (a class for each of the loop's controller parts). Once per process for
    each set of classes (reading and hashing the sources costs a run ~2 ms)."""
    head = ["", "", "# -- generated: the scenario's programs, groups and controllers --",
            CONTEXT_IMPORTS]
    for q, cls in enumerate(classes):
        head.append(f"{class_ref(cls)}_P{q}")
        head.append(f"_loop_{q}, _rx_{q}, _tx_{q}, _txs_{q} = (njit(inline='always')(_P{q}.callbacks[c].py_func) for c in "
                    "('loop', 'message_rx', 'message_tx', 'message_tx_success'))")
    for g, cls in enumerate(groups):
        head.append(f"{class_ref(cls)}_G{g}")
        head.append(f"_gtick_{g} = njit(inline='always')(_G{g}.callbacks['tick'].py_func)")
    for q, cls in enumerate(controllers):
        head.append(f"{class_ref(cls)}_C{q}")
        head += [f"_c{q}_{name} = njit(inline='always')(_C{q}.callbacks[{name!r}].py_func)" for name in cls.callbacks]
    n = len(classes)
    text = (template.read_text() + "\n".join(head) + "\n"
            + _program_dispatchers(n) + _group_dispatchers(len(groups)) + _controller_dispatchers(controllers))
    deps = [*sources([*classes, *groups, *controllers]), template.read_text(), Path(__file__).read_text()]
    return load_generated("fused", text, deps)


_GROUP_CONTEXT = context(now="t / 1e9", t_ns="t", me="gp.first", alive="bodies.alive[gp.first:gp.first + gp.n]",
                         params="gp.params[0]", gens="gp.gens", io="gp.io[0]", pos="bodies.pos", heading="bodies.ahead",
                         **{f: f"gp.{f}[:m]" for f in ("in_dst", "in_src", "in_t", "in_len", "in_payload")},
                         **{f: f"gp.{f}" for f in ("cmd", "out_src", "out_dst", "out_payload", "out_n")},
                         rec_i="progs.rec_i", rec_v="progs.rec_v", rec_n="progs.rec_n")


def _group_dispatchers(n: int) -> str:
    """`_call_group` (a group's step with its context, then its commands applied), `_call_resume` (the
    commands' rest, after a pause for room) and `_call_take` (a reception into a group's inbox), each a
    branch per group."""
    parts = ("bodies, radio, flights, netlog, progs, compiled_groups = "
             "borrow((bodies, radio, flights, netlog, progs, compiled_groups))")
    cursor = ["compiled_groups.cursor[0] = g", "compiled_groups.cursor[1] = t", "compiled_groups.cursor[2] = 0",
              "compiled_groups.cursor[3] = 0"]
    applied = ["if compiled_groups.cursor[0] < 0:", "    gp.in_n[0] = 0"]
    step = [(g, [f"gp = compiled_groups.parts[{g}]", "m = gp.in_n[0]", _GROUP_CONTEXT, f"_gtick_{g}(gp.state, k)", "no_motors(k)",
                 *cursor, "apply(bodies, radio, flights, netlog, gp, gp.first, t, compiled_groups.cursor)", *applied])
            for g in range(n)]
    resume = [(g, [f"gp = compiled_groups.parts[{g}]",
                   "apply(bodies, radio, flights, netlog, gp, gp.first, compiled_groups.cursor[1], compiled_groups.cursor)",
                   *applied]) for g in range(n)]
    take_ = [(g, [f"return take(compiled_groups.parts[{g}], i, src, t, size, frame)"]) for g in range(n)]
    borrowed = "compiled_groups, frame = borrow((compiled_groups, frame))"
    return (_dispatcher("_call_group(g, bodies, radio, flights, netlog, progs, compiled_groups, t)", "g", step, (parts,))
            + _dispatcher("_call_resume(g, bodies, radio, flights, netlog, progs, compiled_groups)", "g", resume, (parts,))
            + _dispatcher("_call_take(g, compiled_groups, i, src, t, size, frame)", "g", take_, (borrowed,),
                          last="return True"))


_CTL_BUFFERS = ("cmd", "out_src", "out_dst", "out_payload", "out_n", "timers", "timer_n")
_CTL = ["cp = ctls.parts[{q}]",
        context(now="t / 1e9", t_ns="t", me="i", params="cp.params[0]", gens="progs.gens", gi="i", io="progs.io[i]",
                pos="bodies.pos", heading="bodies.ahead", **{f: f"cp.{f}" for f in _CTL_BUFFERS},
                rec_i="progs.rec_i", rec_v="progs.rec_v", rec_n="progs.rec_n"),
        "st = cp.states[ctls.slot[i]]"]


def _controller_dispatchers(classes: tuple[type, ...]) -> str:
    """`_call_ctl` (a controller's step, number -1, or its timer callback by number) and `_call_ctl_rx`
    (its on_message), each with the call's context and its commands applied, a branch per class."""
    parts = "bodies, radio, flights, netlog, progs, ctls = borrow((bodies, radio, flights, netlog, progs, ctls))"
    step = []
    rx = []
    for q, cls in enumerate(classes):
        ctx = [line.format(q=q) for line in _CTL]
        calls = [("-1", "step")] if "step" in cls.callbacks else []
        calls += [(str(number), name) for number, name in cls.timer_names.items()]
        step.append((q, [*ctx, *chain("number", [(number, [f"_c{q}_{name}(st, k)"]) for number, name in calls], ""),
                         "no_motors(k)", "apply_ctl(bodies, radio, flights, netlog, ctls, cp, i, t)"]))
        if "on_message" in cls.callbacks:
            rx.append((q, [*ctx, "m = Msg(src, t / 1e9, size, inbound(cp, size, frame), rssi)", f"_c{q}_on_message(st, k, m)",
                           "no_motors(k)", "apply_ctl(bodies, radio, flights, netlog, ctls, cp, i, t)"]))
    return (_dispatcher("_call_ctl(q, number, bodies, radio, flights, netlog, progs, ctls, i, t)", "q", step, (parts,))
            + _dispatcher("_call_ctl_rx(q, bodies, radio, flights, netlog, progs, ctls, i, src, t, size, frame, rssi)", "q", rx,
                          (parts, "frame = borrow(frame)")))
