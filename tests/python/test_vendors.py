# test_vendors.py: the vendor imports of the Python module against the lay
# CLI on the same files and data: lay.TidlModel over the io_1.bin files of
# every SDK version that tests/tidl's generator writes (TIDL_GEN, set by
# CTest), and lay.KneronTensor over tests/kneron's descriptors. Every pack
# and unpack is compared byte for byte with `lay pack/unpack --tidl FILE
# --input/--output K` and `--kneron FILE [--dtype T]`, input 0 and output
# 0 also with TIDL-RT's own bytes (the generator's .expect files); broken
# files raise lay.Error with the CLI's text (the field, or the JSON line
# and column).
import os
import subprocess
import zlib

import numpy as np
import pytest

import lay

VERSIONS = ["v0806", "v09_1", "v09_2", "v09_4", "v10"]
GOOD_TIDL = VERSIONS + ["v10_multi", "v10_dims"]
# Files the generator writes that fail as a whole (tests/tidl/tidl_cli.sh).
WHOLE_FILE_BAD = ["bad_size", "bad_multi", "bad_nin", "bad_nin_neg",
                  "bad_nout", "bad_cores"]


@pytest.fixture(scope="module")
def tidl_dir(tmp_path_factory):
    """A folder of the generator's io_1.bin files, inputs and expectations."""
    d = tmp_path_factory.mktemp("tidl")
    subprocess.run([os.environ["TIDL_GEN"], str(d)], check=True,
                   capture_output=True)
    return str(d)


def tidl_files(d):
    return sorted(f[:-4] for f in os.listdir(d)
                  if f.endswith(".bin") and (f.startswith("v") or f.startswith("bad_")))


def sample(shape, dtype, seed):
    """Values of every kind for a CPU side: fp32 over and under the TIDL
    ranges (clamps), integers over the whole range."""
    r = np.random.default_rng(seed)
    if dtype == "fp32":
        return r.uniform(-300, 300, shape).astype(np.float32)
    t = lay.numpy_dtype(dtype)
    info = np.iinfo(t)
    return r.integers(info.min, info.max, shape, endpoint=True).astype(t)


def noise(n, seed):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def cli_line(e):
    """The one line the CLI prints for the library error e."""
    if e.line > 0:
        return "lay: %s:%d:%d: %s" % (e.file, e.line, e.col, e.message)
    return "lay: %s: %s" % (e.file, e.message)


# ---- TIDL ----------------------------------------------------------------------

@pytest.mark.parametrize("v", VERSIONS + ["v10_multi"])
def test_tidl_input0_and_output0_are_tidl_rts_bytes(v, tidl_dir):
    m = lay.TidlModel(os.path.join(tidl_dir, v + ".bin"))
    ver = "v10" if v == "v10_multi" else v
    t = m.inputs[0]
    x = np.fromfile(os.path.join(tidl_dir, "in0.f32"), np.float32)
    with open(os.path.join(tidl_dir, "in0_%s.expect" % ver), "rb") as f:
        assert t.pack(x.reshape(t.cpu_shape)).tobytes() == f.read()
    if v == "v10_multi":
        return  # the container's second subgraph has no expectation file
    buf = np.fromfile(os.path.join(tidl_dir, "out0_%s.tidl" % ver), np.uint8)
    y = m.outputs["logits"].unpack(buf)
    assert y.shape == m.outputs[0].cpu_shape and y.dtype == np.float32
    with open(os.path.join(tidl_dir, "out0_%s.expect" % ver), "rb") as f:
        assert y.tobytes() == f.read()


def test_tidl_every_tensor_of_every_file_against_the_cli(tidl_dir, cli):
    """Every usable tensor of every file (good and per-tensor broken),
    by index and by name, both directions, against the CLI."""
    seen = 0
    for f in tidl_files(tidl_dir):
        if f in WHOLE_FILE_BAD:
            continue
        path = os.path.join(tidl_dir, f + ".bin")
        m = lay.TidlModel(path)
        for side, opt, tensors in (("pack", "--input", m.inputs),
                                   ("unpack", "--output", m.outputs)):
            for t in tensors:
                if t.issue:
                    continue
                seed = zlib.crc32(("%s %s %d" % (f, side, t.index)).encode())
                if side == "pack":
                    data = sample(t.cpu_shape, t.cpu_dtype, seed)
                    got = t.pack(data)
                else:
                    data = noise(t.plan("unpack").src_bytes, seed)
                    got = t.unpack(data)
                    assert got.shape == t.cpu_shape
                ref = cli(side, "--tidl", path, opt, str(t.index),
                          data=data.tobytes())
                assert got.tobytes() == ref, (f, side, t.index)
                if t.name and tensors[t.name] is t:  # names may repeat
                    assert cli(side, "--tidl", path, opt, t.name,
                               data=data.tobytes()) == ref
                seen += 1
    assert seen >= 7 * 4 + 20  # the good files, and the broken files' others


