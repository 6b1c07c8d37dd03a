# test_lay.py: the Python module `lay` against the C library: every stdlib
# format packed and unpacked by lay.pack/unpack and by the lay CLI (lay.h's
# lay_plan_run behind both) on the same data, plans and their facts,
# errors with positions, dtypes, out= without allocation, threads, the GIL.
import threading

import numpy as np
import pytest

import lay

# Arguments for the stdlib layouts that take some; the shape of each rank.
PER_CHANNEL = "(scale=[0.5,0.25,1,2,0.125], radix=[0,1,2,3,4])"
ARGS = {
    "amd.hcwnc": "(3)", "amd.hcwnc_q": "(8, 0.25, 3)", "amd.hcwnc_bf16": "(8)",
    "ti.tidl_q8": "(4)", "ti.tidl_qu8": "(4)", "ti.tidl_q16": "(2)",
    "ti.tidl_qu16": "(2)", "ti.tidl_nhwc_q8": "(4)", "ti.tidl_nhwc_qu8": "(4)",
    "ti.tidl_nhwc_q16": "(2)", "ti.tidl_nhwc_qu16": "(2)",
    "rknn.nc1hwc2": "(16)", "rknn.mm_a": "(16)", "rknn.mm_b": "(32, 32)",
    "xla.tiled": "(8, 128)", "xla.tiled_minor": "(4)", "xla.tiled_nd": "(2, 4)",
    "xla.tiled3": "(2, 4)", "mlir.pack_nc": "(8, 32)", "mlir.pack_kc": "(8, 32)",
    "mlir.pack_kcrs_sr": "(8, 32)", "mlir.pack_cba_b": "(2, pad=3)",
    "mlir.pack_ba": "(32, 8)", "mlir.pack": "([1, 3], [4, 8], [3, 1, 0, 2], 3)",
}
RANK = {"core.flat1": (37,), "core.flat2": (5, 37), "core.flat3": (3, 5, 7),
        "core.flat5": (2, 5, 3, 7, 4), "core.ab": (5, 37), "amd.ab": (5, 37),
        "onednn.nCdhw16c": (2, 19, 3, 5, 7), "onednn.gOIhw16i16o": (2, 19, 3, 5, 7),
        "trt.dhwc8": (2, 19, 3, 5, 7), "trt.cdhw32": (2, 19, 3, 5, 7),
        "trt.dhwc": (2, 19, 3, 5, 7), "xla.tiled": (13, 130),
        "xla.tiled_minor": (13, 130), "xla.tiled_8x128_2x1": (13, 130),
        "xla.tiled_32x128_4x1": (13, 130), "xla.tiled3": (2, 5, 7),
        "mlir.pack_nc": (13, 130), "mlir.pack_kc": (13, 130),
        "mlir.pack_cba_b": (2, 5, 7),
        "trt.dla_hwc4": (2, 3, 3, 7)}  # C can only be 1, 3 or 4
RANK.update({n: (37, 70) for n in (
    "rknn.mm_a", "rknn.mm_b", "rknn.mm_c", "rknn.rk3588_mm_a_int8",
    "rknn.rk3588_mm_b_int8", "rknn.rk3588_mm_c_int32", "rknn.rk3588_mm_a_fp16",
    "rknn.rk3588_mm_b_fp16", "rknn.rk3588_mm_c_fp32", "rknn.rk3566_mm_a_int8",
    "rknn.rk3566_mm_b_int8", "rknn.rk3566_mm_c_int32", "rknn.rk3566_mm_a_fp16",
    "rknn.rk3566_mm_b_fp16", "rknn.rk3566_mm_c_fp32", "rknn.rk3588_mm_a_int4",
    "rknn.rk3588_mm_b_int4", "rknn.rk3588_mm_c_int16")})


def fmt_of(name):
    if name.endswith("_qc"):
        return name + PER_CHANNEL
    if name.endswith("_q") and name.startswith("kneron."):
        return name + "(0.5, 3)"
    return name + ARGS.get(name, "")


