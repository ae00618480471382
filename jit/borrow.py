"""`borrow`: arrays (and typed lists) without reference counting, for the fused engine's hot loops.

numba counts references to every array a compiled function names, with an atomic operation on each
increment and decrement; a loop body that inlines a helper taking ten arrays pays twenty of them per
event. Inside a call that holds its arguments for its whole duration, the counts protect nothing: a
borrowed array (no owner recorded) is the same data with counting skipped.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _lower(context, builder, ty, val):
    if isinstance(ty, (types.Array, types.ListType)):  # the same struct with no owner (meminfo), no Python parent
        model = context.data_model_manager[ty]
        for field in ("meminfo", "parent") if isinstance(ty, types.Array) else ("meminfo",):
            k = model.get_field_position(field)
            val = builder.insert_value(val, cgutils.get_null_value(val.type.elements[k]), k)
        return val
    if isinstance(ty, types.BaseTuple):
        out = cgutils.get_null_value(context.get_value_type(ty))
        for k, t in enumerate(ty):
            out = builder.insert_value(out, _lower(context, builder, t, builder.extract_value(val, k)), k)
        return out
    context.nrt.incref(builder, ty, val)  # anything else: a new reference, as a call's result must be
    return val


@intrinsic
def borrow(typingctx, x):
    """`x` (an array, or a tuple holding arrays) with its arrays borrowed: valid only while the caller
    still holds `x`, so only for use within one compiled call; never return or store the result."""

    def codegen(context, builder, sig, args):
        return _lower(context, builder, sig.args[0], args[0])

    return x(x), codegen