def test_tidl_facts_spec_and_check_are_the_clis(tidl_dir, cli, monkeypatch):
    monkeypatch.chdir(tidl_dir)  # the file named as the CLI is given it
    for f in tidl_files(tidl_dir):
        if f in WHOLE_FILE_BAD:
            continue
        path = f + ".bin"
        m = lay.TidlModel(path, namespace="tidl")
        p = cli("tidl", path, "--check", cwd=tidl_dir, ok=False)
        assert m.check() == p.stdout.decode(), f
        bad = sum(1 for t in m.inputs + m.outputs if t.issue)
        assert p.returncode == (1 if bad else 0), f
        # The spec is `lay tidl FILE` without its "# ... buffers" lines.
        p = cli("tidl", path, cwd=tidl_dir, ok=False)
        text = "".join(l for l in p.stdout.decode().splitlines(True)
                       if not (l.startswith("# ") and " buffers: " in l))
        assert m.spec() == text, f
    m = lay.TidlModel(os.path.join(tidl_dir, "v10.bin"))
    assert m.version == "SDK 10"
    assert m.inputs.names() == ["input.1", "img"]
    assert m.outputs.names() == ["logits", "scores"]
    img = m.inputs["img"]
    assert (img.cpu_shape, img.cpu_dtype, img.hw_dtype, img.nhwc) == \
        ((1, 2, 3, 3), "uint8", "uint8", True)
    o = m.outputs[0]
    assert (o.cpu_dtype, o.hw_dtype, o.nhwc) == ("fp32", "int16", False)
    assert o.buffer_bytes >= o.plan("unpack").src_bytes
    assert any(not fatal and "outPadB 2" in text for _, _, fatal, text in m.issues)
    assert lay.TidlModel(os.path.join(tidl_dir, "v10_multi.bin")).version == \
        "SDK 10, 2 subgraphs"
    d = lay.TidlModel(os.path.join(tidl_dir, "v10_dims.bin"))
    assert d.inputs[0].cpu_shape == (6, 3, 4, 5)


def test_tidl_raw_values_against_the_printed_spec(tidl_dir, cli, monkeypatch):
    """dtype=hw_dtype moves the buffer's own values: the same bytes as the
    CLI on NS.input0_raw (...) of the spec `lay tidl FILE` prints."""
    monkeypatch.chdir(tidl_dir)
    n = 0
    for f in VERSIONS + ["v10_dims"]:
        text = cli("tidl", f + ".bin").decode()
        with open("spec_%s.lay" % f, "w") as out:
            out.write(text)
        m = lay.TidlModel(f + ".bin")
        for side, tensors in (("pack", m.inputs), ("unpack", m.outputs)):
            for t in tensors:
                p = t.plan(side, t.hw_dtype)
                assert (p.src_dtype if side == "pack" else p.dst_dtype) == t.hw_dtype
                seed = zlib.crc32(("raw %s %s %d" % (f, side, t.index)).encode())
                if side == "pack":
                    data = sample(t.cpu_shape, t.hw_dtype, seed)
                    got = t.pack(data, dtype=t.hw_dtype)
                else:
                    data = noise(p.src_bytes, seed)
                    got = t.unpack(data, dtype=t.hw_dtype)
                    assert got.dtype == lay.numpy_dtype(t.hw_dtype)
                ref = cli("-f", "spec_%s.lay" % f, side,
                          "tidl.%s_raw" % t.format.split(".", 1)[1],
                          "--shape", ",".join(map(str, t.cpu_shape)),
                          "--dtype", t.hw_dtype, data=data.tobytes())
                assert got.tobytes() == ref, (f, side, t.index)
                n += 1
    assert n == 6 * 4
    t = lay.TidlModel("v10.bin").inputs[0]
    with pytest.raises(lay.DTypeError, match="x holds int8, the tensor's CPU side "
                       "is fp32 \\(dtype='int8' packs the buffer's values\\)"):
        t.pack(np.zeros(t.cpu_shape, np.int8))
    with pytest.raises(lay.DTypeError) as e:
        t.plan("pack", "uint16")
    assert e.value.message == ("dtype uint16: inputs[0] 'input.1' is fp32 (through "
                               "the tensor scale) or int8 (the TIDL buffer's values)")


