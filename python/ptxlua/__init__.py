"""ptxlua from Python: ctypes over the installed libptxlua, standard library only.

    import ptxlua
    eng = ptxlua.Engine("kernels/vector_add.lua", N=1000)
    eng.kernels                       # ['vector_add']
    print(eng.ptx("vector_add"))
    eng["vector_add"](x, y, out)      # x, y, out: anything with __dlpack__; n from their shape

A kernel runs where its tensors are: CPU tensors (NumPy, PyTorch) on the emulator ("emu"), CUDA
arrays (PyTorch, CuPy, JAX) on their GPU ("cuda:N"), on the array's current stream. Tensors are
passed by address (DLPack, no copy) and checked against the kernel's declarations before anything
runs. A tensormap parameter that declares the tensor it views takes that tensor (at the map's
position, or by the tensor's name), and the launch builds the map. Every error is a ptxlua.Error
carrying the script's file and line.
"""
import ctypes
import ctypes.util
import os
import struct
import sys

__all__ = ["Engine", "Kernel", "Error", "ArgumentError", "TensorMap", "library_path"]
__version__ = "0.1.0"

OK, ERROR, NOMEM, IO, MISUSE = 0, 1, 2, 3, 4
(A_BUFFER, A_ADDRESS, A_TENSORMAP, A_BYTES, A_U8, A_U16, A_U32, A_U64, A_S8, A_S16, A_S32, A_S64,
 A_F16, A_BF16, A_F32, A_F64, A_DLPACK) = range(1, 18)
P_POINTER, P_SCALAR, P_TENSORMAP, P_BYTES = 1, 2, 3, 4
SMEM_KERNEL = 0xFFFFFFFF
JSON = 0x200
kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13


class Error(Exception):
    """An error of ptxlua: str() is "file:line: error: message"; .file and .line where it points."""

    def __init__(self, message, file=None, line=0, code=ERROR):
        super().__init__(message)
        self.message, self.file, self.line, self.code = message, file, line, code


class ArgumentError(Error, ValueError):
    """A call that does not fit what the kernel declares (PTXLUA_MISUSE): nothing ran."""


# ---- the library ---------------------------------------------------------------------------------
def library_path():
    """Where libptxlua is: $PTXLUA_LIBRARY, the path `cmake --install` recorded, else the loader's."""
    p = os.environ.get("PTXLUA_LIBRARY")
    if p:
        return p
    try:
        from . import _config  # written by cmake --install
        here = os.path.dirname(os.path.abspath(__file__))
        cand = os.path.normpath(os.path.join(here, _config.LIBRARY))
        if os.path.exists(cand):
            return cand
    except ImportError:
        pass
    return ctypes.util.find_library("ptxlua") or "libptxlua.so.0"


class _V(ctypes.Union):
    _fields_ = [("p", ctypes.c_void_p), ("u", ctypes.c_uint64), ("s", ctypes.c_int64), ("f", ctypes.c_double)]


class _Arg(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("size", ctypes.c_size_t), ("v", _V)]


class _LaunchArgs(ctypes.Structure):     # ptxlua_launch_args
    _fields_ = [("kernel", ctypes.c_void_p), ("grid", ctypes.c_void_p), ("block", ctypes.c_void_p),
                ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p), ("args", ctypes.c_void_p),
                ("nargs", ctypes.c_int)]


class _Param(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("dtype", ctypes.c_char_p),
                ("offset", ctypes.c_uint), ("size", ctypes.c_uint), ("align", ctypes.c_uint)]


_L = None


