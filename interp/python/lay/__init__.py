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

The vendors' own descriptions of a compiled model's tensors load as
objects whose tensors pack and unpack numpy arrays: HsiReport (AMD
flexmlrt-hsi.json), TidlModel (TI TIDL io_1.bin), KneronTensor (one Kneron
kp.TensorDescriptor as JSON).

    m = lay.TidlModel("model_io_1.bin")
    buf = m.inputs["input.1"].pack(img)          # fp32 NCHW -> TIDL buffer
    y = m.outputs[0].unpack(out_buf)             # TIDL buffer -> fp32
"""
import os as _os
import threading as _threading

import numpy as _np

from ._lay import (  # noqa: F401  (re-exported)
    Context, Plan, Error, SpecSyntaxError, NameError, DTypeError, ShapeError,
    ArgError, LayoutError, BufferSizeError, FileError, OutOfMemoryError,
    LimitError, SizeOverflowError, ReportError, InternalError, dtype_info,
    __version__, _set_allocator, _raise, _Hsi, _Tidl, _Kneron,
)

__all__ = [
    "Context", "Plan", "Error", "SpecSyntaxError", "NameError", "DTypeError",
    "ShapeError", "ArgError", "LayoutError", "BufferSizeError", "FileError",
    "OutOfMemoryError", "LimitError", "SizeOverflowError", "ReportError",
    "InternalError", "pack", "unpack", "convert", "default_context",
    "numpy_dtype", "pack_nibbles", "unpack_nibbles", "HsiReport", "HsiTensor", "TidlModel", "TidlTensor",
    "KneronTensor", "dtype_info",
    "__version__",
]

# lay's element types as numpy types (bf16 as its bits, fp8 as its raw
# bytes in uint8; int4 and uint4 one element per int8 / uint8 in pack and
# unpack, which pack them two per byte, low nibble first, for Plan.run).
_NP = {"fp32": _np.float32, "fp16": _np.float16, "bf16": _np.uint16,
       "int8": _np.int8, "uint8": _np.uint8, "int16": _np.int16,
       "uint16": _np.uint16, "int32": _np.int32, "uint32": _np.uint32,
       "int64": _np.int64, "uint64": _np.uint64, "int4": _np.int8,
       "uint4": _np.uint8,
       "fp8e4m3": _np.uint8, "fp8e5m2": _np.uint8}
_NIBBLE = ("int4", "uint4")


def pack_nibbles(x):
    """int4/uint4 values (any integer array, one element each) as lay's
    4-bit buffer: two per byte, element 2k in the low nibble of byte k."""
    v = _np.asarray(x).reshape(-1).astype(_np.uint8) & 0xF
    if v.size % 2:
        v = _np.concatenate([v, _np.zeros(1, _np.uint8)])
    return (v[0::2] | (v[1::2] << 4)).astype(_np.uint8)


def unpack_nibbles(buf, shape, dtype="int4", high_first=False):
    """The reverse of pack_nibbles: `shape` elements of `dtype` (int4 as
    sign-extended int8, uint4 as uint8) from a 4-bit buffer; high_first:
    the first element of each byte is its high nibble (a layout's
    `nibbles = high_first`, Plan.layout_high_first)."""
    b = _np.asarray(_np.frombuffer(buf, _np.uint8) if isinstance(
        buf, (bytes, bytearray)) else buf).reshape(-1).view(_np.uint8)
    n = int(_np.prod(shape, dtype=_np.int64))
    v = _np.empty(2 * b.size, _np.uint8)
    lo, hi = b & 0xF, b >> 4
    v[0::2], v[1::2] = (hi, lo) if high_first else (lo, hi)
    v = v[:n]
    if dtype_info(dtype)[0] == "int4":
        return ((v.astype(_np.int8) << 4) >> 4).reshape(shape)
    return v.reshape(shape)


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
    if dt in _NIBBLE:  # one element per item, as pack takes them
        return unpack_nibbles(buf, shape, dt, plan.layout_high_first)
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
    if plan.src_dtype in _NIBBLE:  # one element per array item
        a = pack_nibbles(a)
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
    out = plan.run(b.reshape(-1).view(_np.uint8), threads=threads)
    if plan.dst_dtype in _NIBBLE:
        return unpack_nibbles(out, shape, plan.dst_dtype)
    return out


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


_ns_count = [0]
_ns_lock = _threading.Lock()


def _fresh_namespace(prefix):
    """A namespace no other report of this process has used: prefix + N."""
    with _ns_lock:
        _ns_count[0] += 1
        return "%s%d" % (prefix, _ns_count[0])


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
    """A list of a report's tensors, also indexable by tensor name."""

    def __getitem__(self, key):
        if isinstance(key, str):
            for t in self:
                if key in (t.name, t.tensor_name):
                    return t
            raise KeyError("%s: no tensor named %r (there are %s)" % (
                "outputs" if self._output else "inputs", key,
                ", ".join(repr(n) for n in self.names()) or "none"))
        return list.__getitem__(self, key)

    def __init__(self, items, output=False):
        list.__init__(self, items)
        self._output = output

    def names(self):
        """The tensors' names, in order."""
        return [t.name or t.tensor_name for t in self]