def test_tidl_nhwc_and_out_without_allocating(tidl_dir):
    nhwc = np.arange(18, dtype=np.uint8).reshape(1, 2, 3, 3)
    # SDK 08.06's TIDL-RT writes an NHWC input planar; SDK 10 keeps NHWC.
    planar = nhwc.transpose(0, 3, 1, 2).reshape(-1)
    old = lay.TidlModel(os.path.join(tidl_dir, "v0806.bin")).inputs["img"]
    assert old.pack(nhwc).tobytes() == planar.tobytes()
    t = lay.TidlModel(os.path.join(tidl_dir, "v10.bin")).inputs["img"]
    out = np.zeros(t.plan("pack").dst_bytes, np.uint8)
    addr = out.__array_interface__["data"][0]
    assert t.pack(nhwc, out=out) is out
    assert out.__array_interface__["data"][0] == addr
    assert out.tobytes() == nhwc.tobytes()
    back = np.empty(t.cpu_shape, np.uint8)
    assert t.unpack(out, out=back) is back and np.array_equal(back, nhwc)


# The per-tensor broken files: (file, output?, index, the text lay prints).
TENSOR_BAD = [
    ("bad_padl", 0, 0, "inputs[0] 'input.1': inPadL: -1 (a pad must not be negative)"),
    ("bad_padb", 1, 0, "outputs[0] 'logits': outPadB: -2 (a pad must not be negative)"),
    ("bad_type64", 1, 1, "outputs[1] 'scores': outElementType: 7 (uint64): "
                         "TIDL's 64-bit element types are not imported (how "
                         "TIDL-RT converts them is not known to lay)"),
    ("bad_pitch", 0, 0, "inputs[0] 'input.1': inChannelPitch: 34 is less than "
                        "(inPadT + inHeight) * line pitch = (1 + 4) * 7 = 35"),
    ("bad_scalenan", 1, 0, "outputs[0] 'logits': outTensorScale: nan (must be a "
                           "finite positive number)"),
    ("bad_name", 0, 1, "inputs[1] '': inDataName: not NUL-terminated within its "
                       "512 bytes"),
]


@pytest.mark.parametrize("f,output,index,text", TENSOR_BAD)
def test_tidl_unusable_tensor_names_the_field(f, output, index, text, tidl_dir, cli):
    path = os.path.join(tidl_dir, f + ".bin")
    m = lay.TidlModel(path)
    t = (m.outputs if output else m.inputs)[index]
    assert t.issue == text
    assert "inconsistent: " + text in m.check().splitlines()
    for use in (lambda: t.pack(np.zeros(t.cpu_shape, np.float32)),
                lambda: t.unpack(np.zeros(8, np.uint8)),
                lambda: t.plan("pack")):
        with pytest.raises(lay.ArgError) as e:
            use()
        assert isinstance(e.value, ValueError)
        assert (e.value.file, e.value.message) == (path, text)
        assert str(e.value) == "%s: error: %s" % (path, text)
    side = "unpack" if output else "pack"
    p = cli(side, "--tidl", path, "--output" if output else "--input",
            str(index), data=b"", ok=False)
    assert p.returncode == 1 and p.stderr.decode().strip() == cli_line(e.value)
    usable = [u for u in m.inputs + m.outputs if not u.issue]
    assert len(usable) == 3  # the others still work
    for u in usable:
        u.plan("pack")


@pytest.mark.parametrize("f", WHOLE_FILE_BAD)
def test_tidl_broken_files_raise_the_clis_error(f, tidl_dir, cli):
    with pytest.raises(lay.ArgError) as e:
        lay.TidlModel(os.path.join(tidl_dir, f + ".bin"))
    assert e.value.file == os.path.join(tidl_dir, f + ".bin")
    p = cli("pack", "--tidl", f + ".bin", "--input", "0", data=b"",
            cwd=tidl_dir, ok=False)
    assert p.returncode == 1
    assert p.stderr.decode().strip() == cli_line(e.value).replace(
        os.path.join(tidl_dir, ""), "")