def _lib():
    global _L
    if _L is not None:
        return _L
    try:
        L = ctypes.CDLL(library_path())
    except OSError as e:
        raise Error("cannot load libptxlua (%s): set PTXLUA_LIBRARY to its path" % e) from None
    vp, cp, ci, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t
    sigs = {
        "ptxlua_open": (vp, []), "ptxlua_close": (None, [vp]), "ptxlua_load_file": (ci, [vp, cp]),
        "ptxlua_load_string": (ci, [vp, cp, cp, sz]), "ptxlua_kernel_count": (ci, [vp]),
        "ptxlua_kernel_name": (cp, [vp, ci]), "ptxlua_define": (ci, [vp, cp, cp]), "ptxlua_set_arch": (ci, [vp, cp]),
        "ptxlua_ptx": (ci, [vp, cp, ci, ctypes.POINTER(vp), ctypes.POINTER(sz)]),
        "ptxlua_check": (ci, [vp, cp, ci, ctypes.POINTER(vp)]), "ptxlua_free": (None, [vp]),
        "ptxlua_errmsg": (cp, [vp]), "ptxlua_errfile": (cp, [vp]), "ptxlua_errline": (ci, [vp]),
        "ptxlua_device_open": (ci, [vp, cp, ctypes.POINTER(vp)]), "ptxlua_device_sync": (ci, [vp]),
        "ptxlua_device_describe": (cp, [vp]),
        "ptxlua_kernel_prepare": (ci, [vp, cp, ctypes.POINTER(vp)]), "ptxlua_kernel_free": (None, [vp]),
        "ptxlua_kernel_param_count": (ci, [vp]), "ptxlua_kernel_param": (ci, [vp, ci, ctypes.POINTER(_Param)]),
        "ptxlua_kernel_param_shape": (ci, [vp, ci, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ci), ci]),
        "ptxlua_kernel_param_view": (ci, [vp, ci, ctypes.POINTER(cp), ctypes.POINTER(ci)]),
        "ptxlua_kernel_dims": (ci, [vp] + [ctypes.POINTER(ctypes.c_uint)] * 4),
        "ptxlua_launch": (ci, [vp, vp, vp, ctypes.c_uint, vp, vp, ci]),
        "ptxlua_launch_block": (ci, [vp]),
        "ptxlua_buffer_wrap_dlpack": (ci, [vp, vp, ctypes.POINTER(vp)]), "ptxlua_buffer_free": (None, [vp]),
        "ptxlua_buffer_address": (ctypes.c_uint64, [vp]),
        "ptxlua_tensormap_encode_address": (ci, [vp, ctypes.c_uint64, cp, ci, vp, vp, vp, cp, vp]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(L, name)
        f.restype, f.argtypes = res, args
    _L = L
    return L


# ---- DLPack capsules -----------------------------------------------------------------------------
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
_capsule_ok = ctypes.pythonapi.PyCapsule_IsValid
_capsule_ok.restype, _capsule_ok.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]


def _slow_pointer(cap):
    if not _capsule_ok(cap, b"dltensor"):
        raise ArgumentError("__dlpack__ returned no \"dltensor\" capsule (already consumed?)")
    return _get_pointer(cap, b"dltensor")


# CPython's capsule: the object header, then the pointer, then the name. Read directly (a ctypes
# call costs a microsecond), after checking once that this interpreter lays it out so; a capsule
# named otherwise ("used_dltensor": consumed) takes the checked path
_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype, _new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAME = ctypes.c_char_p(b"dltensor")
_probe = _new_capsule(0x1234560, _NAME, None)
_CAPSULE = type(_probe)
_HEAD = object.__basicsize__
_FAST = (sys.implementation.name == "cpython" and _HEAD % 8 == 0
         and ctypes.c_void_p.from_address(id(_probe) + _HEAD).value == _slow_pointer(_probe)
         and ctypes.c_void_p.from_address(id(_probe) + _HEAD + 8).value == ctypes.cast(_NAME, ctypes.c_void_p).value)
_NAME_ADDR = ctypes.cast(_NAME, ctypes.c_void_p).value
del _probe


