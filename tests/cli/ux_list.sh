#!/bin/sh
# tests/cli/ux_list.sh: looking layouts up (issue 19, point 2): lay list
# [NAMESPACE] (dimensions, type, parameters with defaults), lay describe
# NAME (comment, definition, CPU side, memory order, parameters, an
# example), and their --json forms. The expected text is written from
# stdlib/amd.lay and stdlib/ti.lay.
#   sh ux_list.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

run list amd
expect_rc 0 "list amd"
expect_out "amd.hcwnc       (n, c, h, w)  any   x
amd.hcwnc4      (n, c, h, w)  any
amd.hcwnc8      (n, c, h, w)  any
amd.hcwnc16     (n, c, h, w)  any
amd.ab          (a, b)        any
amd.hcwnc_q     (n, c, h, w)  fp32  x, scale, zero_point=0
amd.hcwnc_bf16  (n, c, h, w)  fp32  x" "list amd"

run list ti
grep -q "^ti.tidl            (n, c, h, w)  any   pad_l=0, pad_r=0, pad_t=0, pad_b=0, pad_ch=0, ch_pitch=(pad_t + h + pad_b) \* (pad_l + w + pad_r)$" "$T/out" ||
  fail "list ti: $(head -1 "$T/out")"

run list amdd
expect_rc 1 "list of an unknown namespace"
expect_err "lay: no layouts in namespace 'amdd' (did you mean 'amd'?); the namespaces are: amd, core, ethosu, kneron, mlir, onednn, qnn, rknn, ti, trt, xla" "list amdd"

run describe amd.hcwnc4
expect_rc 0 "describe"
expect_out 'amd.hcwnc4: a layout of stdlib/amd.lay:16
  HCWNC4 (AMD: "Height-Channel-Width-Batch-Channel4").
definition:
  layout hcwnc4 = hcwnc(4)
cpu side:   (n, c, h, w) any (--dtype; int8 when not given)
memory:     [h, c/4, w, n, c%4], outermost first
parameters: none
example:    lay show amd.hcwnc4 --shape 1,3,4,4' "describe amd.hcwnc4"

run describe amd.hcwnc_q
expect_out 'amd.hcwnc_q: a layout of stdlib/amd.lay:51
  HCWNCx with AMD'"'"'s boundary quantization (rt_transformations "quantize":
  to_dtype, scale, zero_point): fp32 on the CPU, q = sat(round_half_even(
  f32(x * (1.0f / scale))) + zero_point) in int8 on the NPU; unpack is
  AMD'"'"'s "dequantize", x = f32((q - zero_point) / (1.0f / scale)).
definition:
  layout hcwnc_q(x, scale, zero_point = 0) (n, c, h, w) : fp32
      -> [h, c/x, w, n, c%x]
      quantize(scale = scale, zero_point = zero_point, to = int8,
               arith = f32_div)
cpu side:   (n, c, h, w) fp32
memory:     [h, c, w, n, c%1], outermost first
parameters: x (required)
            scale (required)
            zero_point = 0
example:    lay show '"'"'amd.hcwnc_q(x=1, scale=1)'"'"' --shape 1,3,4,4' "describe amd.hcwnc_q"
# The example it prints runs.
run show 'amd.hcwnc_q(x=1, scale=1)' --shape 1,3,4,4
expect_rc 0 "describe's example runs"
# A layout whose parameters take lists plans with no 1s: no example that
# fails is printed.
run describe mlir.pack
expect_rc 0 "describe mlir.pack"
grep -q "^example:    none with 1 for each parameter: see the comment above$" "$T/out" ||
  fail "describe mlir.pack: $(grep example: "$T/out")"

# Wrong spellings: the AMD report's upper case, no namespace, a typo.
for w in HCWNC4 hcwnc4 amd.hcwcn4; do
  run describe $w
  expect_rc 1 "describe $w"
  expect_err "lay: unknown layout '$w' (did you mean 'amd.hcwnc4'?)" "describe $w"
done

run describe amd.hcwnc4 --json
expect_out '{"name": "amd.hcwnc4", "kind": "layout", "file": "stdlib/amd.lay", "line": 16, "comment": "HCWNC4 (AMD: \"Height-Channel-Width-Batch-Channel4\").", "definition": "layout hcwnc4 = hcwnc(4)", "dims": ["n", "c", "h", "w"], "dtype": null, "stored_dtype": null, "memory_order": "[h, c/4, w, n, c%4]", "params": []}' "describe --json"

run list core --json
expect_out '[
  {"name": "core.nchw", "kind": "layout", "dims": ["n", "c", "h", "w"], "dtype": null, "stored_dtype": null, "params": [], "file": "stdlib/core.lay", "line": 11},
  {"name": "core.nhwc", "kind": "layout", "dims": ["n", "h", "w", "c"], "dtype": null, "stored_dtype": null, "params": [], "file": "stdlib/core.lay", "line": 15},
  {"name": "core.ab", "kind": "layout", "dims": ["a", "b"], "dtype": null, "stored_dtype": null, "params": [], "file": "stdlib/core.lay", "line": 19},
  {"name": "core.flat1", "kind": "layout", "dims": ["a"], "dtype": null, "stored_dtype": null, "params": [], "file": "stdlib/core.lay", "line": 22},
  {"name": "core.flat2", "kind": "layout", "dims": ["a", "b"], "dtype": null, "stored_dtype": null, "params": [], "file": "stdlib/core.lay", "line": 23},
  {"name": "core.flat3", "kind": "layout", "dims": ["a", "b", "c"], "dtype": null, "stored_dtype": null, "params": [], "file": "stdlib/core.lay", "line": 24},
  {"name": "core.flat4", "kind": "layout", "dims": ["a", "b", "c", "d"], "dtype": null, "stored_dtype": null, "params": [], "file": "stdlib/core.lay", "line": 25},
  {"name": "core.flat5", "kind": "layout", "dims": ["a", "b", "c", "d", "e"], "dtype": null, "stored_dtype": null, "params": [], "file": "stdlib/core.lay", "line": 26}
]' "list core --json"
# Valid JSON, one object per name.
if command -v python3 >/dev/null; then
  run list --json
  python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert len(v) > 40' "$T/out" || fail "list --json does not parse"
  run describe ti.tidl --json
  python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert v["params"][5]["default"] == "(pad_t + h + pad_b) * (pad_l + w + pad_r)"' "$T/out" || fail "describe ti.tidl --json"
fi

# A user layout: its comment and definition from its file.
cat >"$T/my.lay" <<'X'
namespace my
# Rows of 4, the channel innermost.
# (a second comment line)
layout rows4 (n, c) : int16 -> [n/4, c, n%4]
X
run -f "$T/my.lay" describe my.rows4
expect_out "my.rows4: a layout of $T/my.lay:4
  Rows of 4, the channel innermost.
  (a second comment line)
definition:
  layout rows4 (n, c) : int16 -> [n/4, c, n%4]
cpu side:   (n, c) int16
memory:     [n/4, c, n%4], outermost first
parameters: none
example:    lay show my.rows4 --shape 3,5" "describe a user layout"
run --json describe amd.hcwnc4 --map b=n
expect_rc 2 "describe does not take --map"
finish
