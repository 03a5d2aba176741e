"""Makes python/jitk importable from a source checkout (ctest sets
PYTHONPATH and JITK_LIBRARY; a plain `python3 -m unittest` run does not)."""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(REPO, "python")
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

import jitk  # noqa: E402


def library_or_skip(test):
    """Skips `test` (a TestCase) unless libjitk_c.so loads."""
    if not jitk.available():
        test.skipTest("libjitk_c.so not found ({}); build target jitk_c or set "
                      "JITK_LIBRARY".format(jitk.library_path()))


def gpu_devices():
    if not jitk.available():
        return []
    return jitk.discover()["devices"]


def torch_cuda():
    """torch when it is installed and sees a GPU, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None