# All of memory as 64-bit words, for reading a capsule's two words without making a ctypes object
# per read (an index of a ctypes array gives a plain int): the capsule's name pointer is looked up
# in the names already seen to be "dltensor" (producers name their capsules with a string
# literal, which lives as long as their library), else checked by the C API and remembered.
_WORDS = (ctypes.c_uint64 * (1 << 59)).from_address(0) if _FAST else None
_DLTENSOR_NAMES = set()


def _capsule_pointer(cap):
    """The DLManagedTensor* of a "dltensor" capsule (borrowed: the capsule stays its owner)."""
    if _FAST and type(cap) is _CAPSULE:
        w = (id(cap) + _HEAD) >> 3
        if _WORDS[w + 1] in _DLTENSOR_NAMES:
            return _WORDS[w]
        name = ctypes.c_char_p.from_address(id(cap) + _HEAD + 8).value
        if name == b"dltensor":
            _DLTENSOR_NAMES.add(_WORDS[w + 1])
            return _WORDS[w]
    return _slow_pointer(cap)


def _device_of(obj):
    """("emu" | "cuda:N", DLPack device type) of an object with __dlpack_device__."""
    t, i = obj.__dlpack_device__()
    t = int(t)
    if t in (kDLCPU, kDLCUDAHost):
        return "emu", t
    if t in (kDLCUDA, kDLCUDAManaged):
        return "cuda:%d" % int(i), t
    raise ArgumentError("a tensor on DLPack device type %d: ptxlua runs on CPU memory (\"emu\") or CUDA" % t)


def _current_stream(obj, ordinal):
    """The current stream of obj's framework on its device, as an integer handle (0: the default)."""
    mod = type(obj).__module__.split(".")[0]
    m = sys.modules.get(mod)
    if mod == "torch" and m is not None:
        raw = getattr(m._C, "_cuda_getCurrentRawStream", None)
        return raw(ordinal) if raw else m.cuda.current_stream(ordinal).cuda_stream
    if mod == "cupy" and m is not None:
        return m.cuda.get_current_stream().ptr
    return 0


def _export(obj, stream):
    """A DLPack capsule of obj; for a CUDA launch on `stream` (the producer orders its work before)."""
    mod = type(obj).__module__
    if mod.startswith("torch") and stream is None:
        import torch.utils.dlpack as tdl  # the C exporter: no stream logic on the CPU
        return tdl.to_dlpack(obj)
    if stream is None:
        return obj.__dlpack__()
    # DLPack's stream numbering: 1 is the legacy default stream (our 0)
    return obj.__dlpack__(stream=stream if stream else 1)


# ---- scalars -------------------------------------------------------------------------------------
def _f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def _bf16_bits(x):
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    if (b & 0x7F800000) == 0x7F800000 and b & 0x7FFFFF:
        return (b >> 16) | 0x40                        # NaN stays NaN
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF  # round to nearest even


def _scalar_setter(dtype):
    """(argument type, setter(arg, value)) of a scalar parameter of PTX type dtype."""
    kind, bits = dtype[0], int("".join(c for c in dtype if c.isdigit()) or 0)
    if dtype == "bf16":
        return A_BF16, lambda a, v: setattr(a.v, "u", _bf16_bits(float(v)))
    if kind == "f":
        if bits == 16:
            return A_F16, lambda a, v: setattr(a.v, "u", _f16_bits(float(v)))
        return (A_F32 if bits == 32 else A_F64), lambda a, v: setattr(a.v, "f", float(v))
    t = {8: A_U8, 16: A_U16, 32: A_U32, 64: A_U64}.get(bits, A_U64)
    if kind == "s":
        t = {8: A_S8, 16: A_S16, 32: A_S32, 64: A_S64}.get(bits, A_S64)
        return t, lambda a, v: setattr(a.v, "s", _int(v))
    return t, lambda a, v: setattr(a.v, "u", _int(v) & ((1 << 64) - 1))


def _int(v):
    if isinstance(v, float):
        if v != int(v):
            raise TypeError("a fraction for an integer parameter")
        return int(v)
    return int(v)


