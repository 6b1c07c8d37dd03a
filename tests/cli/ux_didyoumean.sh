#!/bin/sh
# tests/cli/ux_didyoumean.sh: "did you mean" (issue 19, point 3) for
# layouts (a typo, the AMD report's upper case, no namespace), commands,
# options, parameters (the nearest one and the layout's list) and dtypes.
#   sh ux_didyoumean.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

for w in amd.hcwcn4 HCWNC4 hcwnc4; do
  run show $w --shape 1,3,2,2
  expect_rc 1 "show $w"
  expect_err "lay: unknown layout '$w' (did you mean 'amd.hcwnc4'?)" "show $w"
done
run convert core.nchw amd.hcwnc44 --shape 1,3,2,2 </dev/null
expect_err "lay: unknown layout 'amd.hcwnc44' (did you mean 'amd.hcwnc4'?)" "convert to a typo"

run pakc
expect_rc 2 "lay pakc"
expect_err "lay: unknown command 'pakc' (did you mean 'pack'?)
Try 'lay --help'" "lay pakc"
run drwa
expect_err "lay: unknown command 'drwa' (did you mean 'draw'?)
Try 'lay --help'" "lay drwa"
run frobnicate
expect_err "lay: unknown command 'frobnicate'
Try 'lay --help'" "nothing near"

run pack amd.hcwnc4 --dytpe int8
expect_rc 2 "--dytpe"
expect_err "lay: unknown option '--dytpe' (did you mean '--dtype'?)
Try 'lay --help'" "--dytpe"
run --shap 1,2 show amd.hcwnc4
expect_err "lay: unknown option '--shap' (did you mean '--shape'?)
Try 'lay --help'" "--shap before the command"

run show 'ti.tidl(pad_left=1)' --shape 1,3,2,2
expect_rc 1 "pad_left"
expect_err "lay: ti.tidl(pad_left=1): unknown parameter 'pad_left' of 'ti.tidl' (did you mean 'pad_l'?); ti.tidl takes pad_l, pad_r, pad_t, pad_b, pad_ch and ch_pitch" "pad_left"
run show 'kneron.1w16c8b_q(scale=1, radx=2)' --shape 1,3,2,2
expect_err "lay: kneron.1w16c8b_q(scale=1, radx=2): unknown parameter 'radx' of 'kneron.1w16c8b_q' (did you mean 'radix'?); kneron.1w16c8b_q takes scale and radix" "radx"

run show amd.hcwnc4 --shape 1,3,2,2 --dtype fp23
expect_rc 1 "--dtype fp23"
expect_err "lay: unknown --dtype 'fp23' (did you mean 'fp32'?) (fp32, fp16, bf16, int8, uint8, int16, uint16, int32, uint32, int64, uint64, int4, uint4, fp8e4m3, fp8e5m2 or numpy's names)" "--dtype fp23"
run show amd.hcwnc4 --shape 1,3,2,2 --dtype float
expect_err "lay: unknown --dtype 'float' (did you mean 'float32', 'float16' or 'float8_e4m3fn'?) (fp32, fp16, bf16, int8, uint8, int16, uint16, int32, uint32, int64, uint64, int4, uint4, fp8e4m3, fp8e5m2 or numpy's names)" "--dtype float"
# In spec errors (lang/lower_hint.c): a dimension name, a parameter, a
# keyword, a clause, a type; inline and in a file.
run show '(n, c, h, w) -> [n, cc/4, h, w, c%4]' --shape 1,8,2,2
expect_rc 1 "inline: cc"
expect_err "<inline>:1:21: error: unknown name 'cc' (did you mean 'c'?)
    (n, c, h, w) -> [n, cc/4, h, w, c%4]
                        ^" "inline: cc"
printf 'layout p(pad) (a, b) -> [a, b + pda]\n' >"$T/s.lay"
run check "$T/s.lay"
expect_err "$T/s.lay:1:33: error: unknown name 'pda' (did you mean 'pad'?)
    layout p(pad) (a, b) -> [a, b + pda]
                                    ^" "parameter pda"
printf 'layuot x (n) -> [n]\n' >"$T/s.lay"
run check "$T/s.lay"
expect_err "$T/s.lay:1:1: error: unexpected 'layuot' (did you mean 'layout'?)
    layuot x (n) -> [n]
    ^" "keyword layuot"
printf 'layout x (n) -> [n/4, n%%4]\n    pad_valeu = 3\n' >"$T/s.lay"
run check "$T/s.lay"
expect_err "$T/s.lay:2:5: error: unknown clause 'pad_valeu' (did you mean 'pad_value'?)
        pad_valeu = 3
        ^" "clause pad_valeu"
printf 'layout x (n) : float -> [n]\n' >"$T/s.lay"
run check "$T/s.lay"
expect_err "$T/s.lay:1:16: error: unknown type 'float' (did you mean 'float32', 'float16' or 'float8_e4m3fn'?)
    layout x (n) : float -> [n]
                   ^" "type float"
printf 'layout x (n) -> [n] cast(to = flaot)\n' >"$T/s.lay"
run check "$T/s.lay"
expect_err "$T/s.lay:1:31: error: unknown type 'flaot' (did you mean 'float32', 'float16' or 'float8_e4m3fn'?)
    layout x (n) -> [n] cast(to = flaot)
                                  ^" "type flaot"
printf 'layout x (n) -> [zz]\n' >"$T/s.lay"
run check "$T/s.lay"
expect_err "$T/s.lay:1:18: error: unknown name 'zz'
    layout x (n) -> [zz]
                     ^" "nothing near"
finish
