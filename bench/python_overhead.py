"""Host time of one Python call of a cached kernel (docs/performance.md): vector_add on "cuda:0"
against the mock driver (tests/mock_cuda: it runs nothing, so this is the host side only), three
DLPack arrays of device memory and the scalar inferred from their shape. The producer here is the
cheapest there is (one capsule, made once): the figure is ptxlua's side; a framework's own export
adds its cost per tensor (printed for PyTorch's exporter, on a CPU tensor).

  PTXLUA_LIBCUDA=build/tests/mock_cuda/libcuda.so.1 PTXLUA_LIBRARY=build/libptxlua.so \\
    PYTHONPATH=python /usr/bin/python3 bench/python_overhead.py [calls]
"""
import ctypes
import os
import sys
import time

import ptxlua

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
from test_ptxlua import FakeCudaArray  # noqa: E402  (a DLPack producer of mock device memory)

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
e = ptxlua.Engine(os.path.join(root, "kernels", "vector_add.lua"), N=1 << 20)
k = e.kernel("vector_add", "cuda:0")
mock = ctypes.CDLL(os.environ["PTXLUA_LIBCUDA"])
gp = ctypes.c_void_p()
mock.cuGetProcAddress_v2(b"cuMemAlloc", ctypes.byref(gp), 12000, ctypes.c_uint64(0), None)
alloc = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t)(gp.value)
arrays = []
for _ in range(3):
    p = ctypes.c_uint64()
    alloc(ctypes.byref(p), 4 << 20)
    arrays.append(FakeCudaArray(p.value, 1 << 20))


class Ready(FakeCudaArray):
    """The cheapest producer there is: one capsule made once (ptxlua never consumes it)."""

    def __dlpack__(self, stream=None):
        c = getattr(self, "_cap", None)
        if c is None:
            c = self._cap = FakeCudaArray.__dlpack__(self, stream)
        return c


arrays = [Ready(a.addr, a.n) for a in arrays]
x, y, out = arrays
for _ in range(200):
    k(x, y, out, stream=0)
# wall time, and the CPU time of this process (on a shared machine the other jobs stretch the
# first; the second is what a call costs the host)
best = cpu = None
for rep in range(5):
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(calls):
        k(x, y, out, stream=0)
    dt = (time.perf_counter() - t0) / calls * 1e6
    dc = (time.process_time() - c0) / calls * 1e6
    best = dt if best is None else min(best, dt)
    cpu = dc if cpu is None else min(cpu, dc)
print("python call, 3 DLPack arrays + inferred n, cached kernel: %.2f us (best of 5 x %d; CPU time %.2f us)"
      % (best, calls, cpu))
t0 = time.perf_counter()
for _ in range(calls):
    x.__dlpack__(stream=0)
print("  of which the bench's producer's __dlpack__ (3 per call): %.2f us each" % ((time.perf_counter() - t0) / calls * 1e6))
try:
    import torch
    import torch.utils.dlpack as tdl
    t = torch.zeros(1 << 10)
    t0 = time.perf_counter()
    for _ in range(calls):
        tdl.to_dlpack(t)
    print("  PyTorch's own exporter (to_dlpack, a CPU tensor): %.2f us a tensor" % ((time.perf_counter() - t0) / calls * 1e6))
except ImportError:
    pass
# the parts: the C launch alone (arguments as the last call left them), and Python's share
L = ptxlua._lib()
t0 = time.perf_counter()
for _ in range(calls):
    L.ptxlua_launch(k._h, None, None, ptxlua.SMEM_KERNEL, None, k._args, 4)
print("  of which ptxlua_launch through ctypes (the checks, the driver call): %.2f us"
      % ((time.perf_counter() - t0) / calls * 1e6))
