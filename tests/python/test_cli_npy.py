# test_cli_npy.py: .npy files and named shapes on the lay command line,
# checked with numpy's own np.save/np.load and against the Python module:
# the round trip pack -i x.npy -> unpack -o y.npy, the header's shape and
# dtype against --shape/--dtype, .npy outputs, and hostile files (Fortran
# order, unsupported dtypes, malformed or truncated headers) rejected with
# one clear line and exit status 1, never a crash.
import random

import numpy as np
import pytest

import lay


def test_npy_round_trip_through_the_cli(cli, tmp_path):
    x = np.random.default_rng(1).uniform(-4, 4, (1, 3, 5, 7)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    cli("pack", "amd.hcwnc4", "-i", str(tmp_path / "x.npy"), "-o", str(tmp_path / "hw.bin"))
    hw = (tmp_path / "hw.bin").read_bytes()
    assert hw == lay.pack("amd.hcwnc4", x).tobytes()
    cli("unpack", "amd.hcwnc4", "--shape", "1,3,5,7", "--dtype", "fp32",
        "-i", str(tmp_path / "hw.bin"), "-o", str(tmp_path / "y.npy"))
    y = np.load(tmp_path / "y.npy")
    assert y.dtype == np.float32 and y.shape == x.shape and np.array_equal(x, y)
    # pack to .npy: the buffer as 1-D uint8; unpack reads it back
    cli("pack", "amd.hcwnc4", "-i", str(tmp_path / "x.npy"), "-o", str(tmp_path / "hw.npy"))
    h = np.load(tmp_path / "hw.npy")
    assert h.dtype == np.uint8 and h.shape == (len(hw),) and h.tobytes() == hw
    cli("unpack", "amd.hcwnc4", "--shape", "1,3,5,7", "--dtype", "fp32",
        "-i", str(tmp_path / "hw.npy"), "-o", str(tmp_path / "y2.npy"))
    assert np.array_equal(np.load(tmp_path / "y2.npy"), x)
    # convert to .npy
    cli("convert", "amd.hcwnc4", "core.nhwc", "--shape", "1,3,5,7", "--dtype", "fp32",
        "-i", str(tmp_path / "hw.bin"), "-o", str(tmp_path / "nhwc.npy"))
    assert np.load(tmp_path / "nhwc.npy").tobytes() == x.transpose(0, 2, 3, 1).tobytes()
    # --npy to stdout
    out = cli("unpack", "amd.hcwnc4", "--shape", "1,3,5,7", "--dtype", "fp32", "--npy",
              "-i", str(tmp_path / "hw.bin"))
    (tmp_path / "s.npy").write_bytes(out)
    assert np.array_equal(np.load(tmp_path / "s.npy"), x)


def test_npy_dtypes(cli, tmp_path):
    for dt, npd in [("int8", np.int8), ("uint8", np.uint8), ("int16", np.int16),
                    ("uint16", np.uint16), ("int32", np.int32), ("fp16", np.float16)]:
        x = (np.arange(2 * 5 * 3 * 4) % 100).astype(npd).reshape(2, 5, 3, 4)
        np.save(tmp_path / "x.npy", x)
        cli("pack", "kneron.4w4c8b", "-i", str(tmp_path / "x.npy"), "-o", str(tmp_path / "h"))
        assert (tmp_path / "h").read_bytes() == lay.pack("kneron.4w4c8b", x).tobytes(), dt
        cli("unpack", "kneron.4w4c8b", "--shape", "2,5,3,4", "--dtype", dt,
            "-i", str(tmp_path / "h"), "-o", str(tmp_path / "y.npy"))
        y = np.load(tmp_path / "y.npy")
        assert y.dtype == npd and np.array_equal(x, y), dt
    # bf16 written as uint16 bits; a uint16 file packs as bf16 with --dtype bf16
    bits = np.arange(24, dtype=np.uint16).reshape(1, 3, 2, 4)
    np.save(tmp_path / "b.npy", bits)
    cli("pack", "amd.hcwnc4", "--dtype", "bf16", "-i", str(tmp_path / "b.npy"), "-o", str(tmp_path / "hb"))
    cli("unpack", "amd.hcwnc4", "--shape", "1,3,2,4", "--dtype", "bf16",
        "-i", str(tmp_path / "hb"), "-o", str(tmp_path / "b2.npy"))
    b2 = np.load(tmp_path / "b2.npy")
    assert b2.dtype == np.uint16 and np.array_equal(b2, bits)


def test_header_against_shape_and_dtype(cli, tmp_path):
    x = np.zeros((1, 3, 4, 5), np.float32)
    np.save(tmp_path / "x.npy", x)
    f = str(tmp_path / "x.npy")
    p = cli("pack", "amd.hcwnc4", "-i", f, "--shape", "1,4,3,5", "-o", "/dev/null", ok=False)
    assert p.returncode == 1
    assert p.stderr.decode() == "lay: --shape 1x4x3x5 contradicts %s, whose header says 1x3x4x5\n" % f
    p = cli("pack", "amd.hcwnc4", "-i", f, "--dtype", "int8", "-o", "/dev/null", ok=False)
    assert p.returncode == 1
    assert p.stderr.decode() == "lay: --dtype int8 contradicts %s, whose header says fp32\n" % f
    cli("pack", "amd.hcwnc4", "-i", f, "--shape", "1,3,4,5", "--dtype", "float32", "-o", "/dev/null")
    cli("pack", "amd.hcwnc4", "-i", f, "--shape", "n=1,c=3,h=4,w=5", "-o", "/dev/null")
    # unpack of a typed .npy of the wrong type
    p = cli("unpack", "amd.hcwnc4", "--shape", "1,3,4,5", "--dtype", "int8", "-i", f,
            "-o", "/dev/null", ok=False)
    assert p.returncode == 1 and b"holds fp32, the plan reads int8" in p.stderr


def test_named_shapes(cli, tmp_path):
    ok = cli("info", "amd.hcwnc4", "--shape", "n=1,c=3,h=224,w=224")
    assert b"cpu side:  1x3x224x224" in ok
    p = cli("pack", "amd.hcwnc4", "--shape", "n=1,h=224,w=224,c=3", "-i", "/dev/null",
            ok=False)
    assert p.returncode == 1
    assert p.stderr.decode().startswith(
        "lay: --shape n=1,h=224,w=224,c=3: amd.hcwnc4's CPU-side dimensions are n,c,h,w, "
        "in that order; the names given are n,h,w,c")
    p = cli("info", "core.ab", "--shape", "a=2,x=3", ok=False)
    assert p.returncode == 1 and b"dimensions are a,b" in p.stderr
    p = cli("info", "core.ab", "--shape", "a=2,=3", ok=False)
    assert p.returncode == 1 and b"expected name=size items" in p.stderr
    p = cli("info", "core.ab", "--shape", "a=2,b=x", ok=False)
    assert p.returncode == 1 and b"is not a number" in p.stderr


def _npy(header, data=b"", version=b"\x01\x00"):
    h = header.encode()
    if version[0] == 1:
        return b"\x93NUMPY" + version + len(h).to_bytes(2, "little") + h + data
    return b"\x93NUMPY" + version + len(h).to_bytes(4, "little") + h + data


HOSTILE = [
    (b"PK\x03\x04 not numpy", "not an .npy file"),
    (b"\x93NUMPY\x01", "not an .npy file"),
    (_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", bytes(24)),
     "Fortran order"),
    (_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }\n", bytes(48)),
     "dtype '<f8' is not supported"),
    (_npy("{'descr': '>i2', 'fortran_order': False, 'shape': (2, 3), }\n", bytes(12)),
     "big-endian"),
    (_npy("{'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }\n", bytes(48)),
     "dtype '|O' is not supported"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", bytes(20)),
     "the header says 2x3 <f4 (24 bytes), the file holds 20 bytes"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, }\n", bytes(24)),
     "expected a size in the shape"),
    (_npy("{'descr': '<f4', 'shape': (2, 3), }\n", bytes(24)), "no 'fortran_order' key"),
    (_npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}\n"),
     "a key given twice"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}\n"),
     "an unknown key"),
    (_npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3)}\n"),
     "fortran_order must be True or False"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}\n"),
     "too large"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296)}\n"),
     "overflows 64 bits"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1)}\n"),
     "more than 8 dimensions"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': ()}\n", bytes(4)), "scalar"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3)}\n"), "is 0"),
    (_npy("{'descr': '<f4", bytes(4)), "unterminated string"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk\n", bytes(8)),
     "text after the dict"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n", bytes(8),
          b"\x09\x00"), "version 9.0 is not supported"),
    (b"\x93NUMPY\x01\x00\xff\x7f{'descr'", "truncated .npy file"),
    (b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'", "truncated .npy file"),
]


