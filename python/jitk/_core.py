"""jitk's kernels through the C ABI, on raw device pointers (no torch needed)."""

import ctypes
import json
import threading

from . import _capi


# --- shapes, configs, arguments ---------------------------------------------

_DTYPE_NAMES = {
    "f32": "f32", "float32": "f32", "float": "f32",
    "f16": "f16", "float16": "f16", "half": "f16",
    "bf16": "bf16", "bfloat16": "bf16",
}


def dtype_name(dtype):
    """'f32' / 'f16' / 'bf16' for a dtype given as text or a torch dtype."""
    key = str(dtype)
    if key.startswith("torch."):
        key = key[len("torch."):]
    try:
        return _DTYPE_NAMES[key]
    except KeyError:
        raise TypeError("unsupported dtype {}: jitk kernels take float32, float16 or "
                        "bfloat16".format(dtype))


def shape_key(dtype, dims):
    """The canonical shape key, e.g. shape_key('float16', {'n': 1024}) == 'f16;n=1024'."""
    parts = [dtype_name(dtype)]
    for name in sorted(dims):
        value = dims[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("shape dimension {!r} must be an int, got {!r}".format(name, value))
        parts.append("{}={}".format(name, value))
    return ";".join(parts)


def _shape_text(shape):
    if isinstance(shape, str):
        return shape
    if isinstance(shape, dict):
        dims = dict(shape)
        if "dtype" not in dims:
            raise TypeError("a shape dict needs a 'dtype' entry, e.g. {'dtype': 'f16', 'n': 1024}")
        dtype = dims.pop("dtype")
        return shape_key(dtype, dims)
    raise TypeError("shape must be a key string like 'f16;n=1024' or a dict, got {}".format(
        type(shape).__name__))


def config_text(config):
    if config is None or isinstance(config, str):
        return config
    if isinstance(config, dict):
        return ",".join("{}={}".format(k, int(config[k])) for k in sorted(config))
    raise TypeError("config must be None, a string like 'BLOCK=256,EPT=4,VEC=4' or a dict")


def parse_config(text):
    """'BLOCK=256,EPT=4' -> {'BLOCK': 256, 'EPT': 4}."""
    config = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, _, value = item.partition("=")
        config[name] = int(value)
    return config


class Pointer(object):
    """Marks an integer as a device pointer argument: launch(x=Pointer(addr))."""
    __slots__ = ("address",)

    def __init__(self, address):
        self.address = int(address or 0)


def _arg_array(args):
    """{name: value} -> (jitk_arg array, keep-alive list). Values: Pointer, an
    object with data_ptr() (a torch tensor), None (a NULL pointer), int, float."""
    items = list(args.items()) if isinstance(args, dict) else list(args)
    array = (_capi.Arg * len(items))()
    names = []
    for i, (name, value) in enumerate(items):
        encoded = _capi.encode(name, "argument name")
        names.append(encoded)
        slot = array[i]
        slot.name = encoded
        if isinstance(value, Pointer):
            slot.kind, slot.pointer = _capi.ARG_POINTER, value.address or None
        elif value is None:
            slot.kind, slot.pointer = _capi.ARG_POINTER, None
        elif hasattr(value, "data_ptr"):
            slot.kind, slot.pointer = _capi.ARG_POINTER, value.data_ptr() or None
        elif isinstance(value, bool):
            raise TypeError("argument {!r}: bool is ambiguous; pass an int".format(name))
        elif isinstance(value, int):
            slot.kind, slot.integer = _capi.ARG_INT, value
        elif isinstance(value, float):
            slot.kind, slot.real = _capi.ARG_FLOAT, value
        else:
            raise TypeError("argument {!r}: expected a Pointer, a tensor, None, an int or a "
                            "float, got {}".format(name, type(value).__name__))
    return array, names


def _stream_handle(stream):
    if stream is None:
        return None
    if hasattr(stream, "cuda_stream"):  # torch.cuda.Stream
        return stream.cuda_stream or None
    return int(stream) or None


# --- the library -------------------------------------------------------------

def version():
    """The library's version, '0.1.0'."""
    return _capi.text(_capi.lib().jitk_version())


_kernel_names = None  # the loaded library's, which do not change


def kernel_names():
    """Built-in kernel templates, e.g. ['scaled_add', 'sparse_attn']."""
    global _kernel_names
    if _kernel_names is None:
        _kernel_names = tuple(n for n in _capi.text(_capi.lib().jitk_kernel_names()).split(",")
                              if n)
    return list(_kernel_names)


def discover():
    """What jitk-info --json reports: {'jitk_version', 'backends', 'devices'}."""
    return json.loads(_capi.text(_capi.lib().jitk_discover_json()))


# --- compiling without a GPU --------------------------------------------------

class CompiledKernel(object):
    """A kernel compiled for an architecture, not loaded (no GPU needed)."""

    def __init__(self, handle):
        self._handle = handle
        self._lib = _capi.lib()
        self.info = json.loads(_capi.text(self._lib.jitk_compiled_info_json(handle)))

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _capi is not None and _capi._lib is not None:
            self._lib.jitk_compiled_release(handle)

    @property
    def config(self):
        """The config compiled, 'BLOCK=256,EPT=4,VEC=4'."""
        return self.info["config"]

    @property
    def target(self):
        return self.info["target"]

    @property
    def resources(self):
        """{'registers', 'scalar_registers', 'accum_registers', 'lds_bytes', ...}."""
        out = _capi.Resources()
        _capi.check(self._lib.jitk_compiled_resources(self._handle, ctypes.byref(out)))
        return out.as_dict()

    @property
    def code_object(self):
        """The code object bytes (AMD HSA code object / CUDA cubin)."""
        data, size = ctypes.c_void_p(), ctypes.c_size_t()
        _capi.check(self._lib.jitk_compiled_code_object(self._handle, ctypes.byref(data),
                                                        ctypes.byref(size)))
        return ctypes.string_at(data, size.value) if size.value else b""

    def plan_launch(self, args):
        """Checks launch arguments as a launch would and returns
        {'grid': (x, y, z), 'block': (x, y, z), 'dynamic_shared_bytes': n}."""
        array, keep = _arg_array(args)
        dims = _capi.LaunchDims()
        _capi.check(self._lib.jitk_compiled_plan_launch(self._handle, array, len(array),
                                                        ctypes.byref(dims)))
        del keep
        return {"grid": tuple(dims.grid), "block": tuple(dims.block),
                "dynamic_shared_bytes": dims.dynamic_shared_bytes}

    def __repr__(self):
        return "CompiledKernel({} {} for {}, {})".format(
            self.info["kernel"], self.info["shape"], self.target, self.config)


def compile_kernel(name, shape, arch, config=None):
    """Compiles kernel `name` for `shape` ('f16;n=1024' or {'dtype': 'f16', 'n': 1024})
    and architecture `arch` ('gfx90a', 'sm_90', ...), with no GPU."""
    library = _capi.lib()
    handle = ctypes.c_void_p()
    _capi.check(library.jitk_compile_kernel(
        _capi.encode(name, "name"), _capi.encode(_shape_text(shape), "shape"),
        _capi.encode(arch, "arch"), _capi.encode(config_text(config), "config"),
        ctypes.byref(handle)))
    return CompiledKernel(handle.value)


# --- kernels on a GPU ---------------------------------------------------------

class Kernel(object):
    """A kernel loaded on a GPU. launch() is thread-safe."""

    def __init__(self, handle):
        self._handle = handle
        self._lib = _capi.lib()
        self.config = _capi.text(self._lib.jitk_kernel_config(handle))
        self.config_source = _capi.text(self._lib.jitk_kernel_config_source(handle))
        self._info = None

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _capi is not None and _capi._lib is not None:
            self._lib.jitk_kernel_release(handle)

    @property
    def info(self):
        """{'kernel', 'shape', 'config', 'config_source', 'target', 'device': {...}, ...}."""
        if self._info is None:
            self._info = json.loads(_capi.text(self._lib.jitk_kernel_info_json(self._handle)))
        return self._info

    @property
    def resources(self):
        out = _capi.Resources()
        _capi.check(self._lib.jitk_kernel_resources(self._handle, ctypes.byref(out)))
        return out.as_dict()

    def launch(self, args, stream=None):
        """Enqueues the kernel. `args` maps names to values (see Pointer);
        `stream` is a torch.cuda.Stream, a raw stream handle or None."""
        array, keep = _arg_array(args)
        self.launch_array(array, _stream_handle(stream))
        del keep

    def launch_array(self, array, stream):
        """Launches with a prepared ctypes array of jitk_arg and a raw stream
        handle (int or None): the fast path of the tensor functions."""
        status = self._lib.jitk_kernel_launch(self._handle, array, len(array), stream)
        if status != _capi.OK:
            _capi.check(status)

    def __repr__(self):
        return "Kernel({}, {} [{}])".format(self.info["kernel"], self.config, self.config_source)


def get_kernel(name, shape, device=0, config=None):
    """Gets kernel `name` for `shape` on jitk device `device` (an ordinal of
    discover()['devices']), with the best known config or exactly `config`."""
    library = _capi.lib()
    handle = ctypes.c_void_p()
    _capi.check(library.jitk_get_kernel(
        _capi.encode(name, "name"), _capi.encode(_shape_text(shape), "shape"),
        _capi.encode(config_text(config), "config"), int(device), ctypes.byref(handle)))
    return Kernel(handle.value)


class _KernelCache(object):
    """Kernels by (name, shape key, device, config), so a hot call costs a
    dict lookup instead of a C call and a handle."""

    def __init__(self):
        self._lock = threading.Lock()
        self._kernels = {}
        self._by_dims = {}

    def get(self, name, key, device, config=None):
        cache_key = (name, key, device, config)
        kernel = self._kernels.get(cache_key)
        if kernel is None:
            kernel = get_kernel(name, key, device, config)
            with self._lock:
                kernel = self._kernels.setdefault(cache_key, kernel)
        return kernel

    def get_dims(self, name, dtype, dims, device, config=None):
        """get() with the shape as a dtype and a tuple of (dimension, value)
        pairs: the shape key is built only the first time."""
        cache_key = (name, dtype, dims, device, config)
        kernel = self._by_dims.get(cache_key)
        if kernel is None:
            kernel = self._by_dims.setdefault(
                cache_key, self.get(name, shape_key(dtype, dict(dims)), device, config))
        return kernel


kernel_cache = _KernelCache()


# --- device memory (for use without a framework) --------------------------------

class DeviceArray(object):
    """Device memory from jitk_malloc, freed when collected. Passes as a pointer."""

    def __init__(self, nbytes, device=0):
        self.device = int(device)
        self.nbytes = int(nbytes)
        pointer = ctypes.c_void_p()
        _capi.check(_capi.lib().jitk_malloc(self.device, self.nbytes, ctypes.byref(pointer)))
        self._pointer = pointer.value or 0

    def data_ptr(self):
        return self._pointer

    def copy_from(self, host):
        """Copies a bytes-like host buffer (bytes, bytearray, array.array) in."""
        view = memoryview(host).cast("B")
        if view.nbytes > self.nbytes:
            raise ValueError("{} bytes do not fit in {}".format(view.nbytes, self.nbytes))
        buffer = (ctypes.c_char * view.nbytes).from_buffer_copy(view)
        _capi.check(_capi.lib().jitk_copy_to_device(self.device, self._pointer or None,
                                                    buffer, view.nbytes))

    def to_bytes(self, nbytes=None):
        nbytes = self.nbytes if nbytes is None else int(nbytes)
        buffer = ctypes.create_string_buffer(nbytes)
        _capi.check(_capi.lib().jitk_copy_to_host(self.device, buffer, self._pointer or None,
                                                  nbytes))
        return buffer.raw

    def __del__(self):
        pointer, self._pointer = getattr(self, "_pointer", 0), 0
        if pointer and _capi is not None and _capi._lib is not None:
            _capi._lib.jitk_free(self.device, pointer)


def synchronize(device=0, stream=None):
    """Waits for `stream` (None: the default stream) on jitk device `device`."""
    _capi.check(_capi.lib().jitk_synchronize(int(device), _stream_handle(stream)))
