# test_types.py: the element types int64, uint32, int4, uint4, fp8e4m3 and
# fp8e5m2 from Python: numpy mapping (int64 <-> np.int64; fp8 as raw uint8
# bytes; int4/uint4 one element per int8/uint8 item in pack/unpack, two per
# byte for Plan.run), against the CLI on the same data. Expected bytes
# are worked out by hand in the comments (the OCP FP8 spec for fp8).
import numpy as np
import pytest

import lay


def test_numpy_dtypes():
    assert lay.numpy_dtype("int64") == np.int64
    assert lay.numpy_dtype(np.int64) == np.int64
    assert lay.numpy_dtype("uint32") == np.uint32
    assert lay.numpy_dtype("float8_e4m3fn") == np.uint8
    assert lay.numpy_dtype("fp8e5m2") == np.uint8
    assert lay.numpy_dtype("int4") == np.int8
    assert lay.numpy_dtype("uint4") == np.uint8
    assert lay.dtype_info("int4") == ("int4", 1)
    assert lay.dtype_info(np.dtype("<i8")) == ("int64", 8)
    with pytest.raises(TypeError, match="unknown dtype 'int3'"):
        lay.dtype_info("int3")


def test_int64_from_the_array_type(ctx):
    # NCHW 1x2x1x2 -> NHWC: 1, 2^40 | -1, 7 -> 1, -1, 2^40, 7
    x = np.array([1, 2**40, -1, 7], np.int64).reshape(1, 2, 1, 2)
    hw = lay.pack("core.nhwc", x.transpose(0, 2, 3, 1))
    assert hw.view(np.int64).tolist() == [1, -1, 2**40, 7]
    p = ctx.convert_plan("core.nchw", "core.nhwc", (1, 2, 1, 2), np.int64)
    assert p.src_dtype == "int64" and p.dst_bytes == 32
    out = p.run(x)
    assert out.view(np.int64).tolist() == [1, -1, 2**40, 7]
    back = lay.unpack("core.nchw", x.view(np.uint8), (1, 2, 1, 2), "int64")
    assert back.dtype == np.int64 and back.tolist() == x.tolist()


def test_uint32_array_type():
    x = np.array([[1, 2], [3, 4000000000]], np.uint32)
    hw = lay.pack("xla.tiled(2,1)", x)
    # tiles (0..1, 0) then (0..1, 1): 1 3 2 4000000000
    assert hw.view(np.uint32).tolist() == [1, 3, 2, 4000000000]


def test_int4_pack_unpack(cli, tmp_path):
    # 2x3 int4 -8 -1 0 / 1 7 -3 in xla.tiled(2,2): b padded to 4, tiles
    # (0,0) (0,1) (1,0) (1,1) | (0,2) pad (1,2) pad = -8 -1 1 7 0 0 -3 0,
    # nibbles 8 f 1 7 0 0 d 0, low first: f8 71 00 0d
    x = np.array([[-8, -1, 0], [1, 7, -3]], np.int8)
    hw = lay.pack("xla.tiled(2,2)", x, dtype="int4")
    assert hw.tobytes().hex(" ") == "f8 71 00 0d"
    back = lay.unpack("xla.tiled(2,2)", hw, (2, 3), "int4")
    assert back.dtype == np.int8 and back.tolist() == x.tolist()
    # the hw view: one element per item, pads 0
    v = lay.pack("xla.tiled(2,2)", x, dtype="int4", hw_shape=True)
    assert v.shape == (1, 2, 2, 2)
    assert v.reshape(-1).tolist() == [-8, -1, 1, 7, 0, 0, -3, 0]
    # the CLI on the packed CPU bytes (low nibble first) gives the same
    cpu = lay.pack_nibbles(x)
    assert cpu.tobytes().hex(" ") == "f8 10 d7"
    (tmp_path / "x").write_bytes(cpu.tobytes())
    out = cli("pack", "xla.tiled(2,2)", "--shape", "2,3", "--dtype", "int4",
              "-i", str(tmp_path / "x"))
    assert out == hw.tobytes()


