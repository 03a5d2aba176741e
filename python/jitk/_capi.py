"""ctypes bindings of libjitk_c.so (include/jitk/jitk_c.h).

The library is found, in this order, at
  1. $JITK_LIBRARY (the .so itself, or a directory holding libjitk_c.so);
  2. next to this package (python/jitk/libjitk_c.so, where an install puts it);
  3. the build directories of a source checkout: <repo>/build/lib/c_api/, then
     <repo>/build-*/lib/c_api/ (the most recently built first).
It is loaded on first use, so `import jitk` works without it; `library_path()`
says which file was (or would be) used.
"""

import ctypes
import glob
import os
import threading

LIBRARY_NAME = "libjitk_c.so"
ABI_VERSION = 1  # JITK_C_ABI_VERSION this module was written for

# jitk_status values (abseil's canonical codes).
OK = 0
INVALID_ARGUMENT = 3
NOT_FOUND = 5
FAILED_PRECONDITION = 9
UNAVAILABLE = 14

# jitk_arg_kind values.
ARG_POINTER = 1
ARG_INT = 2
ARG_FLOAT = 3


class JitkError(RuntimeError):
    """A jitk call failed. `code` is the jitk_status value, `code_name` its
    name ("INVALID_ARGUMENT", ...), `message` what the library said."""

    def __init__(self, code, code_name, message):
        RuntimeError.__init__(self, "{}: {}".format(code_name, message))
        self.code = code
        self.code_name = code_name
        self.message = message


class LibraryNotFoundError(JitkError, ImportError):
    """libjitk_c.so could not be found or loaded."""

    def __init__(self, message):
        JitkError.__init__(self, UNAVAILABLE, "UNAVAILABLE", message)


class Arg(ctypes.Structure):
    """struct jitk_arg (40 bytes on 64-bit)."""
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("pointer", ctypes.c_void_p),
        ("integer", ctypes.c_int64),
        ("real", ctypes.c_double),
    ]


class LaunchDims(ctypes.Structure):
    """struct jitk_launch_dims."""
    _fields_ = [
        ("grid", ctypes.c_uint32 * 3),
        ("block", ctypes.c_uint32 * 3),
        ("dynamic_shared_bytes", ctypes.c_uint32),
    ]


class Resources(ctypes.Structure):
    """struct jitk_resources."""
    _fields_ = [(name, ctypes.c_int32) for name in (
        "registers", "scalar_registers", "accum_registers", "lds_bytes",
        "scratch_bytes", "spills", "wave_size", "max_threads_per_block")]

    def as_dict(self):
        return dict((name, getattr(self, name)) for name, _ in self._fields_)


_STATUS = ctypes.c_int
_HANDLE = ctypes.c_void_p
_STR = ctypes.c_char_p

