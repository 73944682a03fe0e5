"""The Python package (python/ptxlua) in one process (torch is imported once): scripts, kernels,
templates, PTX, errors as exceptions at the script's line; kernels called on NumPy and PyTorch CPU
tensors on the emulator (in place, no copy), each tensor checked against the declaration first;
the CUDA path against the mock driver (tests/mock_cuda): a DLPack producer of device memory, the
address passed as it is, the stream named or the producer's. Run by ctest with Debian's python3."""
import ctypes
import os
import unittest

import numpy as np
import torch

import ptxlua

ROOT = os.environ.get("PTXLUA_ROOT", ".")
VADD = os.path.join(ROOT, "kernels", "vector_add.lua")
GEMM = os.path.join(ROOT, "kernels", "gemm.lua")
# a map over a pointer parameter (x, n x 64 floats), and one over a tensor whose shape is arithmetic
# over the scalars (Y, 2n x 64 bf16): each built by the launch from the tensor given
VIEWS = """local ptx = require 'ptxlua'
ptx.kernel { name = 'views', target = 'sm_90a',
  tensors = { Y = ptx.tensor('bf16', { 'n * 2', 64 }) },
  params = { { 'x', ptx.tensor('f32', { 'n', 64 }) },
             { 'xm', ptx.tensormap { of = 'x', box = { 32, 8 }, swizzle = '128B' } },
             { 'ym', ptx.tensormap { of = 'Y', box = { 64, 'n' } } }, { 'n', 'u32' } },
  grid = { 1 }, block = { 32 },
  body = function(t) ptx.ret() end }
"""