def test_uint4_and_plan_run_takes_packed_bytes(ctx):
    # uint4 0..5 as 2x3 in core.nhwc-like [w, h]: use a user layout
    ctx.load_string("namespace tt\nlayout wh (h, w) : uint4 -> [w, h]\n"
                    "  nibbles = high_first\n", "t")
    p = ctx.plan("tt.wh", (2, 3))
    assert p.src_dtype == "uint4" and p.src_bytes == 3 and p.dst_bytes == 3
    # elements 0 1 2 / 3 4 5 stored 0 3 1 4 2 5, high nibble first
    out = p.run(np.frombuffer(bytes.fromhex("103254"), np.uint8))
    assert out.tobytes().hex() == "031425"
    with pytest.raises(ValueError):
        p.run(np.zeros(6, np.uint8))  # one element per byte is not it
    u = lay.unpack_nibbles(bytes.fromhex("a9fe"), (2, 2), "uint4")
    assert u.tolist() == [[9, 10], [14, 15]]


def test_fp8_cast_through_a_layout(ctx):
    # E4M3 (saturating): 1.0 -> 0x38, 448 -> 0x7e, 500 -> 0x7e, -2.5 ->
    # 0xc2; E5M2: 1.0 -> 0x3c, 57344 -> 0x7b, 500 -> 512 = 0x60, -2.5 -> 0xc1
    ctx.load_string("namespace tf\n"
                    "layout e4 (a) : fp32 -> [a]\n  cast(to = fp8e4m3)\n"
                    "layout e5 (a) : fp32 -> [a]\n  cast(to = float8_e5m2)\n",
                    "t")
    x = np.array([1.0, 448, 500, -2.5], np.float32)
    assert ctx.plan("tf.e4", (4,)).run(x).tobytes().hex() == "387e7ec2"
    assert ctx.plan("tf.e5", (4,)).run(x).tobytes().hex() == "3c5f60c1"
    back = ctx.plan("tf.e4", (4,), direction="unpack").run(
        np.frombuffer(bytes.fromhex("387e7ec2"), np.uint8))
    assert back.tolist() == [1.0, 448.0, 448.0, -2.5]


def test_rknn_int4_b_high_nibble_first(ctx):
    # rknn.rk3588_mm_b_int4 (K = 2, N = 1: elements 5 6) stores element 0
    # in the high nibble (Rockchip's matmul demo): byte 0x56, 1024 bytes
    x = np.array([[5], [6]], np.int8)
    hw = lay.pack("rknn.rk3588_mm_b_int4", x, dtype="int4", ctx=ctx)
    assert hw.size == 1024 and hw[0] == 0x56 and not hw[1:].any()
    assert ctx.plan("rknn.rk3588_mm_b_int4", (2, 1)).layout_high_first
    assert not ctx.plan("rknn.rk3588_mm_a_int4", (1, 2)).layout_high_first
    # the hw view lists elements in memory order whatever the nibble order
    v = lay.pack("rknn.rk3588_mm_b_int4", x, dtype="int4", ctx=ctx,
                 hw_shape=True)
    assert v.shape == (1, 1, 64, 32) and v.reshape(-1)[:3].tolist() == [5, 6, 0]
    back = lay.unpack("rknn.rk3588_mm_b_int4", hw, (2, 1), ctx=ctx)
    assert back.tolist() == [[5], [6]]


def test_show_lists_every_int4_element(ctx):
    # xla.tiled(2,2) on 2x3: (0,0) (0,1) (1,0) (1,1) | (0,2) pad (1,2) pad,
    # two elements a byte: byte.nibble in memory order
    p = ctx.plan("xla.tiled(2,2)", (2, 3), "int4")
    assert p.show() == ("     0.0: (0,0)\n     0.1: (0,1)\n     1.0: (1,0)\n"
                        "     1.1: (1,1)\n     2.0: (0,2)\n     2.1: (0,3) pad\n"
                        "     3.0: (1,2)\n     3.1: (1,3) pad\n")


