"""lay: NPU tensor layouts for numpy (lay.h from Python).

    import numpy as np, lay
    hw = lay.pack("amd.hcwnc4", img)                  # img: int8 NCHW array
    back = lay.unpack("amd.hcwnc4", hw, shape=img.shape, dtype=img.dtype)
    plan = lay.Context().plan("qnn.crouton", (1, 32, 8, 8), "uint8")
    plan.run(x, out=y)                                # no allocation

Arrays come in through the buffer protocol. Plan.run refuses a
non-contiguous array (it never copies); pack, unpack and convert make one
contiguous first. bf16 travels as uint16 (numpy has no bfloat16), fp16 as
numpy.float16. Failures raise lay.Error (a subclass per lay status; a
dtype conflict is also a TypeError) whose str() is the CLI's text.
"""
import os as _os
import threading as _threading

import numpy as _np

from ._lay import (  # noqa: F401  (re-exported)
    Context, Plan, Error, SpecSyntaxError, NameError, DTypeError, ShapeError,
    ArgError, LayoutError, BufferSizeError, FileError, OutOfMemoryError,
    LimitError, SizeOverflowError, ReportError, InternalError, dtype_info,
    __version__, _set_allocator, _Hsi,
)

__all__ = [
    "Context", "Plan", "Error", "SpecSyntaxError", "NameError", "DTypeError",
    "ShapeError", "ArgError", "LayoutError", "BufferSizeError", "FileError",
    "OutOfMemoryError", "LimitError", "SizeOverflowError", "ReportError",
    "InternalError", "pack", "unpack", "convert", "default_context",
    "numpy_dtype", "HsiReport", "HsiTensor", "dtype_info",
    "__version__",
]

# lay's element types as numpy types (bf16 as its bits).
_NP = {"fp32": _np.float32, "fp16": _np.float16, "bf16": _np.uint16,
       "int8": _np.int8, "uint8": _np.uint8, "int16": _np.int16,
       "uint16": _np.uint16, "int32": _np.int32}


def numpy_dtype(dtype):
    """The numpy dtype that holds lay's dtype ('bf16' -> uint16)."""
    return _np.dtype(_NP[dtype_info(dtype)[0]])


def _alloc(shape, dtype):
    return _np.empty(shape, dtype=_NP[dtype])


_set_allocator(_alloc)

_default = None
_default_lock = _threading.Lock()
_PLAN_CACHE_MAX = 64


def default_context():
    """The Context the module-level functions use (stdlib + $LAY_PATH)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default


_default_cache = {}  # plans of the default context, by call


def _cached(ctx, key, make):
    """A plan of the default context made once per (call, shape, dtype);
    another context's plans are made each time (keep a Plan to reuse it)."""
    if ctx is not _default:
        return make()
    cache = _default_cache
    p = cache.get(key)
    if p is None:
        p = make()
        if len(cache) >= _PLAN_CACHE_MAX:
            cache.pop(next(iter(cache)))
        cache[key] = p
    return p


def _as_array(x):
    a = _np.asarray(memoryview(x)) if not isinstance(x, _np.ndarray) else x
    return _np.ascontiguousarray(a)


def _hw_view(plan, buf, hw_shape):
    if not hw_shape:
        return buf
    shape = plan.hw_shape
    elem = plan.layout_elem_bytes
    dt = plan.dst_dtype if not plan.dst_is_cpu else plan.src_dtype
    t = numpy_dtype(dt) if _np.dtype(numpy_dtype(dt)).itemsize == elem else _np.uint8
    return buf.view(t).reshape(shape)


def pack(fmt, x, *, dtype=None, ctx=None, hw_shape=False, threads=1):
    """Pack the CPU tensor x (shape and dtype taken from it) into layout fmt.

    Returns the hardware buffer as a 1-D uint8 array, or viewed with the
    layout's hw_shape (elements of the layout's type) when hw_shape=True.
    dtype overrides x's type (e.g. 'bf16' for a uint16 array)."""
    a = _as_array(x)
    dt = dtype if dtype is not None else a.dtype
    ctx = ctx or default_context()
    plan = _cached(ctx, ("pack", fmt, a.shape, str(dt)),
                   lambda: ctx.plan(fmt, a.shape, dt, "pack"))
    return _hw_view(plan, plan.run(a, threads=threads), hw_shape)