def test_tidl_lookups_sizes_and_missing_files(tidl_dir):
    m = lay.TidlModel(os.path.join(tidl_dir, "v10.bin"))
    with pytest.raises(KeyError, match="no tensor named 'nope'.*'input.1', 'img'"):
        m.inputs["nope"]
    with pytest.raises(IndexError):
        m.outputs[2]
    with pytest.raises(ValueError, match="input has 72 bytes, the plan's input side has 240"):
        m.inputs[0].pack(np.zeros(18, np.float32))
    with pytest.raises(TypeError, match="uint16"):
        m.inputs["img"].pack(np.zeros((1, 2, 3, 3), np.uint16))
    with pytest.raises(lay.FileError) as e:
        lay.TidlModel(os.path.join(tidl_dir, "no_such_io_1.bin"))
    assert isinstance(e.value, OSError)
    # Two models in one context: each in its own namespace.
    ctx = lay.Context(lay_path=False)
    a = lay.TidlModel(os.path.join(tidl_dir, "v10.bin"), ctx=ctx)
    b = lay.TidlModel(os.path.join(tidl_dir, "v0806.bin"), ctx=ctx)
    assert a.namespace != b.namespace and a.context is b.context is ctx
    with pytest.raises(lay.NameError):
        lay.TidlModel(os.path.join(tidl_dir, "v10.bin"), ctx=ctx,
                      namespace=a.namespace)


def test_context_load_tidl_and_load_kneron(tidl_dir, src):
    """Context.load_tidl/load_kneron define the same layouts the objects use."""
    ctx = lay.Context(lay_path=False)
    path = os.path.join(tidl_dir, "v10.bin")
    ctx.load_tidl(path, "t")
    assert {"t.input0", "t.input1", "t.output0", "t.output1"} <= set(ctx.names())
    m = lay.TidlModel(path)
    t = m.inputs[0]
    x = sample(t.cpu_shape, "fp32", 11)
    assert lay.pack("t.input0", x, ctx=ctx).tobytes() == t.pack(x).tobytes()
    kp = os.path.join(kneron_src(src), "good", "v2_4w4c8b.json")
    k = lay.KneronTensor(kp)
    ctx.load_kneron(kp, "k")
    fmt = "k." + k.format.split(".", 1)[1]
    y = sample(k.cpu_shape, "fp32", 12)
    assert lay.pack(fmt, y, ctx=ctx).tobytes() == k.pack(y).tobytes()
    with pytest.raises(lay.ArgError):
        ctx.load_tidl(os.path.join(tidl_dir, "bad_size.bin"), "u")
    with pytest.raises(lay.ReportError):
        ctx.load_kneron(os.path.join(kneron_src(src), "bad", "b02_eof.json"), "u")
    with pytest.raises(TypeError, match="lay.Context"):
        lay._lay._Tidl(path).load(object(), "v")


# ---- Kneron --------------------------------------------------------------------

def kneron_src(src):
    return os.path.join(src, "tests", "kneron")


def good_descriptors(src):
    d = os.path.join(kneron_src(src), "good")
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json"))


def test_kneron_every_descriptor_against_the_cli(src, cli):
    files = good_descriptors(src)
    assert len(files) >= 15
    for i, path in enumerate(files):
        k = lay.KneronTensor(path)
        assert k.dtype == "fp32"
        x = np.random.default_rng(i).uniform(-40, 40, k.cpu_shape).astype(np.float32)
        hw = k.pack(x)
        assert hw.dtype == np.uint8 and hw.ndim == 1
        assert hw.tobytes() == cli("pack", "--kneron", path, data=x.tobytes()), path
        buf = noise(k.plan("unpack").src_bytes, i)
        y = k.unpack(buf)
        assert y.shape == k.cpu_shape and y.dtype == np.float32
        assert y.tobytes() == cli("unpack", "--kneron", path, data=buf.tobytes()), path
        if k.shape_version == 2:
            assert k.npu_bytes >= hw.nbytes
        if k.fixed_dtype == "fp32":  # RAW_FLOAT: one definition
            assert k.fixed_format == k.format
            continue
        # The NPU's integers with dtype=, as the CLI's --dtype; the array's
        # type alone does not choose them.
        q = sample(k.cpu_shape, k.fixed_dtype, i)
        hq = k.pack(q, dtype=k.fixed_dtype)
        assert hq.tobytes() == cli("pack", "--kneron", path, "--dtype",
                                   k.fixed_dtype, data=q.tobytes()), path
        with pytest.raises(lay.DTypeError, match="x holds %s, the tensor's CPU side "
                           "is fp32 \\(dtype='%s' packs" % (k.fixed_dtype, k.fixed_dtype)):
            k.pack(q)
        yq = k.unpack(buf, dtype=k.fixed_dtype)
        assert yq.dtype == lay.numpy_dtype(k.fixed_dtype)
        assert yq.tobytes() == cli("unpack", "--kneron", path, "--dtype",
                                   k.fixed_dtype, data=buf.tobytes()), path
        # The integers come back, but for bit 0 of a 16-bit one, which the
        # NPU does not keep (tests/kneron/kneron_ref.c: 16-bit words are
        # u & 0xfffe; high/low formats keep (u >> 1) & 0x7f).
        want = q & ~1 if k.fixed_dtype == "int16" else q
        assert np.array_equal(k.unpack(hq, dtype=k.fixed_dtype), want), path


