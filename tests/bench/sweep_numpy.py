#!/usr/bin/python3
"""tests/bench/sweep_numpy.py: numpy's side of the sweep benchmark.

For every case that `lay_sweep --dump DIR` wrote (DIR/cases.jsonl, with
DIR/<i>.src and DIR/<i>.ref), build the conversion the way a numpy user
writes it from the layout's description:
    pack:    value rule -> np.pad -> reshape into digits -> transpose
             -> np.ascontiguousarray (a pitched layout with holes: assign
             into a pad-filled buffer through an as_strided view)
    unpack:  the same backwards (reshape or as_strided, transpose,
             reshape, slice, value rule)
    convert: unpack the source, transpose the dims by name, pack the target
check the bytes against lay_sweep's per-element reference, and time it as
lay_sweep times lay: interleaved batches against np.copyto of the larger
buffer, median of the per-batch ratio. A value rule is computed in float32
when that gives the reference's bytes, otherwise in float64.

    sweep_numpy.py DIR [--check]   (writes DIR/numpy.tsv: name, x_memcpy, us, note)
"""
import json
import os
import sys
import time

import numpy as np
from numpy.lib.stride_tricks import as_strided

TARGET_S = 0.024  # per (case, implementation), as lay_sweep
NB = 7

NP = {"fp32": np.float32, "fp16": np.float16, "bf16": np.uint16, "int8": np.int8,
      "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
      "uint32": np.uint32, "int64": np.int64}
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32}


class Unsupported(Exception):
    pass


# LAY_SWEEP_CLOCK=cpu: this thread's CPU time, as lay_sweep (see README.md)
CLOCK = time.CLOCK_THREAD_CPUTIME_ID if os.environ.get("LAY_SWEEP_CLOCK") == "cpu" else time.CLOCK_MONOTONIC


def now():
    return time.clock_gettime(CLOCK)


def int_range(t):
    i = np.iinfo(NP[t])
    return i.min, i.max


def bcast(v, axis, rank, ft):
    """Per-tensor scalar, or per-channel array shaped to broadcast along axis."""
    a = np.asarray(v, dtype=ft)
    if a.size == 1:
        return a.reshape(())
    sh = [1] * rank
    sh[axis] = a.size
    return a.reshape(sh)


def rounding(t, mode):
    if mode == 0:
        return np.rint(t)
    if mode == 2:
        return np.trunc(t)
    return np.trunc(t + np.copysign(np.asarray(0.5, t.dtype), t))