class HsiReport:
    """An AMD flexmlrt-hsi.json report: .inputs and .outputs are lists of
    HsiTensor, also indexable by name or tensor_name. Its layouts are loaded
    into `ctx` (default: a new Context) under `namespace` (default: a fresh
    'hsiN')."""

    def __init__(self, path, ctx=None, namespace=None):
        self.path = _os.fspath(path)
        self.context = ctx if ctx is not None else Context()
        self.namespace = namespace or _fresh_namespace("hsi")
        self._h = _Hsi(self.path)
        self.context.load_hsi(self.path, self.namespace)
        self.inputs = _Tensors((HsiTensor(self, 0, i, self._h.info(0, i))
                                for i in range(self._h.count(0))), False)
        self.outputs = _Tensors((HsiTensor(self, 1, i, self._h.info(1, i))
                                 for i in range(self._h.count(1))), True)

    def __repr__(self):
        return "<lay.HsiReport %s: %d inputs, %d outputs>" % (
            self.path, len(self.inputs), len(self.outputs))


# lay_status codes of lay.h the report objects raise themselves.
_E_TYPE, _E_ARG = 3, 5


def _side_choice(path, dtype, values, raw, choices):
    """Whether `dtype` picks the raw side (False: the values side, also for
    None); lay.DTypeError "dtype T: <choices>" for any other type."""
    name = dtype_info(dtype)[0] if dtype is not None else values
    if name == values:
        return False
    if name == raw:
        return True
    _raise(_E_TYPE, path, "dtype %s: %s" % (name, choices))


def _check_type(path, a, plan, hint):
    """x's element type must be the plan's CPU type: lay.DTypeError with a
    hint at dtype= (the array's type never picks a side by itself)."""
    have = dtype_info(a.dtype)[0]
    if have != plan.src_dtype and not (plan.src_dtype == "bf16" and have == "uint16"):
        _raise(_E_TYPE, path, "x holds %s, the tensor's CPU side is %s%s" % (
            have, plan.src_dtype, hint))