# name: (restype, argtypes)
_PROTOTYPES = {
    "jitk_status_name": (_STR, [ctypes.c_int]),
    "jitk_last_error_code": (_STATUS, []),
    "jitk_last_error_message": (_STR, []),
    "jitk_version": (_STR, []),
    "jitk_abi_version": (ctypes.c_int, []),
    "jitk_kernel_names": (_STR, []),
    "jitk_discover_json": (_STR, []),
    "jitk_malloc": (_STATUS, [ctypes.c_int, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
    "jitk_free": (_STATUS, [ctypes.c_int, ctypes.c_void_p]),
    "jitk_copy_to_device": (_STATUS, [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                      ctypes.c_size_t]),
    "jitk_copy_to_host": (_STATUS, [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.c_size_t]),
    "jitk_synchronize": (_STATUS, [ctypes.c_int, ctypes.c_void_p]),
    "jitk_compile_kernel": (_STATUS, [_STR, _STR, _STR, _STR, ctypes.POINTER(_HANDLE)]),
    "jitk_compiled_release": (None, [_HANDLE]),
    "jitk_compiled_config": (_STR, [_HANDLE]),
    "jitk_compiled_info_json": (_STR, [_HANDLE]),
    "jitk_compiled_resources": (_STATUS, [_HANDLE, ctypes.POINTER(Resources)]),
    "jitk_compiled_code_object": (_STATUS, [_HANDLE, ctypes.POINTER(ctypes.c_void_p),
                                            ctypes.POINTER(ctypes.c_size_t)]),
    "jitk_compiled_plan_launch": (_STATUS, [_HANDLE, ctypes.POINTER(Arg), ctypes.c_size_t,
                                            ctypes.POINTER(LaunchDims)]),
    "jitk_get_kernel": (_STATUS, [_STR, _STR, _STR, ctypes.c_int, ctypes.POINTER(_HANDLE)]),
    "jitk_kernel_release": (None, [_HANDLE]),
    "jitk_kernel_config": (_STR, [_HANDLE]),
    "jitk_kernel_config_source": (_STR, [_HANDLE]),
    "jitk_kernel_info_json": (_STR, [_HANDLE]),
    "jitk_kernel_resources": (_STATUS, [_HANDLE, ctypes.POINTER(Resources)]),
    "jitk_kernel_launch": (_STATUS, [_HANDLE, ctypes.POINTER(Arg), ctypes.c_size_t,
                                     ctypes.c_void_p]),
}

_lock = threading.Lock()
_lib = None
_lib_path = None


def _package_dir():
    return os.path.dirname(os.path.abspath(__file__))


def candidate_paths():
    """Where the library is looked for, in order (see the module docstring)."""
    paths = []
    env = os.environ.get("JITK_LIBRARY")
    if env:
        paths.append(os.path.join(env, LIBRARY_NAME) if os.path.isdir(env) else env)
        return paths  # an explicit choice: never fall back silently
    paths.append(os.path.join(_package_dir(), LIBRARY_NAME))
    repo = os.path.dirname(os.path.dirname(_package_dir()))
    paths.append(os.path.join(repo, "build", "lib", "c_api", LIBRARY_NAME))
    others = glob.glob(os.path.join(repo, "build-*", "lib", "c_api", LIBRARY_NAME))
    others.sort(key=lambda p: os.path.getmtime(p), reverse=True)
    paths.extend(others)
    return paths


def library_path():
    """The library file in use, or the one that would be loaded; None if none exists."""
    if _lib_path is not None:
        return _lib_path
    for path in candidate_paths():
        if os.path.isfile(path):
            return path
    return None


def _bind(lib):
    for name, (restype, argtypes) in _PROTOTYPES.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


def lib():
    """The loaded library (loads it on first call); LibraryNotFoundError if absent."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in candidate_paths():
            if not os.path.isfile(path):
                tried.append("{} (no such file)".format(path))
                continue
            try:
                loaded = ctypes.CDLL(path)
                _bind(loaded)
            except (OSError, AttributeError) as error:
                tried.append("{} ({})".format(path, error))
                continue
            abi = loaded.jitk_abi_version()
            if abi != ABI_VERSION:
                tried.append("{} (C ABI version {}, this package needs {})".format(
                    path, abi, ABI_VERSION))
                continue
            _lib, _lib_path = loaded, path
            return _lib
        raise LibraryNotFoundError(
            "cannot load {}; tried: {}. Build it (cmake --build <build dir> --target jitk_c) "
            "or set JITK_LIBRARY to its path".format(LIBRARY_NAME, "; ".join(tried)))


def text(raw):
    """const char* result -> str ("" for NULL)."""
    return "" if raw is None else raw.decode("utf-8", "replace")


def encode(value, what):
    """str -> bytes for a const char* parameter (None stays NULL)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if not isinstance(value, str):
        raise TypeError("{} must be a string, got {}".format(what, type(value).__name__))
    return value.encode("utf-8")


def check(status):
    """Raises JitkError for a failed jitk_status, with this thread's message."""
    if status != OK:
        library = lib()
        raise JitkError(status, text(library.jitk_status_name(status)),
                        text(library.jitk_last_error_message()))