def sample(shape, dtype, seed):
    r = np.random.default_rng(seed)
    if dtype in ("int4", "uint4"):  # one element per item (lay.pack's form)
        lo = -8 if dtype == "int4" else 0
        return r.integers(lo, lo + 15, shape, endpoint=True).astype(
            lay.numpy_dtype(dtype))
    if dtype in ("fp32", "fp16"):
        return r.uniform(-8, 8, shape).astype(lay.numpy_dtype(dtype))
    info = np.iinfo(lay.numpy_dtype(dtype))
    if dtype == "bf16":
        f = r.uniform(-8, 8, shape).astype(np.float32)
        return (f.view(np.uint32) >> 16).astype(np.uint16)
    return r.integers(info.min, info.max, shape, endpoint=True).astype(
        lay.numpy_dtype(dtype))


def stdlib_names():
    return lay.Context(lay_path=False).names()


@pytest.mark.parametrize("name", stdlib_names())
def test_every_stdlib_format_against_cli(name, ctx, cli, tmp_path):
    fmt = fmt_of(name)
    shape = RANK.get(name, (2, 5, 3, 7))
    plan = ctx.plan(fmt, shape)
    x = sample(shape, plan.src_dtype, len(name))
    hw = lay.pack(fmt, x, dtype=plan.src_dtype, ctx=ctx)
    sh = ",".join(map(str, shape))
    # int4: the CLI reads and writes two elements per byte
    nib = plan.src_dtype in ("int4", "uint4")
    raw = lay.pack_nibbles(x).tobytes() if nib else x.tobytes()
    ref = cli("pack", fmt, "--shape", sh, "--dtype", plan.src_dtype,
              data=raw)
    assert hw.dtype == np.uint8 and hw.ndim == 1
    assert hw.tobytes() == ref
    v = lay.pack(fmt, x, dtype=plan.src_dtype, ctx=ctx, hw_shape=True)
    assert v.shape == plan.hw_shape
    if nib:  # the view holds one element per item
        assert v.tobytes() == lay.unpack_nibbles(
            ref, plan.hw_shape, plan.src_dtype,
            ctx.plan(fmt, shape).layout_high_first).tobytes()
    else:
        assert v.tobytes() == ref
    back = lay.unpack(fmt, hw, shape, plan.src_dtype, ctx=ctx)
    ref_back = cli("unpack", fmt, "--shape", sh, "--dtype", plan.src_dtype,
                   data=ref)
    assert back.shape == tuple(shape)
    assert (lay.pack_nibbles(back).tobytes() if nib else back.tobytes()) \
        == ref_back
    if plan.src_dtype == plan.dst_dtype and "_q" not in name:
        assert np.array_equal(back, x)  # a plain layout gives x back


def test_pack_takes_shape_and_dtype_from_the_array(ctx):
    x = np.arange(12, dtype=np.int8).reshape(1, 3, 2, 2)
    hw = lay.pack("amd.hcwnc4", x)
    # hcwnc4 of a 1x3x2x2 tensor: [h, c/4, w, n, c%4], the 4th channel a pad
    assert hw.tolist() == [0, 4, 8, 0, 1, 5, 9, 0, 2, 6, 10, 0, 3, 7, 11, 0]
    v = lay.pack("amd.hcwnc4", x, hw_shape=True)
    assert v.shape == (2, 1, 2, 1, 4) and v.dtype == np.int8
    f = lay.pack("amd.hcwnc4", x.astype(np.float32))
    assert f.nbytes == 64
    assert np.array_equal(lay.unpack("amd.hcwnc4", f, x.shape, "float32"),
                          x.astype(np.float32))


def test_non_contiguous_arrays(ctx):
    x = np.arange(2 * 3 * 4 * 5, dtype=np.int8).reshape(2, 5, 4, 3)
    t = x.transpose(0, 3, 2, 1)  # a non-contiguous view
    assert not t.flags.c_contiguous
    assert lay.pack("core.nchw", t).tobytes() == np.ascontiguousarray(t).tobytes()
    plan = ctx.plan("core.nchw", t.shape, "int8")
    with pytest.raises(ValueError, match="not C-contiguous"):
        plan.run(t)


