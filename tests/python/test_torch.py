"""jitk on torch tensors, side by side with torch: scaled_add against
torch.add(x, y, alpha=s), the argument checks, and sparse_attn against SDPA
when the kernel is built in. Skipped without torch, a GPU or the library."""

import os
import subprocess
import sys
import tempfile
import textwrap
import types
import unittest

from _setup import PYTHON_DIR, jitk, library_or_skip, torch_cuda

torch = torch_cuda()


def run_python(args, **env):
    """Runs a fresh Python process with this checkout's jitk (and `env` on
    top of this process's environment)."""
    env = dict(os.environ, JITK_LIBRARY=jitk.library_path(),
               PYTHONPATH=os.pathsep.join([PYTHON_DIR, os.environ.get("PYTHONPATH", "")]), **env)
    return subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True,
                          timeout=600)


class TorchTest(unittest.TestCase):
    def setUp(self):
        if torch is None:
            self.skipTest("needs torch with a GPU")
        library_or_skip(self)


class ScaledAddTest(TorchTest):
    DTYPES = ()

    def setUp(self):
        TorchTest.setUp(self)
        self.DTYPES = (torch.float32, torch.float16, torch.bfloat16)

    def test_matches_torch_add_for_every_dtype_and_odd_lengths(self):
        g = torch.Generator(device="cuda").manual_seed(0)
        for dtype in self.DTYPES:
            for n in (1, 7, 1000, 65537, 1 << 20, (1 << 20) + 3):
                x = torch.randn(n, device="cuda", dtype=dtype, generator=g)
                y = torch.randn(n, device="cuda", dtype=dtype, generator=g)
                got = jitk.scaled_add(x, y, -0.75)
                want = torch.add(x.double(), y.double(), alpha=-0.75)
                r = jitk.parity(got, want, name="{} n={}".format(dtype, n), verbose=False)
                tol = {torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}[dtype]
                self.assertLessEqual(r["max_abs"], tol * (1 + want.abs().max().item()),
                                     (dtype, n, r))
                self.assertEqual(got.dtype, dtype)
                self.assertEqual(got.shape, x.shape)

    def test_any_shape_out_and_in_place(self):
        x = torch.randn(3, 5, 7, device="cuda")
        y = torch.randn(3, 5, 7, device="cuda")
        want = torch.add(x, y, alpha=2.0)
        out = torch.empty_like(x)
        self.assertIs(jitk.scaled_add(x, y, 2.0, out=out), out)
        self.assertTrue(torch.allclose(out, want))
        jitk.scaled_add(x, y, 2.0, out=x)  # in place
        self.assertTrue(torch.allclose(x, want))

    def test_misaligned_views_and_empty_tensors(self):
        base = torch.randn(1 << 16, device="cuda", dtype=torch.float16)
        other = torch.randn(1 << 16, device="cuda", dtype=torch.float16)
        x, y = base[1:][:-2], other[3:]  # offsets 1 and 3 elements: scalar path
        got = jitk.scaled_add(x, y, 0.5)
        self.assertTrue(torch.allclose(got.float(), torch.add(x, y, alpha=0.5).float(),
                                       atol=2e-3, rtol=2e-3))
        empty = torch.empty(0, device="cuda")
        self.assertEqual(jitk.scaled_add(empty, empty, 1.0).numel(), 0)

    def test_runs_on_the_current_stream(self):
        x = torch.randn(1 << 22, device="cuda")
        y = torch.randn(1 << 22, device="cuda")
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            got = jitk.scaled_add(x, y, 3.0)
        stream.synchronize()
        self.assertTrue(torch.allclose(got, torch.add(x, y, alpha=3.0)))

    def test_bad_tensors_are_named(self):
        x = torch.randn(16, device="cuda")
        with self.assertRaisesRegex(ValueError, "x is on cpu"):
            jitk.scaled_add(x.cpu(), x, 1.0)
        with self.assertRaisesRegex(TypeError, "x has dtype torch.int32"):
            jitk.scaled_add(x.int(), x.int(), 1.0)
        with self.assertRaisesRegex(TypeError, "y has dtype torch.float16 but x has"):
            jitk.scaled_add(x, x.half(), 1.0)
        with self.assertRaisesRegex(ValueError, r"y has shape \(8,\) but x has \(16,\)"):
            jitk.scaled_add(x, x[:8], 1.0)
        with self.assertRaisesRegex(ValueError, "x is not contiguous"):
            jitk.scaled_add(x[::2], x[::2], 1.0)
        with self.assertRaisesRegex(TypeError, "x must be a torch.Tensor"):
            jitk.scaled_add([1.0], x, 1.0)
        with self.assertRaisesRegex(TypeError, "scale must be a Python number"):
            jitk.scaled_add(x, x, torch.tensor(1.0))

    def test_first_call_inside_a_cuda_graph_capture_replays(self):
        # A length bucket no other test uses: the kernel loads during the
        # capture (outside the graph), the launch is captured.
        n = (5 << 20) + 1
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            jitk.scaled_add(x, y, 0.5, out=out)
        for _ in range(2):  # new inputs in the captured buffers
            x.copy_(torch.randn_like(x))
            graph.replay()
            torch.cuda.synchronize()
            self.assertTrue(torch.allclose(out, torch.add(x, y, alpha=0.5)))

    def test_a_process_whose_first_jitk_call_is_captured(self):
        # Discovery, the context, the compile and the load all happen inside
        # the capture; only the launch is stream work.
        code = textwrap.dedent("""
            import torch, jitk
            x, y = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
            out = torch.empty_like(x)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                jitk.scaled_add(x, y, 2.0, out=out)
            graph.replay()
            torch.cuda.synchronize()
            assert torch.allclose(out, torch.add(x, y, alpha=2.0)), "wrong result"
            print("replayed")
            """)
        run = run_python(["-c", code])
        self.assertEqual(run.returncode, 0, run.stderr[-2000:])
        self.assertIn("replayed", run.stdout)

    def test_tuning_inside_a_capture_is_refused_by_name(self):
        # Tuning allocates and synchronizes, which a capture forbids: the
        # capture breaks, and jitk's error says to tune before capturing.
        code = textwrap.dedent("""
            import torch, jitk
            x, y = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
            out = torch.empty_like(x)
            graph = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(graph):
                    jitk.scaled_add(x, y, 2.0, out=out)
            except Exception as e:
                for error in (e, e.__context__):
                    print(type(error).__name__, error)
            """)
        with tempfile.TemporaryDirectory() as cache:
            run = run_python(["-c", code], JITK_TUNE="force", JITK_CACHE_DIR=cache)
        self.assertEqual(run.returncode, 0, run.stderr[-2000:])
        self.assertIn("JitkError", run.stdout)
        self.assertIn("call the kernel (and tune it) once before capturing", run.stdout)

    def test_parity_on_tensors(self):
        a = torch.randn(1000, device="cuda")
        r = jitk.parity(a, a.double(), verbose=False)
        self.assertEqual(r["max_abs"], 0.0)
        r = jitk.parity(a.half(), a, verbose=False)
        self.assertGreater(r["cosine"], 0.9999)
        self.assertGreater(r["max_abs"], 0.0)


