"""python/jitk over libjitk_c.so without a GPU: compile-only kernels, launch
planning and the error paths, through ctypes. Skipped when the library is
not found."""

import unittest

from _setup import jitk, library_or_skip


def compile_or_skip(test, *args, **kwargs):
    try:
        return jitk.compile_kernel(*args, **kwargs)
    except jitk.JitkError as e:
        if e.code_name == "UNAVAILABLE":
            test.skipTest(str(e))
        raise


def scaled_add_args(n=1000, out=16, x=16, y=16, scale=0.5):
    return {"out": jitk.Pointer(out), "x": jitk.Pointer(x), "y": jitk.Pointer(y), "n": n,
            "scale": scale}


class LibraryTest(unittest.TestCase):
    def setUp(self):
        library_or_skip(self)

    def test_version_names_and_discovery(self):
        self.assertRegex(jitk.version(), r"^\d+\.\d+\.\d+$")
        self.assertIn("scaled_add", jitk.kernel_names())
        inventory = jitk.discover()
        self.assertEqual(inventory["jitk_version"], jitk.version())
        self.assertIsInstance(inventory["backends"], list)
        for device in inventory["devices"]:
            self.assertIn("backend_ordinal", device)


class CompileTest(unittest.TestCase):
    def setUp(self):
        library_or_skip(self)

    def check_target(self, arch, wave):
        for dtype, vec in (("float32", 4), ("float16", 8), ("bfloat16", 8)):
            k = compile_or_skip(self, "scaled_add", {"dtype": dtype, "n": 1 << 20}, arch)
            self.assertEqual(k.config, "BLOCK={},EPT=4,VEC={}".format(4 * wave, vec))
            self.assertIn(arch, k.target)
            self.assertEqual(k.info["shape"], jitk.shape_key(dtype, {"n": 1 << 20}))
            resources = k.resources
            self.assertGreater(resources["registers"], 0)
            self.assertEqual(resources["spills"], 0)
            self.assertEqual(k.code_object[:4], b"\x7fELF")
            self.assertEqual(len(k.code_object), k.info["code_bytes"])

    def test_gfx90a(self):
        self.check_target("gfx90a", 64)

    def test_sm_90(self):
        self.check_target("sm_90", 32)

    def test_explicit_config_as_text_or_dict(self):
        k = compile_or_skip(self, "scaled_add", "f16;n=4096", "sm_90",
                            config={"VEC": 2, "BLOCK": 64, "EPT": 2})
        self.assertEqual(k.config, "BLOCK=64,EPT=2,VEC=2")
        self.assertEqual(jitk.parse_config(k.config), {"BLOCK": 64, "EPT": 2, "VEC": 2})

    def test_plan_launch_gives_the_grid(self):
        k = compile_or_skip(self, "scaled_add", "f32;n=1000", "sm_90",
                            config="BLOCK=64,EPT=2,VEC=4")
        plan = k.plan_launch(scaled_add_args(n=1000))
        self.assertEqual(plan["grid"], (2, 1, 1))  # ceil(1000 / (64 * 2 * 4))
        self.assertEqual(plan["block"], (64, 1, 1))
        # Arguments may come as (name, value) pairs too.
        plan = k.plan_launch(list(scaled_add_args(n=100000).items()))
        self.assertEqual(plan["grid"], (196, 1, 1))


