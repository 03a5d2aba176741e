"""The parts of python/jitk that need neither the library nor a GPU:
importing, shape keys, configs, parity, and how the library is looked for."""

import os
import subprocess
import sys
import tempfile
import types
import unittest

from _setup import PYTHON_DIR, jitk


class ImportTest(unittest.TestCase):
    def test_public_names_exist(self):
        for name in jitk.__all__:
            self.assertTrue(hasattr(jitk, name), name)

    def test_missing_library_is_reported_with_the_paths_tried(self):
        # A fresh interpreter: the loaded library is process state.
        env = dict(os.environ, JITK_LIBRARY="/nonexistent/libjitk_c.so",
                   PYTHONPATH=PYTHON_DIR)
        code = ("import jitk\n"
                "assert not jitk.available()\n"
                "try:\n"
                "    jitk.version()\n"
                "except jitk.LibraryNotFoundError as e:\n"
                "    assert isinstance(e, ImportError) and isinstance(e, jitk.JitkError)\n"
                "    assert e.code_name == 'UNAVAILABLE'\n"
                "    print(e)\n")
        out = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(out.returncode, 0, out.stdout)
        self.assertIn("/nonexistent/libjitk_c.so (no such file)", out.stdout)
        self.assertIn("JITK_LIBRARY", out.stdout)

    def test_jitk_library_may_name_a_directory(self):
        directory = tempfile.mkdtemp()
        try:
            env = dict(os.environ, JITK_LIBRARY=directory, PYTHONPATH=PYTHON_DIR)
            out = subprocess.run([sys.executable, "-c",
                                  "import jitk; print(jitk._capi.candidate_paths())"],
                                 env=env, stdout=subprocess.PIPE, universal_newlines=True)
            # The file inside it, and nothing else: an explicit choice never falls back.
            self.assertEqual(out.stdout.strip(),
                             repr([os.path.join(directory, "libjitk_c.so")]))
        finally:
            os.rmdir(directory)


class ShapeAndConfigTest(unittest.TestCase):
    def test_shape_keys_are_canonical(self):
        self.assertEqual(jitk.shape_key("float16", {"n": 1024}), "f16;n=1024")
        self.assertEqual(jitk.shape_key("bf16", {"lq": 4, "b": 2}), "bf16;b=2;lq=4")
        self.assertEqual(jitk.shape_key("torch.float32", {}), "f32")

    def test_bad_dtypes_and_dims_are_named(self):
        with self.assertRaisesRegex(TypeError, "unsupported dtype int8"):
            jitk.shape_key("int8", {"n": 1})
        with self.assertRaisesRegex(TypeError, "'n' must be an int"):
            jitk.shape_key("f32", {"n": 1.5})

    def test_configs_round_trip(self):
        self.assertEqual(jitk.parse_config("BLOCK=256,EPT=4,VEC=4"),
                         {"BLOCK": 256, "EPT": 4, "VEC": 4})
        self.assertEqual(jitk.parse_config(""), {})


class ParityTest(unittest.TestCase):
    def test_identical_values(self):
        r = jitk.parity([1.0, -2.0, 3.0], [1.0, -2.0, 3.0], verbose=False)
        self.assertEqual(r["n"], 3)
        self.assertAlmostEqual(r["cosine"], 1.0, places=15)
        self.assertEqual(r["max_abs"], 0.0)
        self.assertEqual(r["rel_err"], 0.0)
        self.assertEqual(r["nonfinite"], 0)

    def test_known_errors(self):
        r = jitk.parity([1.0, 0.0], [0.0, 1.0], verbose=False)  # orthogonal
        self.assertAlmostEqual(r["cosine"], 0.0)
        self.assertAlmostEqual(r["max_abs"], 1.0)
        self.assertAlmostEqual(r["rel_err"], 2 ** 0.5)
        r = jitk.parity([[3.0, 4.0]], [3.0, 4.5], verbose=False)  # nested vs flat
        self.assertAlmostEqual(r["max_abs"], 0.5)
        self.assertAlmostEqual(r["rel_err"], 0.5 / (9 + 4.5 ** 2) ** 0.5)
        self.assertLess(r["cosine"], 1.0)

    def test_zero_vectors_and_non_finite_values(self):
        self.assertEqual(jitk.parity([0.0, 0.0], [0.0, 0.0], verbose=False)["cosine"], 1.0)
        r = jitk.parity([1.0, 0.0], [0.0, 0.0], verbose=False)
        self.assertEqual(r["cosine"], 0.0)
        self.assertEqual(r["rel_err"], float("inf"))
        r = jitk.parity([float("nan"), 1.0], [1.0, 1.0], verbose=False)
        self.assertEqual(r["nonfinite"], 1)
        self.assertNotEqual(r["max_abs"], r["max_abs"])  # NaN is reported, not hidden

    def test_length_mismatch_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "2 values vs 3"):
            jitk.parity([1, 2], [1, 2, 3], verbose=False)