class SparseAttnTest(TorchTest):
    def setUp(self):
        TorchTest.setUp(self)
        if "sparse_attn" not in jitk.kernel_names():
            self.skipTest("this libjitk_c.so has no sparse_attn kernel")
        try:
            from torch.nn.attention.flex_attention import create_block_mask
        except ImportError:
            self.skipTest("needs torch FlexAttention (torch >= 2.5)")
        self.create_block_mask = create_block_mask

    def assert_matches_causal_sdpa(self, got, q, k, v, name):
        want = torch.nn.functional.scaled_dot_product_attention(
            q.double(), k.double(), v.double(), is_causal=True)
        r = jitk.parity(got, want, name=name, verbose=False)
        self.assertGreater(r["cosine"], 0.9999, r)

    def test_causal_matches_sdpa(self):
        b, h, l, d = 2, 4, 1024, 128
        for dtype in (torch.float16, torch.bfloat16):
            q, k, v = (torch.randn(b, h, l, d, device="cuda", dtype=dtype) for _ in range(3))
            mask = self.create_block_mask(lambda b_, h_, qi, ki: ki <= qi, None, None, l, l,
                                          device="cuda")
            got = jitk.sparse_attn(q, k, v, mask, mask="causal")
            self.assert_matches_causal_sdpa(got, q, k, v, "sparse_attn causal {}".format(dtype))

    def test_decode_steps_match_sdpa(self):
        # One and a few query rows against a long key sequence, grouped heads.
        for lq in (1, 3):
            q = torch.randn(2, 8, lq, 128, device="cuda", dtype=torch.bfloat16)
            k, v = (torch.randn(2, 2, 1000, 128, device="cuda", dtype=torch.bfloat16)
                    for _ in range(2))
            mask = self.create_block_mask(lambda b_, h_, qi, ki: qi >= 0, None, None, lq, 1000,
                                          device="cuda")
            got = jitk.sparse_attn(q, k, v, mask, mask="none")
            want = torch.nn.functional.scaled_dot_product_attention(
                q.double(), k.double().repeat_interleave(4, 1), v.double().repeat_interleave(4, 1))
            r = jitk.parity(got, want, name="decode lq={}".format(lq), verbose=False)
            self.assertGreater(r["cosine"], 0.9999, r)

    def test_decode_step_with_a_mask_per_head_matches_sdpa(self):
        # One query row, 8 heads in groups of 4, each head its own key blocks:
        # the grouped heads stay unpacked, under the default of a shape with
        # mask_per_head (on Hopper the warp-specialized 64-row tiles, not the
        # packed rule's 64/64/4/2).
        from jitk._torch_ops import _thread_plans
        hq, hkv, lk = 8, 2, 5000

        def allowed(h, ki):
            return (ki // 128) % (h + 2) != 1

        q = torch.randn(2, hq, 1, 128, device="cuda", dtype=torch.float16)
        k, v = (torch.randn(2, hkv, lk, 128, device="cuda", dtype=torch.float16)
                for _ in range(2))
        mask = self.create_block_mask(lambda b_, h_, qi, ki: allowed(h_, ki), None, hq, 1, lk,
                                      device="cuda")
        plans = _thread_plans()
        plans.clear()
        got = jitk.sparse_attn(q, k, v, mask, mask="none")
        (plan,) = plans.values()
        heads = torch.arange(hq, device="cuda")[:, None, None]
        want = torch.nn.functional.scaled_dot_product_attention(
            q.double(), k.double().repeat_interleave(4, 1), v.double().repeat_interleave(4, 1),
            attn_mask=allowed(heads, torch.arange(lk, device="cuda")[None, None, :]))
        r = jitk.parity(got, want, name="decode, a mask per head", verbose=False)
        self.assertGreater(r["cosine"], 0.99999, r)
        self.assertLess(r["max_abs"], 2e-3, r)
        dims = dict(b=2, block=128, d=128, hkv=hkv, hq=hq, layout=5, lk=lk, lq=1)
        per_head = jitk.get_kernel("sparse_attn",
                                   jitk.shape_key("f16", dict(dims, mask_per_head=1)))
        self.assertEqual(plan.kernel.config, per_head.config)
        if torch.cuda.get_device_capability() == (9, 0):
            self.assertIn("WAVES=8", plan.kernel.config)
        with self.assertRaisesRegex(Exception, "mask_per_head=3 must be 0"):
            jitk.get_kernel("sparse_attn", jitk.shape_key("f16", dict(dims, mask_per_head=3)))

    def test_kv_cache_steps_under_element_masks_match_sdpa(self):
        # The queries are the newest lq tokens of 1000 (q_offset = 1000 - lq):
        # sliding-window steps of one row and of 16 (grouped heads packed as
        # rows, each row at its own position) and a causal chunk of 16 rows,
        # against SDPA with the same mask written out.
        lk, window = 1000, 256
        for lq, mask_name in ((1, "sliding_window_causal"), (16, "causal"),
                              (16, "sliding_window_causal")):
            off = lk - lq

            def allowed(qi, ki):
                seen = ki <= qi + off
                return seen & (qi + off - ki < window) if mask_name != "causal" else seen

            q = torch.randn(2, 8, lq, 128, device="cuda", dtype=torch.float16)
            k, v = (torch.randn(2, 2, lk, 128, device="cuda", dtype=torch.float16)
                    for _ in range(2))
            mask = self.create_block_mask(lambda b_, h_, qi, ki: allowed(qi, ki), None, None, lq,
                                          lk, device="cuda")
            got = jitk.sparse_attn(q, k, v, mask, mask=mask_name, window=window, q_offset=off)
            qi = torch.arange(lq, device="cuda")[:, None]
            ki = torch.arange(lk, device="cuda")[None, :]
            want = torch.nn.functional.scaled_dot_product_attention(
                q.double(), k.double().repeat_interleave(4, 1), v.double().repeat_interleave(4, 1),
                attn_mask=allowed(qi, ki))
            r = jitk.parity(got, want, name="{} lq={}".format(mask_name, lq), verbose=False)
            self.assertGreater(r["cosine"], 0.99999, r)
            self.assertLess(r["max_abs"], 2e-3, r)

    def test_prefill_chunk_splits_and_pinned_configs_match_sdpa(self):
        # 200 rows at the end of 6000 keys, two heads: a few query tiles
        # that split their key ranges by default; then the same call pinned
        # to this GPU's default tiles with three ranges, and unsplit.
        lq, lk = 200, 6000
        off = lk - lq
        q = torch.randn(1, 2, lq, 128, device="cuda", dtype=torch.float16)
        k, v = (torch.randn(1, 1, lk, 128, device="cuda", dtype=torch.float16)
                for _ in range(2))
        mask = self.create_block_mask(lambda b_, h_, qi, ki: ki <= qi + off, None, None, lq, lk,
                                      device="cuda")
        qi = torch.arange(lq, device="cuda")[:, None]
        want = torch.nn.functional.scaled_dot_product_attention(
            q.double(), k.double().expand(1, 2, lk, 128), v.double().expand(1, 2, lk, 128),
            attn_mask=torch.arange(lk, device="cuda")[None, :] <= qi + off)
        dims = dict(b=1, block=128, d=128, hkv=1, hq=2, layout=1, lk=lk, lq=lq)
        default = jitk.parse_config(jitk.get_kernel("sparse_attn",
                                                    jitk.shape_key("f16", dims)).config)
        self.assertGreater(default.get("KV_SPLITS", 1), 1, default)
        for config in (None, dict(default, KV_SPLITS=3), dict(default, KV_SPLITS=1)):
            got = jitk.sparse_attn(q, k, v, mask, q_offset=off, config=config)
            r = jitk.parity(got, want, name="chunk {}".format(config), verbose=False)
            self.assertGreater(r["cosine"], 0.99999, r)
            self.assertLess(r["max_abs"], 2e-3, r)
        with self.assertRaisesRegex(Exception, "BLOCK_M"):
            jitk.sparse_attn(q, k, v, mask, q_offset=off, config="BLOCK_M=7,BLOCK_N=128")

    def test_decode_steps_on_two_streams_match_sdpa(self):
        # A decode step splits its key range into scratch memory kept per
        # stream: two streams computing at once must not share it.
        lk = 5000
        mask = self.create_block_mask(lambda b_, h_, qi, ki: qi >= 0, None, None, 1, lk,
                                      device="cuda")
        streams = [torch.cuda.Stream(), torch.cuda.Stream()]
        inputs, outputs = [], []
        for _ in streams:
            inputs.append([torch.randn(1, 8, n, 128, device="cuda", dtype=torch.float16)
                           for n in (1, lk, lk)])
        torch.cuda.synchronize()
        for _ in range(3):
            outputs = []
            for stream, (q, k, v) in zip(streams, inputs):
                with torch.cuda.stream(stream):
                    outputs.append(jitk.sparse_attn(q, k, v, mask, mask="none"))
        torch.cuda.synchronize()
        for (q, k, v), got in zip(inputs, outputs):
            want = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(),
                                                                    v.double())
            r = jitk.parity(got, want, name="decode on a stream", verbose=False)
            self.assertGreater(r["cosine"], 0.99999, r)

    def test_bad_inputs_are_named(self):
        b, h, l, d = 1, 2, 256, 64
        q, k, v = (torch.randn(b, h, l, d, device="cuda", dtype=torch.float16) for _ in range(3))
        mask = self.create_block_mask(lambda b_, h_, qi, ki: ki <= qi, None, None, l, l,
                                      device="cuda")
        with self.assertRaisesRegex(ValueError, "q is on cpu"):
            jitk.sparse_attn(q.cpu(), k, v, mask)
        with self.assertRaisesRegex(TypeError, "k has dtype torch.bfloat16 but q has"):
            jitk.sparse_attn(q, k.bfloat16(), v, mask)
        with self.assertRaisesRegex(ValueError, "mask must be one of"):
            jitk.sparse_attn(q, k, v, mask, mask="diagonal")
        on_cpu = types.SimpleNamespace(
            kv_num_blocks=mask.kv_num_blocks, kv_indices=mask.kv_indices.cpu(),
            full_kv_num_blocks=mask.full_kv_num_blocks, full_kv_indices=mask.full_kv_indices,
            BLOCK_SIZE=mask.BLOCK_SIZE)
        with self.assertRaisesRegex(ValueError, "block_mask.kv_indices must be a contiguous "
                                                "int32 tensor on cuda:0, got torch.int32 on cpu"):
            jitk.sparse_attn(q, k, v, on_cpu)
        want = jitk.sparse_attn(q, k, v, mask)  # and the good call still runs
        self.assertEqual(want.shape, q.shape)

    def test_a_reused_plan_launches_each_calls_tensors(self):
        from jitk._torch_ops import _thread_plans
        b, h, l, d = 1, 2, 384, 128
        mask = self.create_block_mask(lambda b_, h_, qi, ki: ki <= qi, None, None, l, l,
                                      device="cuda")
        calls = [[torch.randn(b, h, l, d, device="cuda", dtype=torch.float16) for _ in range(3)]
                 for _ in range(2)]
        # Heads and length swapped in memory: the last stride is still 1.
        calls.append([torch.randn(b, l, h, d, device="cuda", dtype=torch.float16).transpose(1, 2)]
                     + calls[0][1:])
        plans = _thread_plans()
        plans.clear()
        got = []
        for q, k, v in calls:
            got.append(jitk.sparse_attn(q, k, v, mask, mask="causal"))
            got.append(jitk.sparse_attn(q, k, v, mask, mask="causal", return_lse=True)[0])
        # One plan per layout of the tensors and per option: the second call
        # of each kind reused the first's plan with its own pointers.
        self.assertEqual(len(plans), 4)
        for i, (q, k, v) in enumerate(calls):
            for result in got[2 * i:2 * i + 2]:
                self.assert_matches_causal_sdpa(result, q, k, v, "call {}".format(i))

    def _replays_in_a_cuda_graph(self, l, d, dtype, warm_up):
        q, k, v = (torch.randn(2, 2, l, d, device="cuda", dtype=dtype) for _ in range(3))
        mask = self.create_block_mask(lambda b_, h_, qi, ki: ki <= qi, None, None, l, l,
                                      device="cuda")
        out = torch.empty_like(q)
        if warm_up:
            jitk.sparse_attn(q, k, v, mask, mask="causal", out=out)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            jitk.sparse_attn(q, k, v, mask, mask="causal", out=out)
        for _ in range(2):
            for t in (q, k, v):
                t.copy_(torch.randn_like(t))
            out.zero_()
            graph.replay()
            self.assert_matches_causal_sdpa(out, q, k, v, "sparse_attn in a graph l={}".format(l))

    def test_replays_in_a_cuda_graph_after_a_warm_up(self):
        self._replays_in_a_cuda_graph(512, 128, torch.float16, warm_up=True)

    def test_first_call_inside_a_cuda_graph_capture_replays(self):
        # A dtype and head dim no other test uses: the kernel compiles and
        # loads during the capture, outside the graph.
        self._replays_in_a_cuda_graph(640, 64, torch.bfloat16, warm_up=False)

    def test_a_split_decode_step_first_called_inside_a_capture_replays(self):
        # The split launch's scratch for the capture's stream is allocated
        # during the capture (outside the graph); both passes are captured.
        lk = 3000
        q = torch.randn(1, 4, 1, 64, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(1, 4, lk, 64, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        mask = self.create_block_mask(lambda b_, h_, qi, ki: qi >= 0, None, None, 1, lk,
                                      device="cuda")
        out = torch.empty_like(q)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            jitk.sparse_attn(q, k, v, mask, mask="none", out=out)
        for _ in range(2):  # new inputs in the captured buffers
            q.copy_(torch.randn_like(q))
            graph.replay()
            torch.cuda.synchronize()
            want = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(),
                                                                    v.double())
            r = jitk.parity(out, want, name="split decode replay", verbose=False)
            self.assertGreater(r["cosine"], 0.99999, r)

    def test_the_torch_example_runs(self):
        example = os.path.join(os.path.dirname(PYTHON_DIR), "examples", "sparse_attn_torch.py")
        run = run_python([example, "--length", "512", "--heads", "2"])
        self.assertEqual(run.returncode, 0, run.stdout[-2000:] + run.stderr[-2000:])
        self.assertIn("graph replay on new q matches an eager call: True", run.stdout)

    def test_launches_on_the_current_stream(self):
        from jitk._torch_ops import _current_stream
        default = torch.cuda.current_stream().cuda_stream or None
        self.assertEqual(_current_stream(torch, torch.cuda.current_device()), default)
        stream = torch.cuda.Stream()
        self.assertNotEqual(stream.cuda_stream, default)
        with torch.cuda.stream(stream):
            self.assertEqual(_current_stream(torch, torch.cuda.current_device()),
                             stream.cuda_stream)


if __name__ == "__main__":
    unittest.main()