def test_cli_npy_int64_fp8_int4(cli, tmp_path):
    # int64 .npy (<i8) in, shape and dtype from the file: xla.tiled(2,1)
    # of 2x2 stores (0,0) (1,0) (0,1) (1,1)
    x = np.array([[1, 2**40], [-1, 7]], np.int64)
    np.save(tmp_path / "x.npy", x)
    cli("pack", "xla.tiled(2,1)", "-i", str(tmp_path / "x.npy"),
        "-o", str(tmp_path / "y.bin"))
    assert np.fromfile(tmp_path / "y.bin", np.int64).tolist() == [1, -1, 2**40, 7]
    cli("unpack", "core.nchw", "--shape", "1,2,1,2", "--dtype", "int64",
        "-i", str(tmp_path / "y.bin"), "-o", str(tmp_path / "u.npy"))
    assert np.load(tmp_path / "u.npy").dtype == np.int64
    # fp8 bits travel as uint8 (numpy has no fp8): a |u1 file with --dtype
    e = np.array([0x38, 0x7e, 0xc2, 0x01], np.uint8)
    np.save(tmp_path / "e.npy", e)
    out = cli("pack", "core.flat1", "--dtype", "fp8e4m3",
              "-i", str(tmp_path / "e.npy"))
    assert out == e.tobytes()
    # an int4 tensor written as .npy: its packed bytes, 1-D uint8
    (tmp_path / "n.bin").write_bytes(bytes.fromhex("103254"))
    cli("unpack", "core.ab", "--shape", "2,3", "--dtype", "int4",
        "-i", str(tmp_path / "n.bin"), "-o", str(tmp_path / "n.npy"))
    n = np.load(tmp_path / "n.npy")
    assert n.dtype == np.uint8 and n.tobytes().hex() == "103254"
    assert lay.unpack_nibbles(n, (2, 3)).tolist() == [[0, 1, 2], [3, 4, 5]]


def test_uint64_from_the_array_type(ctx, cli, tmp_path):
    # numpy's uint64 names and codes; NCHW 1x2x1x2 -> NHWC of 2^64 - 1,
    # 2^63 + 1 | 2^53 + 1, 5 is 2^64 - 1, 2^53 + 1, 2^63 + 1, 5: values no
    # double holds, moved exactly
    assert lay.numpy_dtype("uint64") == np.uint64
    assert lay.numpy_dtype(np.uint64) == np.uint64
    assert lay.dtype_info(np.dtype("<u8")) == ("uint64", 8)
    assert lay.dtype_info("Q") == ("uint64", 8)
    v = [2**64 - 1, 2**63 + 1, 2**53 + 1, 5]
    x = np.array(v, np.uint64).reshape(1, 2, 1, 2)
    want = [2**64 - 1, 2**53 + 1, 2**63 + 1, 5]
    hw = lay.pack("core.nhwc", x.transpose(0, 2, 3, 1))
    assert hw.view(np.uint64).tolist() == want
    p = ctx.convert_plan("core.nchw", "core.nhwc", (1, 2, 1, 2), np.uint64)
    assert p.src_dtype == "uint64" and p.dst_bytes == 32
    assert p.run(x).view(np.uint64).tolist() == want
    back = lay.unpack("core.nchw", x.view(np.uint8), (1, 2, 1, 2), "uint64")
    assert back.dtype == np.uint64 and back.reshape(-1).tolist() == v
    # the CLI on a '<u8' .npy gives the same bytes
    np.save(tmp_path / "x.npy", x)
    cli("pack", "core.nchw", "-i", str(tmp_path / "x.npy"),
        "-o", str(tmp_path / "y.bin"))
    assert np.fromfile(tmp_path / "y.bin", np.uint64).tolist() == v
    cli("unpack", "core.nhwc", "--shape", "1,1,2,2", "--dtype", "uint64",
        "-i", str(tmp_path / "y.bin"), "-o", str(tmp_path / "u.npy"))
    u = np.load(tmp_path / "u.npy")
    assert u.dtype == np.uint64 and u.reshape(-1).tolist() == v
