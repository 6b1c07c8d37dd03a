#!/usr/bin/env python3
# tests/conformance/data/gen_rknn_int4.py: the fixtures of the RKNN int4
# matmul tests in tests/conformance/types.lay, computed with a plain Python
# model of Rockchip's own conversion code (rknn-toolkit2,
# rknpu2/examples/rknn_matmul_api_demo/src/matmul_utils.cpp:
# norm_layout_to_perf_layout for A, norm_layout_to_native_layout for B,
# int4 branch), not with lay. Run from this folder:
#   python3 gen_rknn_int4.py
# The outputs are committed; the tests do not need Python.


def values(n, seed):
    """n int4 values in [-8, 7] (a small LCG)."""
    out = []
    for _ in range(n):
        seed = (seed * 1103515245 + 12345) % (1 << 31)
        out.append(((seed >> 16) % 16) - 8)
    return out


def cpu_bytes(v):
    """lay's CPU-side int4: element 2k in the low nibble of byte k."""
    v = v + [0] * (len(v) % 2)
    return bytes((v[i] & 0xF) | ((v[i + 1] & 0xF) << 4)
                 for i in range(0, len(v), 2))


def perf_a(src, M, K, subK):
    """norm_layout_to_perf_layout, int4: even output index in the low
    nibble (dst[o/2] = int4), odd in the high (dst[o/2] |= int4 << 4)."""
    k1 = -(-K // subK)
    dst = bytearray(k1 * M * subK // 2)
    for i in range(k1):
        for m in range(M):
            for j in range(subK):
                ki = i * subK + j
                v = src[m * K + ki] & 0xF if ki < K else 0
                o = i * M * subK + m * subK + j
                if o % 2 == 0:
                    dst[o // 2] = v
                else:
                    dst[o // 2] |= v << 4
    return bytes(dst)


def native_b(src, K, N, subN, subK):
    """norm_layout_to_native_layout, int4: even output index in the high
    nibble (dst[o/2] = int4 << 4), odd in the low (dst[o/2] |= int4)."""
    n1, k1 = -(-N // subN), -(-K // subK)
    dst = bytearray(n1 * k1 * subN * subK // 2)
    for i in range(n1):
        for j in range(k1):
            for n in range(subN):
                ni = i * subN + n
                for k in range(subK):
                    ki = j * subK + k
                    v = src[ki * N + ni] & 0xF if ki < K and ni < N else 0
                    o = i * (k1 * subN * subK) + j * (subN * subK) + n * subK + k
                    if o % 2 == 0:
                        dst[o // 2] = (v << 4) & 0xF0
                    else:
                        dst[o // 2] |= v
    return bytes(dst)


# RK3588 int4 (RKNN SDK User Guide 3.5.4): A [K/32,M,32], B [N/64,K/32,64,32]
M, K, N = 3, 40, 70
a = values(M * K, 7)
b = values(K * N, 11)
for name, data in (("rknn_mm_a_int4_in.bin", cpu_bytes(a)),
                   ("rknn_mm_a_int4_out.bin", perf_a(a, M, K, 32)),
                   ("rknn_mm_b_int4_in.bin", cpu_bytes(b)),
                   ("rknn_mm_b_int4_out.bin", native_b(b, K, N, 64, 32))):
    with open(name, "wb") as f:
        f.write(data)