def test_kneron_facts_and_spec(src, cli):
    path = os.path.join(kneron_src(src), "good", "v2_1w16c8b_n2.json")
    k = lay.KneronTensor(path, namespace="kp")
    assert (k.name, k.index, k.data_layout, k.shape_version) == \
        ("v2_1w16c8b_n2", 0, "1W16C8B", 2)
    assert k.cpu_shape == (2, 17, 2, 3)
    assert (k.fixed_dtype, k.npu_bytes, k.nscales) == ("int8", 384, 1)
    assert k.format == "kp.tensor(192,96,48,16,1)"
    assert k.fixed_format == "kp.tensor_fixed(192,96,48,16,1)"
    text = cli("kneron", path).decode()
    assert k.spec() + "# the SDK's NPU buffer: 384 bytes\n" == text
    v1 = lay.KneronTensor(os.path.join(kneron_src(src), "good", "v1_kl520_4w4c8b.json"))
    assert v1.shape_version == 1 and v1.cpu_shape == (1, 3, 224, 224)
    qc = lay.KneronTensor(os.path.join(kneron_src(src), "good", "v2_16w1c8b_qc.json"))
    assert (qc.nscales, qc.quantized_axis) == (3, 1)
    x = np.zeros(k.cpu_shape, np.int32)
    with pytest.raises(lay.DTypeError) as e:
        k.pack(x, dtype="int32")
    assert isinstance(e.value, TypeError)
    assert "int32" in str(e.value) and "fp32" in str(e.value) and "int8" in str(e.value)
    p = cli("pack", "--kneron", path, "--dtype", "int32", data=x.tobytes(), ok=False)
    # The same text, but for the option's name.
    assert p.returncode == 1 and p.stderr.decode().strip() == \
        cli_line(e.value).replace(": dtype int32", ": --dtype int32")
    # An NHWC array of the right size is not taken for the NCHW tensor.
    with pytest.raises(ValueError, match=r"shape \(2, 2, 3, 17\), the plan's CPU side is \(2, 17, 2, 3\)"):
        k.pack(np.zeros((2, 2, 3, 17), np.float32))


def test_kneron_broken_descriptors_raise_the_clis_error(src, cli, monkeypatch):
    d = kneron_src(src)
    monkeypatch.chdir(d)
    n = 0
    with open(os.path.join(d, "bad", "expected.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, want = line.rstrip("\n").split("\t")
            path = "bad/" + name
            with pytest.raises(lay.Error) as e:
                lay.KneronTensor(path)
            assert cli_line(e.value) == want, name
            p = cli("pack", "--kneron", path, data=b"", ok=False)
            assert p.stderr.decode().strip() == want
            n += 1
    assert n >= 30
    with pytest.raises(lay.ReportError) as e:
        lay.KneronTensor("bad/b01_syntax.json")
    assert (e.value.line, e.value.col) == (3, 17)
    assert str(e.value).startswith("bad/b01_syntax.json:3:17: error: malformed JSON")
    with pytest.raises(lay.FileError):
        lay.KneronTensor("bad/no_such.json")


def test_vendor_docstrings():
    for cls in (lay.TidlModel, lay.TidlTensor, lay.KneronTensor):
        assert cls.__doc__
        for m in dir(cls):
            if not m.startswith("_") and callable(getattr(cls, m)):
                assert getattr(cls, m).__doc__, (cls, m)
    for m in ("load_tidl", "load_kneron"):
        assert getattr(lay.Context, m).__doc__
