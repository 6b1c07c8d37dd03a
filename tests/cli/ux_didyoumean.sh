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
expect_err "lay: unknown --dtype 'fp23' (did you mean 'fp32'?) (fp32, fp16, bf16, int8, uint8, int16, uint16, int32 or numpy's names)" "--dtype fp23"
run show amd.hcwnc4 --shape 1,3,2,2 --dtype float
expect_err "lay: unknown --dtype 'float' (did you mean 'float32' or 'float16'?) (fp32, fp16, bf16, int8, uint8, int16, uint16, int32 or numpy's names)" "--dtype float"
finish
