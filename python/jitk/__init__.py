"""jitk from Python: run-time compiled GPU kernels on torch tensors.

A thin ctypes layer over libjitk_c.so (the C ABI in include/jitk/jitk_c.h),
so it works with any Python 3 and needs no build step of its own.

    import torch, jitk
    x = torch.randn(1 << 20, device="cuda", dtype=torch.float16)
    y = torch.randn_like(x)
    out = jitk.scaled_add(x, y, 0.5)                 # x + 0.5 * y
    jitk.parity(out, torch.add(x, y, alpha=0.5))     # prints cosine / max_abs / rel_err

Without a GPU, kernels still compile for any architecture:

    k = jitk.compile_kernel("scaled_add", "f16;n=1048576", "sm_90")
    print(k.config, k.resources)
"""

from ._capi import JitkError, LibraryNotFoundError, library_path
from ._core import (CompiledKernel, DeviceArray, Kernel, Pointer, compile_kernel, discover,
                    dtype_name, get_kernel, kernel_names, parse_config, shape_key, synchronize,
                    version)
from ._parity import parity
from ._torch_ops import scaled_add, sparse_attn

__all__ = [
    "CompiledKernel", "DeviceArray", "JitkError", "Kernel", "LibraryNotFoundError", "Pointer",
    "available", "compile_kernel", "discover", "dtype_name", "get_kernel", "kernel_names",
    "library_path", "parity", "parse_config", "scaled_add", "shape_key", "sparse_attn",
    "synchronize", "version",
]


def available():
    """True when libjitk_c.so can be loaded."""
    from . import _capi
    try:
        _capi.lib()
        return True
    except LibraryNotFoundError:
        return False