class Emulator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.e = ptxlua.Engine(VADD, N=1000)

    def test_script(self):
        self.assertEqual(self.e.kernels, ["vector_add"])
        ptx = self.e.ptx("vector_add")
        self.assertIn(".visible .entry vector_add(", ptx)
        self.assertIn("add.rn.f32", ptx)
        with ptxlua.Engine(VADD) as f:
            f.define("BLOCK", 64)
            self.assertIn(".maxntid 64, 1, 1", f.ptx())
            self.assertEqual(f.kernel("vector_add").dims()[1], (64, 1, 1))

    def test_numpy_in_place(self):
        x = np.arange(1000, dtype=np.float32)
        y = np.full(1000, 0.5, np.float32)
        big = np.zeros(1200, np.float32)
        out = big[100:1100]               # a view: the kernel writes the parent's memory
        self.e["vector_add"](x, y, out)   # n from the tensors' shape {n}
        np.testing.assert_array_equal(big[100:1100], x + y)
        self.assertEqual(big[99], 0)
        self.assertEqual(big[1100], 0)

    def test_torch_cpu(self):
        x = torch.arange(1000, dtype=torch.float32)
        y = torch.ones(1000)
        out = torch.zeros(1000)
        self.e["vector_add"](x, y, out, n=1000)
        self.assertTrue(bool((out == x + y).all()))

    def test_mismatches_raise_and_run_nothing(self):
        x = np.ones(1000, np.float32)
        out = np.zeros(1000, np.float32)
        cases = [
            ((x, x, out, 999), "argument 1 (x): a tensor of shape [1000], where the kernel declares shape {n} = [999]"),
            ((x.astype(np.float64), x, out), "argument 1 (x): a tensor of f64, where the kernel declares f32*"),
            ((np.ones(2000, np.float32)[::2], x, out),
             "argument 1 (x): a tensor with strides [2] (elements), where a pointer parameter reads it packed"),
            ((x.reshape(10, 100), x, out, 1000),
             "argument 1 (x): a tensor of shape [10, 100], where the kernel declares shape {n} = [1000]"),
        ]
        for args, msg in cases:
            with self.assertRaises(ptxlua.ArgumentError) as c:
                self.e["vector_add"](*args)
            self.assertIn(msg, str(c.exception))
            self.assertTrue(c.exception.file.endswith("kernels/vector_add.lua"))
            self.assertEqual(c.exception.line, 4)
        self.assertFalse(out.any())
        with self.assertRaises(ptxlua.ArgumentError) as c:
            self.e["vector_add"](x, x, out, m=3)
        self.assertIn("no parameter 'm'", str(c.exception))
        with self.assertRaises(ptxlua.ArgumentError):
            self.e["vector_add"](x, x, out, 1.5)

    def test_tma_gemm_takes_tensors(self):
        # kernels/gemm.lua declares A, B, C and maps over them: the call passes the tensors (bf16,
        # PyTorch's CPU memory), the launch builds the maps; by position, by the tensors' names, a
        # strided view (the map takes its strides)
        e = ptxlua.Engine(GEMM, M=72, N=136, K=64, SMS=2, CLUSTER=1, BN=64)
        k = e.kernel("gemm")
        self.assertEqual([q["views"] for q in k.params], ["A", "B", "C"])
        a = (torch.arange(72 * 64).reshape(72, 64) % 5 - 2).to(torch.bfloat16)
        b = (torch.arange(136 * 64).reshape(136, 64) // 64 % 8 - 3).to(torch.bfloat16)
        c = torch.zeros(72, 136, dtype=torch.bfloat16)
        want = a.float() @ b.float().T              # whole numbers below 2^8: exact in bf16
        e["gemm"](a, b, c)
        self.assertTrue(torch.equal(c.float(), want))
        c.zero_()
        e["gemm"](C=c, B=b, A=a)
        self.assertTrue(torch.equal(c.float(), want))
        wide = torch.full((72, 96), 1000.0, dtype=torch.bfloat16)
        wide[:, :64] = a
        c.zero_()
        e["gemm"](wide[:, :64], b, c)
        self.assertTrue(torch.equal(c.float(), want))
        with self.assertRaises(ptxlua.ArgumentError) as cm:
            e["gemm"](a[:, :32], b, c)
        self.assertIn("argument 1 (A_map): tensor A: a tensor of shape [72, 32], where the kernel declares "
                      "shape {M, K} = [72, 64]", str(cm.exception))
        with self.assertRaises(ptxlua.ArgumentError) as cm:
            e["gemm"](a.float(), b, c)
        self.assertIn("argument 1 (A_map): tensor A: a tensor of f32, where the kernel declares bf16*", str(cm.exception))
        with self.assertRaises(ptxlua.ArgumentError) as cm:
            e["gemm"](a.T.contiguous().T, b, c)
        self.assertIn("a tensor map needs its innermost dimension contiguous", str(cm.exception))
        e.close()

    def test_maps_filled_from_their_tensors(self):
        # xm views pointer x: left out, it is built from x; n from x's shape; Y's shape {n * 2, 64}
        # checked against n
        e = ptxlua.Engine().load_string(VIEWS, "views.lua")
        k = e.kernel("views")
        x = torch.zeros(8, 64)
        y = torch.zeros(16, 64, dtype=torch.bfloat16)
        k(x, Y=y)
        k(x, ym=y, n=8)
        with self.assertRaises(ptxlua.ArgumentError) as cm:
            k(x, Y=torch.zeros(15, 64, dtype=torch.bfloat16))
        self.assertIn("argument 3 (ym): tensor Y: a tensor of shape [15, 64], where the kernel declares shape "
                      "{n * 2, 64} = [16, 64]", str(cm.exception))
        self.assertEqual(cm.exception.file, "views.lua")
        with self.assertRaises(ptxlua.ArgumentError) as cm:
            k(x)
        self.assertIn("no value for parameter 3 (ym): pass tensor Y", str(cm.exception))
        e.close()

    def test_script_errors(self):
        bad = "local ptx = require 'ptxlua'\nptx.kernel { name = 'k', body = function()\n  ptx.add.u32(1)\nend }\n"
        with self.assertRaises(ptxlua.Error) as c:
            ptxlua.Engine().load_string(bad, "bad.lua").ptx()
        self.assertEqual((c.exception.file, c.exception.line), ("bad.lua", 3))
        self.assertTrue(str(c.exception).startswith("bad.lua:3: error: "))
        with self.assertRaises(ptxlua.Error) as c:
            ptxlua.Engine("no/such/file.lua")
        with self.assertRaises(ptxlua.Error) as c:
            ptxlua.Engine(VADD).kernel("nosuch")
        self.assertIn("no kernel named 'nosuch'", str(c.exception))

    def test_check(self):
        if not (os.path.exists("/usr/local/cuda/bin/ptxas") or any(
                os.path.exists(os.path.join(p, "ptxas")) for p in os.environ.get("PATH", "").split(":"))):
            self.skipTest("no ptxas")
        report = self.e.check("vector_add")
        self.assertIn("vector_add", report)
        self.assertIn("regs", report)


# ---- the GPU path against the mock driver ----------------------------------------------------------
class _DLDevice(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64)]