@pytest.mark.parametrize("data,message", HOSTILE)
def test_hostile_npy_inputs(cli, tmp_path, data, message):
    f = tmp_path / "bad.npy"
    f.write_bytes(data)
    p = cli("pack", "core.flat2", "-i", str(f), "-o", str(tmp_path / "out"), ok=False)
    assert p.returncode == 1, p.stderr
    err = p.stderr.decode()
    assert err.startswith("lay: %s: " % f) and message in err, err
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_version_2_header_is_read(cli, tmp_path):
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    f = tmp_path / "v2.npy"
    f.write_bytes(_npy("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }\n",
                       x.tobytes(), b"\x02\x00"))
    assert cli("pack", "core.ab", "-i", str(f)) == x.tobytes()


def test_mutated_npy_files_never_crash(cli, tmp_path):
    x = np.arange(60, dtype=np.float32).reshape(1, 3, 4, 5)
    np.save(tmp_path / "x.npy", x)
    base = (tmp_path / "x.npy").read_bytes()
    rnd = random.Random(18)
    f = tmp_path / "m.npy"
    for _ in range(150):
        b = bytearray(base)
        for _ in range(rnd.randint(1, 6)):
            b[rnd.randrange(128)] = rnd.randrange(256)
        if rnd.random() < 0.3:
            b = b[:rnd.randrange(len(b))]
        f.write_bytes(bytes(b))
        p = cli("pack", "amd.hcwnc4", "-i", str(f), "-o", "/dev/null", ok=False)
        assert p.returncode in (0, 1), p.returncode
        if p.returncode:
            assert p.stderr.startswith(b"lay: ") and p.stderr.count(b"\n") == 1, p.stderr