class CurrentStreamTest(unittest.TestCase):
    """The launch stream without torch's raw getter (older torch) and with it."""

    def torch_like(self, raw_getter):
        streams = {0: 0, 1: 0xabc}  # device -> current stream (0: the default)
        calls = []

        def current_stream(index):
            calls.append(index)
            return types.SimpleNamespace(cuda_stream=streams[index])

        torch = types.SimpleNamespace(cuda=types.SimpleNamespace(current_stream=current_stream),
                                      _C=types.SimpleNamespace())
        if raw_getter:
            torch._C._cuda_getCurrentRawStream = lambda index: streams[index]
        return torch, calls

    def test_the_default_stream_is_none_and_others_their_handle(self):
        from jitk._torch_ops import _current_stream
        for raw_getter in (False, True):
            torch, calls = self.torch_like(raw_getter)
            self.assertIsNone(_current_stream(torch, 0))
            self.assertEqual(_current_stream(torch, 1), 0xabc)
            self.assertEqual(calls, [] if raw_getter else [0, 1])


class FakeTensor(object):
    """What jitk.sparse_attn reads of a torch tensor: a contiguous one on GPU 0
    at an address of its own."""
    next_address = 1 << 20

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.is_cuda, self.device = tuple(shape), dtype, True, "cuda:0"
        strides, step = [], 1
        for n in reversed(self.shape):
            strides.insert(0, step)
            step *= n
        self._strides = tuple(strides)
        self._address = FakeTensor.next_address
        FakeTensor.next_address += 1 << 20

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def dim(self):
        return len(self.shape)

    def get_device(self):
        return 0

    def is_contiguous(self):
        return True

    def data_ptr(self):
        return self._address


class SparseAttnPlanTest(unittest.TestCase):
    """jitk.sparse_attn's launch plans on a fake torch: every launch passes
    that call's named arguments, from a new plan or a reused one, and options
    that could change under one key are never kept."""

    def setUp(self):
        from unittest import mock
        from jitk import _core, _torch_ops
        self.ops = _torch_ops
        self.torch = types.SimpleNamespace(
            Tensor=FakeTensor, float16="float16", float32="float32", bfloat16="bfloat16",
            int32="int32", contiguous_format=None,
            _C=types.SimpleNamespace(_cuda_getCurrentRawStream=lambda index: 0),
            empty_like=lambda t, memory_format=None: FakeTensor(t.shape, t.dtype),
            empty=lambda shape, dtype, device: FakeTensor(shape, dtype))
        self.launched = []
        kernel = types.SimpleNamespace(launch_array=self.record)
        for target, name, value in (
                (_torch_ops, "_torch", lambda: self.torch),
                (_torch_ops, "_jitk_device", lambda torch, index: 0),
                (_torch_ops, "_supported_dtype_set", frozenset(["float16", "float32"])),
                (_core, "kernel_names", lambda: ["sparse_attn"]),
                (_core.kernel_cache, "get_dims", lambda *args: kernel)):
            patcher = mock.patch.object(target, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)
        _torch_ops._thread_plans().clear()
        self.addCleanup(_torch_ops._thread_plans().clear)  # no fake plans for later tests

    def record(self, array, stream):
        kinds = {1: "pointer", 2: "integer", 3: "real"}
        self.launched.append(dict((slot.name.decode(), getattr(slot, kinds[slot.kind]) or 0)
                                  for slot in array))

    def block_mask(self):
        counts = lambda: FakeTensor((1, 2, 3), "int32")
        indices = lambda: FakeTensor((1, 2, 3, 3), "int32")
        return types.SimpleNamespace(kv_num_blocks=counts(), kv_indices=indices(),
                                     full_kv_num_blocks=counts(), full_kv_indices=indices(),
                                     BLOCK_SIZE=128)

    def expected(self, q, k, v, out, mask, scale=None):
        pointers = {"q": q.data_ptr(), "k": k.data_ptr(), "v": v.data_ptr(),
                    "o": out.data_ptr(), "lse": 0}
        for name in ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices"):
            pointers[name] = getattr(mask, name).data_ptr()
        strides = dict((name, t.stride()[:3]) for name, t in
                       (("q", q), ("k", k), ("v", v), ("o", out)))
        return dict((name, getattr(value, "address", value)) for name, value in
                    self.ops.sparse_attn_args(pointers, strides, 1, 2, scale=scale))

    def test_each_launch_passes_its_own_arguments(self):
        mask = self.block_mask()
        calls = [[FakeTensor((1, 2, 384, 128), "float16") for _ in range(3)] for _ in range(3)]
        outs = [self.ops.sparse_attn(q, k, v, mask) for q, k, v in calls]
        scaled = self.ops.sparse_attn(*calls[0], mask, scale=0.1)
        self.assertEqual(len(self.ops._thread_plans()), 2)  # unscaled, scaled
        for (q, k, v), out, launched in zip(calls, outs, self.launched):
            self.assertEqual(launched, self.expected(q, k, v, out, mask))
        self.assertEqual(self.launched[3], self.expected(*calls[0], scaled, mask, scale=0.1))

    def test_options_that_could_change_are_not_kept(self):
        class Scale(float):  # a number whose value a key could not see change
            pass
        mask = self.block_mask()
        q, k, v = (FakeTensor((1, 2, 384, 128), "float16") for _ in range(3))
        self.ops.sparse_attn(q, k, v, mask, scale=Scale(0.5))
        self.assertEqual(len(self.ops._thread_plans()), 0)
        self.ops.sparse_attn(q, k, v, mask, scale=0.5)
        self.assertEqual(len(self.ops._thread_plans()), 1)
        self.assertEqual(self.launched[0]["scale"], self.launched[1]["scale"])


if __name__ == "__main__":
    unittest.main()