class TidlTensor:
    """One input or output of a TidlModel: pack(x) and unpack(buf) by the
    file's own layout (CPU tensor <-> TIDL buffer), with TIDL-RT's float32
    truncating arithmetic.

    cpu_shape is [N, C, H, W], or [N, H, W, C] when nhwc (the batches, DIM1
    and DIM2 folded into N); cpu_dtype is the input's rawDataInElementType
    (fp32 for outputs), hw_dtype the TIDL buffer's element type. A tensor
    whose fields disagree has `issue` set (the field named, as `lay tidl
    --check` prints it); using it raises lay.ArgError with that text.
    dtype=hw_dtype moves the buffer's own values instead (no scale)."""

    def __init__(self, model, output, index, info):
        self.model = model
        self.is_output = bool(output)
        self.index = index
        self.name = info["name"]
        self.tensor_name = info["name"]
        self.cpu_shape = info["cpu_shape"]
        self.cpu_dtype = info["cpu_dtype"]
        self.hw_dtype = info["hw_dtype"]
        self.nhwc = info["nhwc"]
        self.buffer_bytes = info["buffer_bytes"]
        self.issue = info["issue"]
        self.spec = info["spec"]
        self.format = "%s.%s" % (model.namespace, info["def"])
        self._plans = {}

    def plan(self, direction, dtype=None):
        """The Plan of this tensor for 'pack' or 'unpack'. dtype None (or
        cpu_dtype) goes through the tensor scale; hw_dtype moves the TIDL
        buffer's own values (the file's NS.input0_raw); another type raises
        lay.DTypeError. An unusable tensor raises lay.ArgError naming the
        bad field."""
        if self.issue:
            _raise(_E_ARG, self.model.path, self.issue)
        raw = _side_choice(
            self.model.path, dtype, self.cpu_dtype, self.hw_dtype,
            "%s[%d] %r is %s (through the tensor scale) or %s (the TIDL "
            "buffer's values)" % ("outputs" if self.is_output else "inputs",
                                  self.index, self.name, self.cpu_dtype,
                                  self.hw_dtype))
        p = self._plans.get((direction, raw))
        if p is None:
            fmt = self.format + "_raw" if raw else self.format
            p = self.model.context.plan(fmt, self.cpu_shape,
                                        self.hw_dtype if raw else self.cpu_dtype,
                                        direction)
            self._plans[(direction, raw)] = p
        return p

    def pack(self, x, out=None, threads=1, dtype=None):
        """CPU tensor x (cpu_shape, cpu_dtype; or hw_dtype with
        dtype=hw_dtype) -> the TIDL buffer (1-D uint8, plan('pack').dst_bytes
        long)."""
        a = _as_array(x)
        p = self.plan("pack", dtype)
        _check_type(self.model.path, a, p, "" if dtype is not None else
                    " (dtype=%r packs the buffer's values)" % self.hw_dtype)
        return p.run(a, out=out, threads=threads)

    def unpack(self, buf, out=None, threads=1, dtype=None):
        """TIDL buffer (any buffer of exactly plan('unpack').src_bytes
        bytes) -> the CPU tensor (cpu_shape; cpu_dtype, or hw_dtype's values
        with dtype=hw_dtype)."""
        b = _as_array(buf).reshape(-1).view(_np.uint8)
        return self.plan("unpack", dtype).run(b, out=out, threads=threads)

    def __repr__(self):
        return "<lay.TidlTensor %s[%d] %r %s %s%s>" % (
            "outputs" if self.is_output else "inputs", self.index, self.name,
            list(self.cpu_shape), self.cpu_dtype,
            " unusable" if self.issue else "")


class TidlModel:
    """A TI TIDL io_1.bin (the sTIDL_IOBufDesc_t of every SDK: 08.06, 09 for
    1, 2 or 4 cores, 10, and the multi-subgraph container): .inputs and
    .outputs are lists of TidlTensor, also indexable by tensor name
    (inDataName / outDataName). Its layouts are loaded into `ctx`
    (default: a new Context) under `namespace` (default: a fresh 'tidlN').

    A file of the wrong size or with counts outside their arrays raises
    lay.ArgError (lay.FileError when it cannot be read); a bad field of one
    tensor only makes that tensor unusable (see check())."""

    def __init__(self, path, ctx=None, namespace=None):
        self.path = _os.fspath(path)
        self.context = ctx if ctx is not None else Context()
        self.namespace = namespace or _fresh_namespace("tidl")
        self._t = _Tidl(self.path)
        self._t.load(self.context, self.namespace)
        self.version = self._t.version()
        self.issues = self._t.issues()
        self.inputs = _Tensors((TidlTensor(self, 0, i, self._t.info(0, i))
                                for i in range(self._t.count(0))), False)
        self.outputs = _Tensors((TidlTensor(self, 1, i, self._t.info(1, i))
                                 for i in range(self._t.count(1))), True)

    def spec(self):
        """The file's layouts as spec text (what `lay tidl FILE` prints)."""
        return self._t.spec(self.namespace)

    def check(self):
        """The report of `lay tidl FILE --check`: the version, then for each
        tensor its notes and inconsistencies, and 'ok' with its CPU shape,
        element types and buffer bytes when it is usable. The file is
        usable as a whole when no tensor has an issue."""
        lines = ["%s: %s" % (self.path, self.version)]
        for side, tensors in (("inputs", self.inputs), ("outputs", self.outputs)):
            for t in tensors:
                for o, i, fatal, text in self.issues:
                    if o == t.is_output and i == t.index:
                        lines.append("%s: %s" % (
                            "inconsistent" if fatal else "note", text))
                if t.issue:
                    continue
                lines.append("%s[%d]: ok: cpu %s [%s] -> %s %s, %d bytes" % (
                    side, t.index, t.cpu_dtype,
                    ",".join(str(d) for d in t.cpu_shape),
                    "NHWC" if t.nhwc else "NCHW", t.hw_dtype,
                    t.plan("pack").dst_bytes))
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return "<lay.TidlModel %s (%s): %d inputs, %d outputs>" % (
            self.path, self.version, len(self.inputs), len(self.outputs))