class _DLManaged(ctypes.Structure):
    _fields_ = [("t", _DLTensor), ("ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype, _new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeCudaArray:
    """A DLPack producer of (mock) CUDA memory: f32, 1-D, at `addr`; records the streams asked for."""

    def __init__(self, addr, n, device=0):
        self.addr, self.n, self.device, self.streams, self._m = addr, n, device, [], []
        self._shape = (ctypes.c_int64 * 1)(n)
        self.shape = (n,)

    def __dlpack_device__(self):
        return (2, self.device)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        m = _DLManaged()
        m.t.data, m.t.device.type, m.t.device.id, m.t.ndim = self.addr, 2, self.device, 1
        m.t.code, m.t.bits, m.t.lanes, m.t.shape = 2, 32, 1, self._shape
        self._m.append(m)                 # alive with the producer (no deleter)
        return _new_capsule(ctypes.addressof(m), b"dltensor", None)


_set_name = ctypes.pythonapi.PyCapsule_SetName
_set_name.restype, _set_name.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_USED = ctypes.c_char_p(b"used_dltensor")   # alive as long as the capsules named with it


class ConsumedArray(FakeCudaArray):
    """A producer whose capsule a consumer has already taken (renamed "used_dltensor")."""

    def __dlpack__(self, stream=None):
        cap = FakeCudaArray.__dlpack__(self, stream)
        _set_name(cap, _USED)
        return cap


class MockLaunch(ctypes.Structure):
    _fields_ = [("func", ctypes.c_char * 256), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("cluster", ctypes.c_uint * 3), ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("param_size", ctypes.c_uint32), ("params", ctypes.c_ubyte * 4096), ("cluster_attr", ctypes.c_int)]


@unittest.skipUnless(os.environ.get("PTXLUA_MOCK_LIBCUDA"), "PTXLUA_MOCK_LIBCUDA is not set (run through ctest)")
class MockGPU(unittest.TestCase):
    def test_launch_on_device_memory(self):
        mock = ctypes.CDLL(os.environ["PTXLUA_MOCK_LIBCUDA"])
        mock.ptxmock_last_launch.restype = ctypes.POINTER(MockLaunch)
        e = ptxlua.Engine(VADD, N=1000)
        k = e.kernel("vector_add", "cuda:0")       # opens the device: its context is current
        # device memory from the (mock) driver itself, as a framework would have it
        gp = ctypes.c_void_p()
        mock.cuGetProcAddress_v2(b"cuMemAlloc", ctypes.byref(gp), 12000, ctypes.c_uint64(0), None)
        alloc = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t)(gp.value)
        addrs = []
        for _ in range(3):
            p = ctypes.c_uint64()
            self.assertEqual(alloc(ctypes.byref(p), 4000), 0)
            addrs.append(p.value)
        x, y, out = (FakeCudaArray(a, 1000) for a in addrs)
        n0 = mock.ptxmock_launch_count()
        e["vector_add"](x, y, out, stream=0x7000)  # dispatched to cuda:0 by the tensors' device
        self.assertEqual(mock.ptxmock_launch_count(), n0 + 1)
        last = mock.ptxmock_last_launch().contents
        self.assertEqual(last.func, b"vector_add")
        self.assertEqual(last.stream, 0x7000)
        got = [int.from_bytes(bytes(last.params[8 * i:8 * i + 8]), "little") for i in range(3)]
        self.assertEqual(got, addrs)               # the arrays' own memory: no copy
        self.assertEqual(x.streams[-1], 0x7000)    # the producer was told the consumer's stream
        # no stream named: the producer's current stream (none known here: the default, DLPack's 1)
        k(x, y, out)
        self.assertIsNone(mock.ptxmock_last_launch().contents.stream)
        self.assertEqual(x.streams[-1], 1)
        # a tensor of another device, and host memory, refused before the driver sees a launch
        with self.assertRaises(ptxlua.ArgumentError) as c:
            k(x, FakeCudaArray(addrs[1], 1000, device=1), out)
        self.assertIn("argument 2 (y): a tensor in CUDA memory of device 1, where the kernel runs on cuda:0", str(c.exception))
        host = np.zeros(1000, np.float32)
        with self.assertRaises(ptxlua.ArgumentError) as c:
            k(x, y, FakeCudaArray(host.ctypes.data, 1000))
        self.assertIn("argument 3 (out): the driver knows", str(c.exception))
        with self.assertRaises(ptxlua.ArgumentError) as c:
            k(x, y, host)
        self.assertIn("argument 3 (out): a tensor in CPU memory, where the kernel runs on cuda:0", str(c.exception))
        self.assertEqual(mock.ptxmock_launch_count(), n0 + 2)
        # the call writes each argument's words (type, value) into the argument array: the scalar
        # passed, then left out (from x's shape), then by name; a value the shapes disagree with is
        # seen by the check
        k(x, y, out, 1000)
        self.assertEqual(bytes(mock.ptxmock_last_launch().contents.params[24:28]), (1000).to_bytes(4, "little"))
        k(x, y, out=out, n=1000)
        self.assertEqual(bytes(mock.ptxmock_last_launch().contents.params[24:28]), (1000).to_bytes(4, "little"))
        with self.assertRaises(ptxlua.ArgumentError) as c:
            k(x, y, out, 999)
        self.assertIn("declares shape {n} = [999]", str(c.exception))
        k(x, y, out)
        # a capsule of a name seen before, then consumed ("used_dltensor"): refused, not read
        consumed = ConsumedArray(addrs[2], 1000)
        with self.assertRaises(ptxlua.ArgumentError) as c:
            k(x, y, consumed)
        self.assertIn("already consumed", str(c.exception))
        self.assertEqual(mock.ptxmock_launch_count(), n0 + 5)
        e.close()

    def test_maps_built_by_the_driver(self):
        # a map over a pointer parameter, built by cuTensorMapEncodeTiled from the array's address
        # and shape: the mock keeps the arguments of its last encode
        mock = ctypes.CDLL(os.environ["PTXLUA_MOCK_LIBCUDA"])
        mock.ptxmock_last_tiled.restype = ctypes.POINTER(MockTiled)
        e = ptxlua.Engine().load_string(VIEWS_1D, "views1d.lua")
        k = e.kernel("views1d", "cuda:0")
        gp = ctypes.c_void_p()
        mock.cuGetProcAddress_v2(b"cuMemAlloc", ctypes.byref(gp), 12000, ctypes.c_uint64(0), None)
        alloc = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t)(gp.value)
        p = ctypes.c_uint64()
        self.assertEqual(alloc(ctypes.byref(p), 4096), 0)
        x = FakeCudaArray(p.value, 1000)
        n0 = mock.ptxmock_launch_count()
        k(x)                                       # xm from x, n from x's shape
        self.assertEqual(mock.ptxmock_launch_count(), n0 + 1)
        t = mock.ptxmock_last_tiled().contents
        self.assertEqual((t.dtype, t.rank, t.addr, t.dims[0], t.box[0]), (7, 1, p.value, 1000, 32))
        with self.assertRaises(ptxlua.ArgumentError) as c:
            k(x, xm=FakeCudaArray(p.value, 999))
        self.assertIn("argument 2 (xm): tensor x: a tensor of shape [999], where the kernel declares shape {n} = [1000]",
                      str(c.exception))
        self.assertEqual(mock.ptxmock_launch_count(), n0 + 1)
        e.close()


VIEWS_1D = """local ptx = require 'ptxlua'
ptx.kernel { name = 'views1d', target = 'sm_90a',
  params = { { 'x', ptx.tensor('f32', { 'n' }) }, { 'xm', ptx.tensormap { of = 'x', box = { 32 } } },
             { 'n', 'u32' } },
  grid = { 1 }, block = { 32 },
  body = function(t) ptx.ret() end }
"""


class MockTiled(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_uint), ("addr", ctypes.c_uint64),
                ("dims", ctypes.c_uint64 * 5), ("strides", ctypes.c_uint64 * 4), ("box", ctypes.c_uint * 5),
                ("estr", ctypes.c_uint * 5), ("interleave", ctypes.c_int), ("swizzle", ctypes.c_int),
                ("l2", ctypes.c_int), ("oob", ctypes.c_int)]


if __name__ == "__main__":
    unittest.main()