class ErrorTest(unittest.TestCase):
    def setUp(self):
        library_or_skip(self)

    def assertJitkError(self, code_name, substring, function, *args, **kwargs):
        with self.assertRaises(jitk.JitkError) as caught:
            function(*args, **kwargs)
        self.assertEqual(caught.exception.code_name, code_name, str(caught.exception))
        self.assertIn(substring, caught.exception.message)

    def test_unknown_kernel(self):
        self.assertJitkError("INVALID_ARGUMENT", "unknown kernel 'saxpy'",
                             jitk.compile_kernel, "saxpy", "f32;n=1", "sm_90")

    def test_bad_shapes(self):
        self.assertJitkError("INVALID_ARGUMENT", "'n'",
                             jitk.compile_kernel, "scaled_add", "f32", "sm_90")
        self.assertJitkError("INVALID_ARGUMENT", "bad shape key 'f64;n=1'",
                             jitk.compile_kernel, "scaled_add", "f64;n=1", "sm_90")
        with self.assertRaisesRegex(TypeError, "needs a 'dtype'"):
            jitk.compile_kernel("scaled_add", {"n": 1}, "sm_90")

    def test_bad_archs(self):
        self.assertJitkError("INVALID_ARGUMENT", "'banana' is not a GPU target",
                             jitk.compile_kernel, "scaled_add", "f32;n=1", "banana")
        self.assertJitkError("NOT_FOUND", "gfx9999",
                             jitk.compile_kernel, "scaled_add", "f32;n=1", "gfx9999")

    def test_bad_configs(self):
        self.assertJitkError("INVALID_ARGUMENT", "BLOCK=100", jitk.compile_kernel,
                             "scaled_add", "f32;n=1", "sm_90", config="BLOCK=100,EPT=4,VEC=4")

    def test_bad_launch_arguments(self):
        k = compile_or_skip(self, "scaled_add", "f32;n=1000", "sm_90")
        args = scaled_add_args()
        args["n"] = 1000.0
        self.assertJitkError("INVALID_ARGUMENT", "'n' must be an integer", k.plan_launch, args)
        args = scaled_add_args()
        del args["y"]
        self.assertJitkError("INVALID_ARGUMENT", "'y'", k.plan_launch, args)
        self.assertJitkError("INVALID_ARGUMENT", "aligned", k.plan_launch,
                             scaled_add_args(out=17))
        with self.assertRaisesRegex(TypeError, "argument 'x': expected a Pointer"):
            k.plan_launch(dict(scaled_add_args(), x="0x10"))
        with self.assertRaisesRegex(TypeError, "bool is ambiguous"):
            k.plan_launch(dict(scaled_add_args(), n=True))

    def test_no_gpu_is_not_found(self):
        if jitk.discover()["devices"]:
            self.skipTest("a GPU is present")
        self.assertJitkError("NOT_FOUND", "no GPU 0", jitk.get_kernel, "scaled_add", "f32;n=16")
        self.assertJitkError("NOT_FOUND", "no GPU 0", jitk.DeviceArray, 16)


class SparseAttnCompileTest(unittest.TestCase):
    """The launch arguments jitk.sparse_attn passes, checked by the template
    itself through jitk_compiled_plan_launch (no GPU, no torch)."""

    def setUp(self):
        library_or_skip(self)
        if "sparse_attn" not in jitk.kernel_names():
            self.skipTest("this libjitk_c.so has no sparse_attn kernel")

    def shape(self, layout):
        return jitk.shape_key("f16", {"b": 4, "hq": 32, "hkv": 8, "lq": 4096, "lk": 4096,
                                      "d": 128, "block": 128, "layout": layout})

    def args(self, **kwargs):
        from jitk._torch_ops import sparse_attn_args
        names = ("q", "k", "v", "o", "lse", "kv_num_blocks", "kv_indices", "full_kv_num_blocks",
                 "full_kv_indices")
        pointers = dict((name, 1 << (20 + i)) for i, name in enumerate(names))
        q = (32 * 4096 * 128, 4096 * 128, 128)
        kv = (8 * 4096 * 128, 4096 * 128, 128)
        return sparse_attn_args(pointers, {"q": q, "k": kv, "v": kv, "o": q}, 1, 1, **kwargs)

    def test_arguments_are_the_templates(self):
        k = compile_or_skip(self, "sparse_attn", self.shape(1), "sm_90")
        plan = k.plan_launch(self.args())
        block_m = jitk.parse_config(k.config)["BLOCK_M"]
        # A causal launch of a few waves: rank-major, heads first.
        self.assertEqual(plan["grid"], (32, 4096 // block_m, 4))
        plan = k.plan_launch(self.args(scale=0.05))
        self.assertEqual(plan["grid"], (32, 4096 // block_m, 4))

    def test_prepared_argument_arrays_match_the_named_arguments(self):
        # jitk.sparse_attn fills a jitk_arg array per launch plan; its names
        # and kinds must be those of sparse_attn_args, value for value.
        from jitk import _capi
        from jitk._torch_ops import _sparse_attn_array
        for full in (False, True):
            for scale in (None, 0.05):
                args = self.args(scale=scale)
                if not full:
                    args = [(n, v) for n, v in args if not n.startswith("full_")]
                array = _sparse_attn_array(full, scale is not None)
                self.assertEqual([slot.name.decode() for slot in array], [n for n, _ in args])
                for slot, (name, value) in zip(array, args):
                    want = (_capi.ARG_POINTER if isinstance(value, jitk.Pointer) else
                            _capi.ARG_FLOAT if isinstance(value, float) else _capi.ARG_INT)
                    self.assertEqual(slot.kind, want, name)

    def test_sliding_window_needs_a_window(self):
        k = compile_or_skip(self, "sparse_attn", self.shape(2), "sm_90")
        with self.assertRaises(jitk.JitkError) as caught:
            k.plan_launch(self.args())
        self.assertIn("window=0 must be >= 1", caught.exception.message)
        self.assertEqual(k.plan_launch(self.args(window=1024, global_tokens=128))["block"][1], 1)


if __name__ == "__main__":
    unittest.main()