class KneronTensor:
    """One Kneron PLUS kp.TensorDescriptor (its Python print or
    get_member_variable_dict as JSON): pack(x) and unpack(buf) between the
    CPU tensor and the NPU buffer. The CPU side is either fp32, through
    Kneron's fixed point (scale and radix, per tensor or per channel), or
    the NPU's own integers (fixed_dtype: int8 or int16), chosen with
    dtype= as `lay pack/unpack --kneron FILE --dtype` does (the array's
    type never chooses: an int8 array for the fp32 side is a
    lay.DTypeError).

    cpu_shape is the ONNX shape (version 2 descriptors, KL730) or
    shape_npu (version 1: KL520, KL720, KL630). The definitions are loaded
    into `ctx` (default: a new Context, whose stdlib version 1 needs) under
    `namespace` (default: a fresh 'kpN'). A malformed descriptor raises
    lay.ReportError naming the field, or the JSON line and column."""

    def __init__(self, path, ctx=None, namespace=None):
        self.path = _os.fspath(path)
        self.context = ctx if ctx is not None else Context()
        self.namespace = namespace or _fresh_namespace("kp")
        self._k = _Kneron(self.path)
        self._k.load(self.context, self.namespace)
        info = self._k.info()
        self.name = info["name"]
        self.index = info["index"]
        self.data_layout = info["data_layout"]
        self.shape_version = info["shape_version"]
        self.cpu_shape = info["cpu_shape"]
        self.dtype = info["dtype"]
        self.fixed_dtype = info["fixed_dtype"]
        self.npu_bytes = info["npu_bytes"]
        self.nscales = info["nscales"]
        self.quantized_axis = info["quantized_axis"]
        self.format = "%s.%s" % (self.namespace, info["ref"])
        self.fixed_format = "%s.%s" % (self.namespace, info["fixed_ref"])
        self._plans = {}

    def spec(self):
        """The descriptor's definitions as spec text (`lay kneron FILE`)."""
        return self._k.spec(self.namespace)

    def plan(self, direction, dtype=None):
        """The Plan for 'pack' or 'unpack' with the CPU side of `dtype`:
        None or 'fp32' through the fixed point, fixed_dtype the NPU's
        integers; another type raises lay.DTypeError naming both."""
        fixed = _side_choice(
            self.path, dtype, self.dtype, self.fixed_dtype,
            "the descriptor's tensor is fp32 (through the fixed point) or %s "
            "(the NPU's values)" % self.fixed_dtype)
        p = self._plans.get((direction, fixed))
        if p is None:
            fmt = self.fixed_format if fixed else self.format
            p = self.context.plan(fmt, self.cpu_shape, None, direction)
            self._plans[(direction, fixed)] = p
        return p

    def pack(self, x, out=None, threads=1, dtype=None):
        """CPU tensor x (cpu_shape; fp32, or the NPU's integers with
        dtype=fixed_dtype) -> the NPU buffer (1-D uint8)."""
        a = _as_array(x)
        p = self.plan("pack", dtype)
        _check_type(self.path, a, p, "" if dtype is not None else
                    " (dtype=%r packs the NPU's integers)" % self.fixed_dtype)
        return p.run(a, out=out, threads=threads)

    def unpack(self, buf, out=None, threads=1, dtype=None):
        """NPU buffer -> the CPU tensor of cpu_shape: fp32 (dtype None), or
        the NPU's integers (dtype=fixed_dtype)."""
        b = _as_array(buf).reshape(-1).view(_np.uint8)
        return self.plan("unpack", dtype).run(b, out=out, threads=threads)

    def __repr__(self):
        return "<lay.KneronTensor %r %s %s fp32/%s>" % (
            self.name, self.data_layout, list(self.cpu_shape), self.fixed_dtype)