_DLPACK, _TORCH, _MAP, _OTHER = 1, 2, 3, 4
_INT_ARGS = {A_U8, A_U16, A_U32, A_U64, A_S8, A_S16, A_S32, A_S64}
_HOW = {}                                   # type -> how an argument of it is passed


def _classify(tp):
    if tp.__module__.split(".")[0] == "torch" and hasattr(tp, "__dlpack__"):
        return _TORCH
    if hasattr(tp, "__dlpack__"):
        return _DLPACK
    if tp is TensorMap:
        return _MAP
    return _OTHER


def _to_dlpack(t):
    global _to_dlpack
    import torch.utils.dlpack as tdl
    _to_dlpack = tdl.to_dlpack
    return _to_dlpack(t)


class TensorMap:
    """A TMA tensor map over a tensor's memory (Kernel.tensormap), passed to a tensormap parameter."""

    def __init__(self, raw, keep):
        self._raw, self._keep = raw, keep

    @property
    def bytes(self):
        return bytes(self._raw)


# ---- kernels -------------------------------------------------------------------------------------
class Kernel:
    """A kernel prepared on one device (traced with the engine's templates, assembled, loaded once)."""

    def __init__(self, engine, name, device):
        L = _lib()
        self.engine, self.name, self.device = engine, name, device
        self._dev = engine._device(device)
        h = ctypes.c_void_p()
        engine._ck(L.ptxlua_kernel_prepare(self._dev, name.encode(), ctypes.byref(h)))
        self._h = h
        self._cuda = device.startswith("cuda")
        self._ordinal = int(device.split(":")[1]) if self._cuda else 0
        n = L.ptxlua_kernel_param_count(h)
        self.params = []
        p = _Param()
        dims, names = (ctypes.c_int64 * 8)(), (ctypes.c_int * 8)()
        tname, tparam = ctypes.c_char_p(), ctypes.c_int()
        for i in range(n):
            L.ptxlua_kernel_param(h, i, ctypes.byref(p))
            info = {"name": p.name.decode(), "kind": p.kind, "dtype": p.dtype.decode(), "shape": None,
                    "views": None, "views_param": -1}
            if p.kind in (P_POINTER, P_TENSORMAP):
                r = L.ptxlua_kernel_param_shape(h, i, dims, names, 8)
                if r >= 0:
                    info["shape"] = [(dims[j], names[j]) for j in range(min(r, 8))]
            if p.kind == P_TENSORMAP and L.ptxlua_kernel_param_view(h, i, ctypes.byref(tname), ctypes.byref(tparam)) == OK:
                if tname.value:         # the tensor the map is built from, by the launch
                    info["views"], info["views_param"] = tname.value.decode(), tparam.value
            self.params.append(info)
        self._np = n
        self._index = {q["name"]: i for i, q in enumerate(self.params)}
        # a map's tensor by its name (A for A_map), and maps that take the tensor another argument is:
        # a map over a pointer parameter takes that parameter's tensor, a second map over one tensor
        # the first one's
        self._fill = {}
        first = {}
        for i, q in enumerate(self.params):
            t = q["views"]
            if t is None:
                continue
            if q["views_param"] >= 0:
                self._fill[i] = q["views_param"]
            elif t in first:
                self._fill[i] = first[t]
            else:
                first[t] = i
                self._index.setdefault(t, i)
        self._args = (_Arg * max(n, 1))()
        # wrappers made once: indexing a ctypes array (A[i], A[i].v) makes a new object each time
        self._a = [self._args[i] for i in range(n)]
        self._av = [a.v for a in self._a]
        self._launch = L.ptxlua_launch
        self._setters = [_scalar_setter(q["dtype"]) if q["kind"] == P_SCALAR else None for q in self.params]
        # scalars a tensor's extent names: filled from the tensor when the call leaves them out (a
        # map's: from the tensor given for it)
        self._implied = {}
        for i, q in enumerate(self.params):
            for d, (_, j) in enumerate(q["shape"] or []):
                if j >= 0 and j not in self._implied:
                    self._implied[j] = (i, d)
        # the argument array as 64-bit words (a ptxlua_arg is 24 bytes: type, size, value), its address
        # made once, and the argument type of each integer scalar (0: not one)
        assert ctypes.sizeof(_Arg) == 24
        self._w = (ctypes.c_uint64 * (3 * max(n, 1))).from_buffer(self._args)
        self._argp = ctypes.c_void_p(ctypes.addressof(self._args))
        self._ints = [s[0] if s is not None and s[0] in _INT_ARGS else 0 for s in self._setters]
        self._grid = (ctypes.c_uint * 3)()
        self._block = (ctypes.c_uint * 3)()
        # the launch's one argument, filled once: a call writes the words it changes (grid, block,
        # smem, stream at the offsets the struct gives them)
        la = self._largs = _LaunchArgs(h.value, None, None, SMEM_KERNEL, None, ctypes.addressof(self._args), n)
        self._lw = (ctypes.c_uint64 * (ctypes.sizeof(la) // 8)).from_buffer(la)
        self._lpos = tuple(getattr(_LaunchArgs, f).offset // 8 for f in ("grid", "block", "smem", "stream"))
        self._lp = ctypes.c_void_p(ctypes.addressof(la))
        self._launch_block = L.ptxlua_launch_block

    def __repr__(self):
        return "<ptxlua.Kernel %s on %s>" % (self.name, self.device)

    def tensormap(self, obj, box, swizzle="none", dtype=None):
        """A tiled tensor map over obj (a DLPack tensor on this kernel's device): dims and byte
        strides from its shape and strides (innermost first, as the driver takes them), `box` the
        tile one copy moves, innermost first."""
        L = _lib()
        cap = _export(obj, None if not self._cuda else _current_stream(obj, self._ordinal))
        mt = _capsule_pointer(cap)
        buf = ctypes.c_void_p()
        self.engine._ck(L.ptxlua_buffer_wrap_dlpack(self._dev, mt, ctypes.byref(buf)))
        t = _DLTensor.from_address(mt)
        nd = t.ndim
        esize = t.bits * t.lanes // 8
        shape = [t.shape[i] for i in range(nd)]
        strides = [t.strides[i] for i in range(nd)] if t.strides else None
        if strides is None:
            strides, s = [0] * nd, 1
            for i in range(nd - 1, -1, -1):
                strides[i], s = s, s * shape[i]
        dims = (ctypes.c_uint64 * nd)(*reversed(shape))
        st = (ctypes.c_uint64 * max(nd - 1, 1))(*[strides[i] * esize for i in range(nd - 2, -1, -1)])
        bx = (ctypes.c_uint32 * nd)(*box)
        dt = dtype or _dl_name(t.code, t.bits)
        raw = ctypes.create_string_buffer(192)
        at = (ctypes.addressof(raw) + 63) & ~63
        rc = L.ptxlua_tensormap_encode_address(self._dev, L.ptxlua_buffer_address(buf), dt.encode(), nd, dims, st, bx,
                                               swizzle.encode(), at)
        if rc:
            L.ptxlua_buffer_free(buf)
            self.engine._ck(rc)
        out = (ctypes.c_ubyte * 128).from_address(at)
        keep = _BufferKeeper(self.engine, buf, cap, obj)
        return TensorMap(out, (raw, keep))

    def _bind(self, args, kw):
        """The values in parameter order from positional and keyword arguments (None: not given)."""
        n = self._np
        if len(args) > n:
            raise ArgumentError("%s takes %d arguments, got %d" % (self.name, n, len(args)))
        vals = list(args) + [None] * (n - len(args))
        for key, v in kw.items():
            i = self._index.get(key)
            if i is None:
                raise ArgumentError("%s has no parameter '%s' (its parameters: %s)"
                                    % (self.name, key, ", ".join(q["name"] for q in self.params)))
            if i < len(args):
                raise ArgumentError("%s: parameter '%s' given twice" % (self.name, key))
            vals[i] = v
        return vals

    def _implied_value(self, i, vals):
        """A scalar left out: the extent of the tensor that names it; a map left out: the tensor it
        views, given for another parameter."""
        if i in self._fill:
            v = vals[self._fill[i]]
            if v is not None:
                return v
            raise ArgumentError("%s: no value for parameter %d (%s): pass tensor %s"
                                % (self.name, i + 1, self.params[i]["name"], self.params[i]["views"]))
        if i in self._implied:
            ti, d = self._implied[i]
            t = vals[ti]
            if t is None and ti in self._fill:
                t = vals[self._fill[ti]]
            if t is not None and hasattr(t, "shape"):
                return int(t.shape[d])
        if self.params[i]["views"]:
            raise ArgumentError("%s: no value for parameter %d (%s): pass tensor %s"
                                % (self.name, i + 1, self.params[i]["name"], self.params[i]["views"]))
        raise ArgumentError("%s: no value for parameter %d (%s)" % (self.name, i + 1, self.params[i]["name"]))

    def __call__(self, *args, stream=None, grid=None, block=None, smem=SMEM_KERNEL, **kw):
        n = self._np
        vals = args if not kw and len(args) == n else self._bind(args, kw)
        auto = stream is None                 # the producer's current stream: no ordering to ask for
        cuda = self._cuda
        if cuda and auto:
            first = next((v for v in vals if hasattr(v, "__dlpack__")), None)
            stream = _current_stream(first, self._ordinal) if first is not None else 0
        dls = (stream if stream else 1) if cuda else None   # DLPack's numbering: 1 = legacy default
        # the arguments go straight into the ptxlua_arg array's words (W: type at 3i, value at 3i+2);
        # a kind with more to it (a float, bytes, a map) through its ctypes fields
        W, keep, ints, fast, fill = self._w, [], self._ints, _FAST, self._fill
        for i in range(n):
            v = vals[i]
            if v is None:
                v = self._implied_value(i, vals)
            if fill and i in fill:            # the tensor of an earlier argument: its one export
                j = fill[i]
                if j < i and (vals[j] is v or vals[j] is None) and W[3 * j] == A_DLPACK:
                    W[3 * i], W[3 * i + 2] = A_DLPACK, W[3 * j + 2]
                    continue
            tp = type(v)
            how = _HOW.get(tp)
            if how is None:
                how = _HOW[tp] = _classify(tp)
            if how <= _TORCH:
                if how == _TORCH and (auto or not cuda):
                    cap = _to_dlpack(v)           # PyTorch's C exporter; we launch on its current stream
                elif cuda:
                    try:
                        cap = v.__dlpack__(stream=dls)
                    except (RuntimeError, BufferError, TypeError, ValueError):
                        cap = v.__dlpack__()      # a CPU array on a GPU: the check says so
                else:
                    cap = v.__dlpack__()
                keep.append(cap)
                W[3 * i] = A_DLPACK
                if fast and type(cap) is _CAPSULE:    # _capsule_pointer, inlined
                    c = (id(cap) + _HEAD) >> 3
                    W[3 * i + 2] = _WORDS[c] if _WORDS[c + 1] in _DLTENSOR_NAMES else _capsule_pointer(cap)
                else:
                    W[3 * i + 2] = _capsule_pointer(cap)
            elif tp is int and ints[i]:           # an integer scalar: its bits
                W[3 * i] = ints[i]
                W[3 * i + 2] = v & 0xFFFFFFFFFFFFFFFF
            else:
                self._slow_arg(i, v, how, keep)
        LW, (pg, pb, ps, pst) = self._lw, self._lpos
        if grid is not None:
            g = self._grid
            gg = tuple(grid) + (1, 1)
            g[0], g[1], g[2] = gg[0], gg[1], gg[2]
            LW[pg] = ctypes.addressof(g)
        else:
            LW[pg] = 0
        if block is not None:
            b = self._block
            bb = tuple(block) + (1, 1)
            b[0], b[1], b[2] = bb[0], bb[1], bb[2]
            LW[pb] = ctypes.addressof(b)
        else:
            LW[pb] = 0
        LW[ps] = smem & 0xFFFFFFFF              # the word's high half is padding
        LW[pst] = stream or 0
        rc = self._launch_block(self._lp)
        if rc:
            self.engine._ck(rc)
        # keep: the capsules die here; their deleters tell the producer the borrow is over (on CUDA
        # the launch is queued on the array's stream, which orders the producer's later work after)

    def _slow_arg(self, i, v, how, keep):
        a = self._a[i]
        if how == _MAP:
            a.type, a.size = A_BYTES, 128
            a.v.p = ctypes.addressof(v._raw)
        elif self._setters[i] is not None:
            a.type, set_ = self._setters[i]
            try:
                set_(a, v)
            except (TypeError, ValueError) as e:
                raise ArgumentError("%s: argument %d (%s): %s" % (self.name, i + 1, self.params[i]["name"], e)) from None
        elif isinstance(v, int):
            a.type, a.v.u = A_ADDRESS, v          # an address (a device pointer as an integer)
        elif isinstance(v, (bytes, bytearray)):
            b = ctypes.create_string_buffer(bytes(v), len(v))
            keep.append(b)
            a.type, a.size, a.v.p = A_BYTES, len(v), ctypes.addressof(b)
        else:
            raise ArgumentError("%s: argument %d (%s): %s is neither a tensor (__dlpack__) nor a number"
                                % (self.name, i + 1, self.params[i]["name"], type(v).__name__))

    def dims(self):
        """(grid, block, cluster, dynamic smem) the kernel declares for its templates."""
        L = _lib()
        g, b, c, s = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)(), ctypes.c_uint()
        L.ptxlua_kernel_dims(self._h, g, b, c, ctypes.byref(s))
        return tuple(g), tuple(b), tuple(c), s.value

    def close(self):
        if self._h:
            _lib().ptxlua_kernel_free(self._h)
            self._h = None


class _BufferKeeper:
    """The wrapped buffer a tensor map points into, and the tensor it borrows, alive as long as the map."""

    def __init__(self, engine, buf, cap, obj):
        self.engine, self.buf, self.cap, self.obj = engine, buf, cap, obj

    def __del__(self):
        if self.buf and _L is not None and getattr(self.engine, "_e", None):  # a closed engine freed it
            _L.ptxlua_buffer_free(self.buf)
        self.buf = None


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int), ("device_id", ctypes.c_int),
                ("ndim", ctypes.c_int), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


def _dl_name(code, bits):
    return {0: "s", 1: "u", 2: "f", 4: "bf"}.get(code, "b") + str(bits)


class _Dispatch:
    """engine[name]: the kernel on the device its tensors are on (prepared there once)."""

    def __init__(self, engine, name):
        self.engine, self.name = engine, name

    def __call__(self, *args, device=None, **kw):
        if device is None:
            first = next((v for v in list(args) + list(kw.values()) if hasattr(v, "__dlpack_device__")), None)
            device = _device_of(first)[0] if first is not None else "emu"
        return self.engine.kernel(self.name, device)(*args, **kw)

    def on(self, device):
        return self.engine.kernel(self.name, device)


# ---- the engine ----------------------------------------------------------------------------------
class Engine:
    """One ptxlua engine (a Lua state with the DSL): a loaded script, its templates, its kernels."""

    def __init__(self, script=None, arch=None, **templates):
        L = _lib()
        self._e = L.ptxlua_open()
        if not self._e:
            raise Error("out of memory", code=NOMEM)
        self._devices, self._kernels = {}, {}
        if arch:
            self.set_arch(arch)
        for k, v in templates.items():
            self.define(k, v)
        if script is not None:
            self.load(script)

    # errors
    def _ck(self, rc):
        if rc == OK:
            return
        L = _lib()
        msg = (L.ptxlua_errmsg(self._e) or b"").decode("utf-8", "replace")
        f = L.ptxlua_errfile(self._e)
        cls = ArgumentError if rc == MISUSE else Error
        raise cls(msg, f.decode("utf-8", "replace") if f else None, L.ptxlua_errline(self._e), rc)

    def _invalidate(self):
        for k in self._kernels.values():
            k.close()
        self._kernels.clear()

    def load(self, path):
        """Load (run) a kernel script from a file; its kernels replace those of a previous load."""
        self._invalidate()
        self._ck(_lib().ptxlua_load_file(self._e, os.fsencode(path)))
        return self

    def load_string(self, text, name="script.lua"):
        self._invalidate()
        b = text.encode()
        self._ck(_lib().ptxlua_load_string(self._e, name.encode(), b, len(b)))
        return self

    @property
    def kernels(self):
        L = _lib()
        return [L.ptxlua_kernel_name(self._e, i).decode() for i in range(L.ptxlua_kernel_count(self._e))]

    def define(self, name, value=None):
        """Set a template parameter (as -D NAME=VALUE); None removes the override."""
        self._invalidate()
        v = None if value is None else (str(value).lower() if isinstance(value, bool) else str(value)).encode()
        self._ck(_lib().ptxlua_define(self._e, name.encode(), v))

    def set_arch(self, arch):
        self._invalidate()
        self._ck(_lib().ptxlua_set_arch(self._e, arch.encode() if arch else None))

    def ptx(self, kernels=None, anchors=False):
        """The PTX text of one kernel, several (a list or "a,b"), or all (None)."""
        L = _lib()
        if isinstance(kernels, (list, tuple)):
            kernels = ",".join(kernels)
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        self._ck(L.ptxlua_ptx(self._e, kernels.encode() if kernels else None, 1 if anchors else 0,
                              ctypes.byref(out), ctypes.byref(n)))
        try:
            return ctypes.string_at(out, n.value).decode()
        finally:
            L.ptxlua_free(out)

    def check(self, kernels=None, json=False):
        """Assemble the kernels (ptxas or nvJitLink, no GPU needed) and return the resource report;
        an assembly error raises Error at the script's line."""
        L = _lib()
        if isinstance(kernels, (list, tuple)):
            kernels = ",".join(kernels)
        out = ctypes.c_void_p()
        rc = L.ptxlua_check(self._e, kernels.encode() if kernels else None, JSON if json else 0, ctypes.byref(out))
        text = ctypes.string_at(out).decode() if out.value else ""
        L.ptxlua_free(out)
        self._ck(rc)
        return text

    def _device(self, name):
        d = self._devices.get(name)
        if d is None:
            h = ctypes.c_void_p()
            self._ck(_lib().ptxlua_device_open(self._e, name.encode(), ctypes.byref(h)))
            d = self._devices[name] = h
        return d

    def describe(self, device):
        return _lib().ptxlua_device_describe(self._device(device)).decode()

    def sync(self, device):
        self._ck(_lib().ptxlua_device_sync(self._device(device)))

    def kernel(self, name, device="emu"):
        """The kernel prepared on device ("emu", "cuda:N"), cached until the templates change."""
        k = self._kernels.get((name, device))
        if k is None:
            k = self._kernels[(name, device)] = Kernel(self, name, device)
        return k

    def __getitem__(self, name):
        return _Dispatch(self, name)

    def close(self):
        if getattr(self, "_e", None):
            self._invalidate()
            _lib().ptxlua_close(self._e)
            self._e = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
