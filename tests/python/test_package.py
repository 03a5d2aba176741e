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


if __name__ == "__main__":
    unittest.main()