def test_plan_facts(ctx):
    p = ctx.plan("amd.hcwnc4", (1, 3, 2, 2), "int8", "pack")
    assert (p.src_bytes, p.dst_bytes) == (12, 16)
    assert p.cpu_shape == (1, 3, 2, 2)
    assert p.hw_shape == (2, 1, 2, 1, 4)
    assert p.hw_names == ("h", "c/4", "w", "n", "c%4")
    assert (p.src_dtype, p.dst_dtype) == ("int8", "int8")
    # element (n, c, h, w) = (0, 1, 1, 0): h=1 -> 8 bytes, c%4=1 -> +1
    assert p.where((0, 1, 1, 0)) == 9
    assert p.at(9) == ((0, 1, 1, 0), 0, 0)
    assert p.at(3) == ((0, 3, 0, 0), 1, 0)  # the fourth channel: a pad
    assert "pack, 12 bytes in, 16 bytes out" in p.describe()
    s = p.show(limit=0).splitlines()
    assert len(s) == 16 and s[3].split() == ["3:", "(0,3,0,0)", "pad"]
    assert p.show(limit=2).splitlines()[-1] == "... (16 bytes in all)"
    u = ctx.plan("amd.hcwnc4", (1, 3, 2, 2), None, "unpack")
    assert (u.src_bytes, u.dst_bytes, u.dst_is_cpu) == (16, 12, True)
    assert ctx.dims("amd.hcwnc4") == ("n", "c", "h", "w")
    assert ctx.dims("core.ab") == ("a", "b")
    with pytest.raises(lay.NameError):
        ctx.dims("no.such")
    with pytest.raises(ValueError, match="direction 'sideways'"):
        ctx.plan("amd.hcwnc4", (1, 3, 2, 2), None, "sideways")


def test_convert_matches_unpack_then_pack(ctx):
    x = sample((2, 7, 3, 5), "int8", 7)
    a = lay.pack("amd.hcwnc(3)", x)
    b = lay.convert("amd.hcwnc(3)", "kneron.4w4c8b", a, x.shape)
    assert b.tobytes() == lay.pack("kneron.4w4c8b", x).tobytes()
    p = ctx.convert_plan("amd.hcwnc(3)", "kneron.4w4c8b", x.shape, "int8")
    assert not p.src_is_cpu and not p.dst_is_cpu
    assert p.run(a).tobytes() == b.tobytes()


