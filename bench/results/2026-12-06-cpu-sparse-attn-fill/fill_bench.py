"""Filling jitk.sparse_attn's prepared jitk_arg array, per call: reading each
slot's kind back (before f33f756) against the prepared (slot, field) pairs.

  JITK_LIBRARY=build/lib/c_api/libjitk_c.so PYTHONPATH=python \
    python3 bench/results/2026-12-06-cpu-sparse-attn-fill/fill_bench.py
"""
import timeit

from jitk import _capi
from jitk._torch_ops import _sparse_attn_prepared, _sparse_attn_values

pointers = {"q": 1 << 20, "k": 1 << 21, "v": 1 << 22, "o": 1 << 23, "lse": 0,
            "kv_num_blocks": 1 << 24, "kv_indices": 1 << 25, "full_kv_num_blocks": 1 << 26,
            "full_kv_indices": 1 << 27}
values = _sparse_attn_values(pointers, {w: (1, 2, 3) for w in "qkvo"}, 1, 1, 0, 0, None)
array, setters = _sparse_attn_prepared(True, False)


def by_kind():
    for slot, value in zip(array, values):
        if slot.kind == _capi.ARG_POINTER:
            slot.pointer = value or None
        elif slot.kind == _capi.ARG_INT:
            slot.integer = value
        else:
            slot.real = value


def prepared():
    for (slot, field), value in zip(setters, values):
        setattr(slot, field, value)


n = 100000
for f in (by_kind, prepared) * 3:
    print("{:9s} {:.2f} us per call".format(f.__name__, timeit.timeit(f, number=n) / n * 1e6))
