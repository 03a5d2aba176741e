"""python/jitk on a GPU without torch: device memory from the C API, a
launch on raw pointers, results checked on the host. Skipped without a GPU."""

import array
import random
import unittest

from _setup import gpu_devices, jitk, library_or_skip


class RawPointerTest(unittest.TestCase):
    def setUp(self):
        library_or_skip(self)
        if not gpu_devices():
            self.skipTest("needs a GPU (jitk.discover() lists no devices)")

    def test_scaled_add_on_device_arrays(self):
        n = 100003  # odd: vector body plus scalar tail
        rng = random.Random(7)
        x = array.array("f", (rng.uniform(-2, 2) for _ in range(n)))
        y = array.array("f", (rng.uniform(-2, 2) for _ in range(n)))
        dx, dy, dout = (jitk.DeviceArray(4 * n) for _ in range(3))
        dx.copy_from(x)
        dy.copy_from(y)
        kernel = jitk.get_kernel("scaled_add", jitk.shape_key("f32", {"n": n}))
        self.assertTrue(kernel.config.startswith("BLOCK="))
        self.assertEqual(kernel.info["device"]["ordinal"], 0)
        kernel.launch({"out": dout, "x": dx, "y": dy, "n": n, "scale": -0.75})
        jitk.synchronize()
        out = array.array("f")
        out.frombytes(dout.to_bytes())
        want = [a - 0.75 * b for a, b in zip(x, y)]
        r = jitk.parity(out, want, name="scaled_add f32 raw", verbose=False)
        self.assertLess(r["max_abs"], 1e-5)
        self.assertGreater(r["cosine"], 0.9999999)

    def test_launch_errors_name_the_argument(self):
        kernel = jitk.get_kernel("scaled_add", "f32;n=64")
        d = jitk.DeviceArray(256)
        with self.assertRaises(jitk.JitkError) as caught:
            kernel.launch({"out": d, "x": d, "y": d, "n": 64.0, "scale": 1.0})
        self.assertIn("'n' must be an integer", caught.exception.message)
        with self.assertRaises(jitk.JitkError) as caught:
            kernel.launch({"out": d, "x": d, "n": 64, "scale": 1.0})
        self.assertIn("'y'", caught.exception.message)


if __name__ == "__main__":
    unittest.main()
