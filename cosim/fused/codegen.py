"""The fused engine's loop compiled with a scenario's classes: its source (cosim.fused.loop) followed by
dispatchers, a branch per program, group or controller class, that call their callbacks inlined.
The module is generated and cached like a compiled program's (controllers.compiled.codegen)."""

from __future__ import annotations

import functools
from pathlib import Path
from types import ModuleType

from controllers.compiled.codegen import class_ref, load_generated, sources


def _dispatcher(name: str, call: str, n: int, ret: str = "") -> str:
    args = "p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist"
    lines = ["", "", "@njit(cache=True, inline=\"always\")", f"def _call_{name}({args}):"]
    for q in range(n):
        k = f"Kilo(i, t, io[i], gens, params[{q}][0], rec_i, rec_v, rec_n)"
        lines.append(f"    {'if' if q == 0 else 'elif'} p == {q}:")
        lines.append(f"        {ret}{call.format(q=q, k=k)}")
    if ret:
        lines.append("    return False")
    elif not n:
        lines.append("    pass")
    return "\n".join(lines) + "\n"


@functools.cache
def fused_module(classes: tuple[type, ...], template: Path, groups: tuple[type, ...] = (),
                 controllers: tuple[type, ...] = ()) -> ModuleType:
    """The fused engine's loop (`template`'s source) compiled with the dispatchers to the program
    `classes`, to the compiled `groups` (a class for each group, in the loop's group order) and to the
    compiled `controllers` (a class for each of the loop's controller parts). Once per process for
    each set of classes (reading and hashing the sources costs a run ~2 ms)."""
    head = ["", "", "# -- generated: the scenario's programs, groups and controllers --",
            "from controllers.compiled.kilolib import Kilo", "from controllers.compiled.group import Tick, NO_MOTION, NO_MESSAGE",
            "from controllers.compiled.core import Ctl, Msg"]
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
            + _dispatcher("loop", "_loop_{q}(states[{q}][slot], {k})", n)
            + _dispatcher("rx", "_rx_{q}(states[{q}][slot], {k}, msg[0], dist[0])", n)
            + _dispatcher("tx", "bool(_tx_{q}(states[{q}][slot], {k}, msg[0]))", n, ret="return ")
            + _dispatcher("txs", "_txs_{q}(states[{q}][slot], {k})", n) + _group_dispatchers(len(groups))
            + _controller_dispatchers(controllers))
    deps = [*sources([*classes, *groups, *controllers]), template.read_text(), Path(__file__).read_text()]
    return load_generated("fused", text, deps)


def _group_dispatchers(n: int) -> str:
    """`_call_group` (a group's step with its context, then its commands applied), `_call_resume` (the
    commands' rest, after a pause for room) and `_call_take` (a reception into a group's inbox), each a
    branch per group."""
    step = ["", "", "@njit(cache=True)", "def _call_group(g, W, R, F, L, P, G, t):",
            "    W, R, F, L, P, G = borrow((W, R, F, L, P, G))"]
    resume = ["", "", "@njit(cache=True)", "def _call_resume(g, W, R, F, L, P, G):",
              "    W, R, F, L, P, G = borrow((W, R, F, L, P, G))"]
    take_ = ["", "", "@njit(cache=True)", "def _call_take(g, G, i, src, t, size, frame):", "    G, frame = borrow((G, frame))"]
    for g in range(n):
        branch = f"    {'if' if g == 0 else 'elif'} g == {g}:"
        step += [branch, f"        gp = G.parts[{g}]", "        m = gp.in_n[0]",
                 "        k = Tick(t / 1e9, gp.params[0], gp.first, gp.ids, W.alive[gp.first:gp.first + gp.n], W.pos, W.ahead,",
                 "                 gp.in_dst[:m], gp.in_src[:m], gp.in_t[:m], gp.in_len[:m], gp.in_payload[:m], gp.motion,",
                 "                 gp.cmd, gp.out, gp.payload, gp.rec, gp.rec_n)",
                 "        gp.motion[:] = NO_MOTION", "        gp.out[:] = NO_MESSAGE", f"        _gtick_{g}(gp.state, k)",
                 "        G.cursor[0], G.cursor[1], G.cursor[2], G.cursor[3] = g, t, 0, 0",
                 "        apply_group(W, R, F, L, P, gp, t, G.cursor)"]
        resume += [branch, f"        apply_group(W, R, F, L, P, G.parts[{g}], G.cursor[1], G.cursor)"]
        take_ += [branch, f"        return take(G.parts[{g}], i, src, t, size, frame)"]
    resume.append("    pass")
    take_.append("    return True")
    return "\n".join(step + resume + take_) + "\n"


_CTL = ("        cp = C.parts[{q}]\n"
        "        k = Ctl(t / 1e9, i, cp.params[0], P.gens, i, W.pos, W.ahead, cp.cmd, cp.out_dst, cp.out_payload, "
        "cp.out_n, cp.rec, cp.rec_n, cp.timers, cp.timer_n)\n"
        "        st = cp.states[C.slot[i]]")


def _controller_dispatchers(classes: tuple[type, ...]) -> str:
    """`_call_ctl` (a controller's step, number -1, or its timer callback by number) and `_call_ctl_rx`
    (its on_message), each with the call's context and its commands applied, a branch per class."""
    borrowed = "    W, R, F, L, P, C = borrow((W, R, F, L, P, C))"
    step = ["", "", "@njit(cache=True)", "def _call_ctl(q, number, W, R, F, L, P, C, i, t):", borrowed]
    rx = ["", "", "@njit(cache=True)", "def _call_ctl_rx(q, W, R, F, L, P, C, i, src, t, size, frame, rssi):", borrowed,
          "    frame = borrow(frame)"]
    for q, cls in enumerate(classes):
        branch = f"    {'if' if q == 0 else 'elif'} q == {q}:"
        calls = [("-1", "step")] if "step" in cls.callbacks else []
        calls += [(str(number), name) for number, name in cls.timer_names.items()]
        step += [branch, _CTL.format(q=q)]
        for j, (number, name) in enumerate(calls):
            step += [f"        {'if' if j == 0 else 'elif'} number == {number}:", f"            _c{q}_{name}(st, k)"]
        step.append("        apply_ctl(W, R, F, L, P, C, cp, i, t)")
        if "on_message" in cls.callbacks:
            rx += [branch, _CTL.format(q=q), "        m = Msg(src, t / 1e9, size, inbound(cp, size, frame), rssi)",
                   f"        _c{q}_on_message(st, k, m)", "        apply_ctl(W, R, F, L, P, C, cp, i, t)"]
    for lines in (step, rx):
        if not any(line.startswith("    if q") for line in lines):
            lines.append("    pass")
    return "\n".join(step + rx) + "\n"