def unpack(fmt, buf, shape, dtype=None, *, ctx=None, threads=1):
    """Unpack the hardware buffer buf (any buffer, raw bytes or typed) of
    layout fmt into a new CPU tensor of `shape` and `dtype` (None: the
    layout's own type, else int8)."""
    b = _as_array(buf)
    ctx = ctx or default_context()
    shape = tuple(int(d) for d in shape)
    plan = _cached(ctx, ("unpack", fmt, shape, str(dtype)),
                   lambda: ctx.plan(fmt, shape, dtype, "unpack"))
    return plan.run(b.reshape(-1).view(_np.uint8), threads=threads)


def convert(src, dst, x, shape, dtype=None, *, ctx=None, hw_shape=False,
            threads=1):
    """Convert the buffer x of layout src into layout dst for one tensor of
    CPU-side `shape` (src's order) and `dtype`; a 1-D uint8 array back."""
    b = _as_array(x)
    ctx = ctx or default_context()
    shape = tuple(int(d) for d in shape)
    plan = _cached(ctx, ("convert", src, dst, shape, str(dtype)),
                   lambda: ctx.convert_plan(src, dst, shape, dtype))
    out = plan.run(b.reshape(-1).view(_np.uint8), threads=threads)
    return _hw_view(plan, out, hw_shape)


_hsi_count = [0]
_hsi_lock = _threading.Lock()


class HsiTensor:
    """One input or output of an HsiReport: pack(x) and unpack(buf) by the
    report's own layout (CPU tensor <-> NPU buffer)."""

    def __init__(self, report, output, index, info):
        self.report = report
        self.is_output = bool(output)
        self.index = index
        self.name = info["name"]
        self.tensor_name = info["tensor_name"]
        self.cpu_shape = info["cpu_shape"]
        self.cpu_dtype = info["cpu_dtype"]
        self.hw_shape = info["hw_shape"]
        self.hw_dtype = info["hw_dtype"]
        self.issue = info["issue"]
        self.format = "%s.%s" % (report.namespace, info["def"])
        self._plans = {}

    def plan(self, direction):
        """The Plan of this tensor for 'pack' or 'unpack'."""
        if self.issue:
            raise ReportError("%s: %s" % (self.format, self.issue))
        p = self._plans.get(direction)
        if p is None:
            dt = None if self.cpu_dtype == "none" else self.cpu_dtype
            p = self.report.context.plan(self.format, self.cpu_shape, dt,
                                         direction)
            self._plans[direction] = p
        return p

    def pack(self, x, out=None, threads=1):
        """CPU tensor x -> the NPU buffer (1-D uint8)."""
        return self.plan("pack").run(_as_array(x), out=out, threads=threads)

    def unpack(self, buf, out=None, threads=1):
        """NPU buffer -> the CPU tensor (cpu_shape, cpu_dtype)."""
        b = _as_array(buf).reshape(-1).view(_np.uint8)
        return self.plan("unpack").run(b, out=out, threads=threads)

    def __repr__(self):
        return "<lay.HsiTensor %s %r %s %s>" % (
            "output" if self.is_output else "input", self.name,
            list(self.cpu_shape), self.cpu_dtype)


class _Tensors(list):
    def __getitem__(self, key):
        if isinstance(key, str):
            for t in self:
                if key in (t.name, t.tensor_name):
                    return t
            raise KeyError(key)
        return list.__getitem__(self, key)

    def names(self):
        return [t.name or t.tensor_name for t in self]


class HsiReport:
    """An AMD flexmlrt-hsi.json report: .inputs and .outputs are lists of
    HsiTensor, also indexable by name or tensor_name. Its layouts are loaded
    into `ctx` (default: a new Context) under `namespace` (default: a fresh
    'hsiN')."""

    def __init__(self, path, ctx=None, namespace=None):
        self.path = _os.fspath(path)
        self.context = ctx if ctx is not None else Context()
        if namespace is None:
            with _hsi_lock:
                _hsi_count[0] += 1
                namespace = "hsi%d" % _hsi_count[0]
        self.namespace = namespace
        self._h = _Hsi(self.path)
        self.context.load_hsi(self.path, namespace)
        self.inputs = _Tensors(HsiTensor(self, 0, i, self._h.info(0, i))
                               for i in range(self._h.count(0)))
        self.outputs = _Tensors(HsiTensor(self, 1, i, self._h.info(1, i))
                                for i in range(self._h.count(1)))

    def __repr__(self):
        return "<lay.HsiReport %s: %d inputs, %d outputs>" % (
            self.path, len(self.inputs), len(self.outputs))
