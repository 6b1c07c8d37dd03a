#!/usr/bin/env python3
# tests/conformance/data/gen.py: writes the binary fixtures of
# tests/conformance/amd.lay from AMD's flexmlrt-hsi.json examples, with a
# plain Python model of each step (not lay), so that the .lay tests compare
# lay against an independent computation. Run from this folder:
#   python3 gen.py
# The outputs are committed; the tests do not need Python.
import struct

def lcg(seed):
    while True:
        seed = (seed * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        yield seed >> 33

def q_int8(x, scale, zp):
    # AMD quantize: round half to even (Python's round), saturate to int8
    q = round(x / scale) + zp
    return max(-128, min(127, q))

# Input example: fp32 [1,3,32,32] -> quantize(0.0078125, int8) -> pad channels
# to 8 -> reshape [1,1,8,32,32] -> transpose [3,1,4,0,2] = [32,1,32,1,8].
g = lcg(1)
N, C, H, W = 1, 3, 32, 32
x = [((next(g) % 615) - 307) / 256.0 for _ in range(N * C * H * W)]
with open("hsi_in_x.bin", "wb") as f:
    f.write(struct.pack("<%df" % len(x), *x))
padded = [[[[0] * W for _ in range(H)] for _ in range(8)] for _ in range(N)]
for c in range(C):
    for h in range(H):
        for w in range(W):
            padded[0][c][h][w] = q_int8(x[(c * H + h) * W + w], 0.0078125, 0)
y = bytearray()
for h in range(H):            # transpose [3,1,4,0,2] of [n, cb, c8, h, w]
    for cb in range(1):
        for w in range(W):
            for n in range(N):
                for c8 in range(8):
                    y += struct.pack("<b", padded[n][cb * 8 + c8][h][w])
with open("hsi_in_y.bin", "wb") as f:
    f.write(y)

# Output example: int8 hw [32,1,32,1,8] -> transpose [3,1,4,0,2] ->
# reshape [1,8,32,32] -> slice [0:1, 0:4] -> dequantize(0.25) = fp32
# [1,4,32,32]. The hardware buffer holds data in its pad channels too: the
# slice drops them.
g = lcg(2)
hw = [(next(g) % 256) - 128 for _ in range(32 * 1 * 32 * 1 * 8)]
with open("hsi_out_hw.bin", "wb") as f:
    f.write(struct.pack("<%db" % len(hw), *hw))
cpu = []
for c in range(4):
    for h in range(32):
        for w in range(32):
            cpu.append(hw[h * 256 + w * 8 + c] * 0.25)
with open("hsi_out_cpu.bin", "wb") as f:
    f.write(struct.pack("<%df" % len(cpu), *cpu))