def test_out_writes_in_place_without_allocating(ctx):
    p = ctx.plan("qnn.crouton", (1, 32, 8, 8), "uint8")
    x = sample((1, 32, 8, 8), "uint8", 3)
    y = np.zeros(p.dst_bytes, np.uint8)
    addr = y.__array_interface__["data"][0]
    r = p.run(x, out=y)
    assert r is y and y.__array_interface__["data"][0] == addr
    assert y.tobytes() == lay.pack("qnn.crouton", x).tobytes()
    u = ctx.plan("qnn.crouton", (1, 32, 8, 8), "uint8", "unpack")
    z = np.empty((1, 32, 8, 8), np.uint8)
    assert u.run(y, z) is z and np.array_equal(z, x)
    with pytest.raises(ValueError, match="output has 10 bytes, the plan's output side has"):
        p.run(x, out=np.empty(10, np.uint8))
    with pytest.raises(ValueError, match="overlap"):
        buf = np.zeros(p.dst_bytes + p.src_bytes, np.uint8)
        p.run(buf[:p.src_bytes].reshape(x.shape), out=buf[p.src_bytes // 2:][:p.dst_bytes])
    ro = np.zeros(p.dst_bytes, np.uint8)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="writable"):
        p.run(x, out=ro)


def test_shape_and_dtype_checks_of_run(ctx):
    p = ctx.plan("amd.hcwnc4", (1, 3, 2, 2), "int8")
    with pytest.raises(ValueError, match=r"shape \(1, 2, 3, 2\), the plan's CPU side is \(1, 3, 2, 2\)"):
        p.run(np.zeros((1, 2, 3, 2), np.int8))
    with pytest.raises(TypeError, match="input holds uint16.*side is int8"):
        p.run(np.zeros(6, np.uint16))


def test_dtypes_bf16_fp16_and_conflicts(ctx):
    x = sample((2, 9, 3, 5), "fp32", 1)
    hw = lay.pack("amd.hcwnc_bf16(8)", x)
    p = ctx.plan("amd.hcwnc_bf16(8)", x.shape)
    assert (p.src_dtype, p.dst_dtype) == ("fp32", "bf16")
    assert lay.numpy_dtype("bf16") == np.uint16
    # bf16 through uint16: pack the bf16 bits of x with a plain layout
    bits = sample((1, 3, 2, 2), "bf16", 2)
    hb = lay.pack("amd.hcwnc4", bits, dtype="bf16")
    assert hb.nbytes == 32
    back = lay.unpack("amd.hcwnc4", hb, bits.shape, "bf16")
    assert back.dtype == np.uint16 and np.array_equal(back, bits)
    h16 = lay.pack("amd.hcwnc4", x.astype(np.float16))
    assert np.array_equal(lay.unpack("amd.hcwnc4", h16, x.shape, np.float16),
                          x.astype(np.float16))
    assert hw.nbytes == p.dst_bytes
    # a dtype the layout cannot take: a TypeError naming both types
    with pytest.raises(TypeError) as e:
        lay.pack("amd.hcwnc_bf16(8)", x.astype(np.int8).reshape(x.shape))
    assert isinstance(e.value, lay.DTypeError)
    assert "int8" in str(e.value) and "fp32" in str(e.value)
    with pytest.raises(TypeError, match="unknown dtype '<f8'"):
        lay.pack("amd.hcwnc4", x.astype(np.float64))
    assert lay.dtype_info("float32") == ("fp32", 4)


def test_errors_carry_positions(ctx):
    with pytest.raises(lay.NameError) as e:
        ctx.load_string("namespace q\nlayout t (n, c) -> [n, c, h]\n", name="oops.lay")
    err = e.value
    assert isinstance(err, lay.Error) and isinstance(err, LookupError)
    assert (err.file, err.line, err.col) == ("oops.lay", 2, 27)
    assert err.source_line == "layout t (n, c) -> [n, c, h]"
    assert err.message == "unknown name 'h'"
    assert err.status == "name error" and err.code == 2
    assert str(err) == ("oops.lay:2:27: error: unknown name 'h'\n"
                        "    layout t (n, c) -> [n, c, h]\n"
                        "                              ^")
    with pytest.raises(lay.SpecSyntaxError) as e:
        ctx.load_string("layout (", name="s.lay")
    assert e.value.line == 1 and e.value.file == "s.lay"
    with pytest.raises(lay.FileError) as e:
        ctx.load_file("/nonexistent/x.lay")
    assert isinstance(e.value, OSError)
    with pytest.raises(lay.NameError, match="no.such"):
        ctx.plan("no.such", (1, 2))
    with pytest.raises(lay.ShapeError):
        ctx.plan("amd.hcwnc4", (1, 3, 2))


def test_context_load_file_string_and_lay_path(tmp_path, monkeypatch):
    d = tmp_path / "specs"
    d.mkdir()
    (d / "acme.lay").write_text("namespace acme\nlayout c8 (n, c, h, w) -> [n, c/8, h, w, c%8]\n")
    monkeypatch.setenv("LAY_PATH", str(d))
    assert "acme.c8" in lay.Context().names()
    assert "acme.c8" not in lay.Context(lay_path=False).names()
    c = lay.Context(lay_path=str(d))
    assert "acme.c8" in c.names() and "amd.hcwnc4" in c.names()
    c2 = lay.Context(lay_path=False)
    c2.load_file(str(d / "acme.lay"))
    c2.load_string("namespace zz\nlayout t (a, b) -> [b, a]\n")
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    assert lay.pack("zz.t", x, ctx=c2).tolist() == x.T.reshape(-1).tolist()
    with pytest.raises(lay.NameError):
        c2.load_string("namespace zz\nlayout t (a, b) -> [b, a]\n")


def test_hsi_report_by_tensor_name(src, cli, tmp_path):
    path = src + "/tests/hsi/seed_annotation.json"
    r = lay.HsiReport(path)
    assert len(r.inputs) == 1 and len(r.outputs) == 1
    t = r.inputs[0]
    assert t.cpu_shape == (1, 3, 32, 32) and t.cpu_dtype == "fp32"
    assert t.hw_shape == (32, 1, 32, 1, 4) and t.hw_dtype == "bf16"
    x = sample(t.cpu_shape, "fp32", 5)
    hw = t.pack(x)
    ref = cli("pack", "--hsi", path, "--input", "0", data=x.tobytes())
    assert hw.tobytes() == ref and hw.nbytes == 8192
    o = r.outputs[0]
    y = o.unpack(np.zeros(7200, np.uint8))
    assert y.shape == (1, 4, 30, 30) and y.dtype == np.float32
    named = lay.HsiReport(src + "/tests/hsi/seed_report.json")
    for side in (named.inputs, named.outputs):
        for tt in side:
            key = tt.name or tt.tensor_name
            assert side[key] is tt
    with pytest.raises(KeyError):
        named.inputs["no such tensor"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"inputs": [ {"cpu_shape": [1, 2}]}')
    with pytest.raises(lay.ReportError) as e:
        lay.HsiReport(str(bad))
    assert e.value.line == 1 and e.value.col > 0


def test_threads_and_the_gil(ctx):
    shape = (1, 64, 128, 128)
    x = sample(shape, "int8", 9)
    p = ctx.plan("amd.hcwnc8", shape, "int8")
    one = p.run(x)
    assert p.run(x, threads=4).tobytes() == one.tobytes()
    with pytest.raises(ValueError, match="threads=0"):
        p.run(x, threads=0)
    # Python threads run the same plan at once; each result is right.
    outs = [np.empty(p.dst_bytes, np.uint8) for _ in range(4)]
    ths = [threading.Thread(target=p.run, args=(x,), kwargs={"out": o}) for o in outs]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert all(o.tobytes() == one.tobytes() for o in outs)


def test_gil_released_during_a_large_run(ctx):
    # While a thread runs a large plan, the main thread samples 17 bytes of
    # the output in one numpy call (atomic under the GIL). Held during the
    # run, the GIL would let it see only "nothing written" or "all
    # written"; released, it sees the output partly written.
    shape = (1, 256, 512, 512)
    x = np.ones(shape, np.int8)
    p = ctx.plan("core.nchw", shape, "int8")
    partial = 0
    for _ in range(3):
        y = np.zeros(p.dst_bytes, np.uint8)
        idx = np.linspace(0, len(y) - 1, 17).astype(np.intp)
        done = threading.Event()
        t = threading.Thread(target=lambda: (p.run(x, out=y), done.set()))
        t.start()
        while not done.is_set():
            v = y[idx]
            partial += int(v.min() != v.max())
        t.join()
        assert (y == 1).all()
    assert partial > 0


def test_version_and_docstrings():
    assert lay.__version__.count(".") == 2
    for name in lay.__all__:
        obj = getattr(lay, name)
        if callable(obj):
            assert obj.__doc__, name
    for m in ("run", "where", "at", "describe", "show"):
        assert getattr(lay.Plan, m).__doc__
    for m in ("plan", "convert_plan", "load_file", "load_string", "load_hsi", "names", "dims"):
        assert getattr(lay.Context, m).__doc__