def to_bf16(x, mode=0):
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    if mode == 2:  # round = truncate: the top 16 bits (VART-ML's float_to_bf16)
        return (u >> np.uint32(16)).astype(np.uint16)
    r = ((u + np.uint32(0x7fff) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)
    nan = np.isnan(x)
    if nan.any():
        r[nan] = ((u[nan] >> np.uint32(16)) | np.uint32(0x40)).astype(np.uint16)
    return r


def encode(x, L, ft):
    """CPU values -> the split (hw) type, then byte planes if any."""
    v = L["v"]
    split = v["split"]
    rank = x.ndim
    if v["kind"] == 2:
        if v["dequant"]:
            raise Unsupported("dequantizing pack")
        num, den = np.asarray(v["num"], np.float64), np.asarray(v["den"], np.float64)
        xoff, zp = v["xoff"], v["zp"]
        if ft == np.float32:
            t = x
            if any(xoff):
                t = t - bcast(xoff, v["axis"], rank, ft)
            t = t * bcast(num / den, v["axis"], rank, ft)
        else:
            t = (x.astype(np.float64) - bcast(xoff, v["axis"], rank, ft)) * bcast(num, v["axis"], rank, ft) \
                / bcast(den, v["axis"], rank, ft)
        q = rounding(t, v["round"])
        if any(zp):
            q = q + bcast(zp, v["axis"], rank, ft)
        lo, hi = int_range(split)
        val = np.clip(np.nan_to_num(q, nan=0.0), lo, hi).astype(NP[split])
    elif v["kind"] == 1:
        if split == "fp16":
            if v["round"] == 2:
                raise Unsupported("truncating fp16 cast")
            val = x.astype(np.float16)
        elif split == "bf16":
            val = to_bf16(x, v["round"])
        elif split == "fp32":
            val = x.astype(np.float32)
        else:
            lo, hi = int_range(split)
            val = np.clip(np.nan_to_num(rounding(x.astype(ft), v["round"]), nan=0.0), lo, hi).astype(NP[split])
    else:
        val = x
    if not v["planes"]:
        return val
    u = val.view(UNSIGNED[val.dtype.itemsize])
    return np.stack([((u >> s) & m).astype(np.uint8) for s, m in v["planes"]], axis=-1)


def decode(h, L, cpu, ft):
    """hw values (planes on the last axis) -> CPU values."""
    v = L["v"]
    split = v["split"]
    if v["planes"]:
        size = np.dtype(NP[split]).itemsize
        u = np.zeros(h.shape[:-1], np.uint32)
        for k, (s, m) in enumerate(v["planes"]):
            u |= (h[..., k].astype(np.uint32) & np.uint32(m)) << np.uint32(s)
        h = u.astype(UNSIGNED[size]).view(NP[split])
    rank = h.ndim
    if v["kind"] == 2:
        if v["dequant"]:
            raise Unsupported("dequantizing unpack")
        num, den = np.asarray(v["num"], np.float64), np.asarray(v["den"], np.float64)
        xoff, zp = v["xoff"], v["zp"]
        if ft == np.float32:
            t = h.astype(np.float32)
            if any(zp):
                t = t - bcast(zp, v["axis"], rank, ft)
            t = t * bcast(den / num, v["axis"], rank, ft)
            if any(xoff):
                t = t + bcast(xoff, v["axis"], rank, ft)
        else:
            t = (h.astype(np.float64) - bcast(zp, v["axis"], rank, ft)) * bcast(den, v["axis"], rank, ft) \
                / bcast(num, v["axis"], rank, ft) + bcast(xoff, v["axis"], rank, ft)
        return t.astype(NP[cpu])
    if v["kind"] == 1:
        if split == "bf16":
            return (h.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(NP[cpu])
        return h.astype(NP[cpu])
    return h


class Geometry:
    """The index part of a layout: digits per dim, memory order, strides."""

    def __init__(self, L, shape):
        self.L = L
        self.shape = list(shape)
        dims = L["dims"]
        self.rank = len(dims)
        self.planes = len(L["v"]["planes"])
        axes = L["axes"]
        self.split = []        # the reshaped array's axes: (kind, dim, axis index)
        for d in range(self.rank):
            ds = sorted([j for j, a in enumerate(axes) if a[0] == "d" and a[1] == d],
                        key=lambda j: -axes[j][2])
            if int(np.prod([axes[j][4] for j in ds])) != dims[d][3]:
                raise Unsupported("digits of dim %d do not tile it" % d)
            self.split += ds
        self.split += [j for j, a in enumerate(axes) if a[0] == "p"]
        self.mem = [j for j, a in enumerate(axes) if a[0] != "u"]   # memory order, no unit axes
        self.perm = [self.split.index(j) for j in self.mem]
        self.inv = list(np.argsort(self.perm))
        self.ext = [axes[j][4] for j in self.mem]
        self.strides = [axes[j][5] for j in self.mem]
        inner, dense = 1, True
        for j in reversed(range(len(axes))):
            dense &= axes[j][5] == inner or axes[j][4] == 1
            inner *= axes[j][4]
        self.dense = dense and inner == L["nelem"]
        self.split_shape = [axes[j][4] for j in self.split]
        self.window = any(lo != 0 or hi != s for (lo, hi, _, _), s in zip(dims, shape))
        self.padw = [(b, P - b - (hi - lo)) for lo, hi, b, P in dims] + [(0, 0)] * (1 if self.planes else 0)
        self.padded = any(a or b for a, b in self.padw)
        self.pdims = [P for _, _, _, P in dims] + ([self.planes] if self.planes else [])


def hw_type(L):
    if not L["v"]["planes"] and L["hw"] not in NP:
        raise Unsupported(L["hw"] + " has no numpy type")  # fp8, int4
    return np.uint8 if L["v"]["planes"] else NP[L["hw"]]


def pad_value(L):
    p = L["v"]["pad"]
    if L["v"]["planes"] and p != 0:
        raise Unsupported("non-zero pad with byte planes")
    return p


def make_pack(L, shape, ft):
    g = Geometry(L, shape)
    ht, pv = hw_type(L), pad_value(L)

    def pack(x):
        h = encode(x, L, ft)
        if g.window:
            h = h[tuple(slice(lo, hi) for lo, hi, _, _ in L["dims"])]
        if g.padded:
            h = np.pad(h, g.padw, constant_values=pv)
        t = h.reshape(g.split_shape).transpose(g.perm)
        if g.dense:
            return np.ascontiguousarray(t)
        out = np.full(L["nelem"], pv, dtype=ht)
        view = as_strided(out, shape=g.ext, strides=[s * out.itemsize for s in g.strides])
        view[...] = t
        return out
    return pack


def make_unpack(L, shape, cpu, ft):
    g = Geometry(L, shape)

    def unpack(buf):
        if g.dense:
            t = buf.reshape(g.ext)
        else:
            t = as_strided(buf, shape=g.ext, strides=[s * buf.itemsize for s in g.strides])
        h = t.transpose(g.inv).reshape(g.pdims)
        sl = tuple(slice(b, b + hi - lo) for lo, hi, b, _ in L["dims"])
        h = h[sl]
        x = decode(h, L, cpu, ft)
        if g.window:
            raise Unsupported("window (slice) on unpack")
        return np.ascontiguousarray(x)
    return unpack


def make_fn(c, ft):
    shape, cpu = c["shape"], c["cpu"]
    if c["dir"] == "pack":
        return make_pack(c["a"], shape, ft)
    if c["dir"] == "unpack":
        return make_unpack(c["a"], shape, cpu, ft)
    un = make_unpack(c["a"], shape, cpu, ft)
    perm = c["map"]
    bshape = [shape[i] for i in perm]
    pk = make_pack(c["b"], bshape, ft)
    return lambda buf: pk(un(buf).transpose(perm))


def src_type(c):
    return NP[c["cpu"]] if c["dir"] == "pack" else hw_type(c["a"])


def bench(fns):
    reps = []
    for f in fns:
        f()
        n, t0 = 0, now()
        while True:
            f()
            n += 1
            t = now() - t0
            if t >= 0.002:
                break
        reps.append(max(1, int(TARGET_S / NB / (t / n))))
    tb = [[0.0] * NB for _ in fns]
    for b in range(NB):
        for i, f in enumerate(fns):
            t0 = now()
            for _ in range(reps[i]):
                f()
            tb[i][b] = (now() - t0) / reps[i]
    return float(np.median(tb[1])), float(np.median([tb[1][b] / tb[0][b] for b in range(NB)]))


def owned(f):
    """f with its result a buffer of its own: where the conversion moves
    no byte (identity layouts), reshape and ascontiguousarray return a view
    of the input, while lay writes the output buffer."""
    def g(x):
        r = f(x)
        return r.copy() if np.may_share_memory(r, x) else r
    return g


def run_case(d, c, check_only):
    x = np.fromfile("%s/%d.src" % (d, c["i"]), dtype=src_type(c))
    if c["dir"] == "pack":
        x = x.reshape(c["shape"])
    ref = np.fromfile("%s/%d.ref" % (d, c["i"]), dtype=np.uint8)
    fn, note = None, ""
    for ft in (np.float32, np.float64):
        f = owned(make_fn(c, ft))
        out = np.ascontiguousarray(f(x)).reshape(-1).view(np.uint8)
        if out.size == ref.size and np.array_equal(out, ref):
            fn = f
            note = "ok" if ft == np.float32 else "ok (float64)"
            break
        if c["a"]["v"]["kind"] == 0 and ("b" not in c or c["b"]["v"]["kind"] == 0):
            break  # no value rule: the float type changes nothing
    if fn is None:
        return -1.0, 0.0, "MISMATCH"
    if check_only:
        return 0.0, 0.0, note
    big = max(c["sb"], c["db"])
    a, b = np.ones(big, np.uint8), np.empty(big, np.uint8)
    us, ratio = bench([lambda: np.copyto(b, a), lambda: fn(x)])
    return ratio, us * 1e6, note


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: sweep_numpy.py DIR [--check]")
    d, check_only = sys.argv[1], "--check" in sys.argv[2:]
    cases = [json.loads(line) for line in open(d + "/cases.jsonl")]
    print("sweep_numpy: numpy %s, %d cases%s" % (np.__version__, len(cases),
          ", --check" if check_only else ", %d batches, %.0f ms per implementation" % (NB, TARGET_S * 1e3)))
    t0, bad, na = time.monotonic(), 0, 0
    with open(d + "/numpy.tsv", "w") as out:
        for c in cases:
            try:
                ratio, us, note = run_case(d, c, check_only)
            except Unsupported as e:
                ratio, us, note = -1.0, 0.0, "n/a: %s" % e
                na += 1
            if note == "MISMATCH":
                bad += 1
                print("  !!!!!!!! MISMATCH !!!!!!!! numpy, %s" % c["name"])
            elif not check_only and ratio > 0:
                print("%6.2f %9.2f  %s%s" % (ratio, us, c["name"], "" if note == "ok" else "  (" + note + ")"))
            out.write("%s\t%.4f\t%.3f\t%s\n" % (c["name"], ratio, us, note))
    print("sweep_numpy: %d cases in %.1f s; %d not expressed, %d differ from the reference"
          % (len(cases), time.monotonic() - t0, na, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
