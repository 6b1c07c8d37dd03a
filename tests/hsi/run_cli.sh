#!/bin/sh
# tests/hsi/run_cli.sh: the hsi command line, end to end.
#   run_cli.sh LAY REF SRCDIR WORKDIR
# LAY is the `lay` binary; REF is the independent reference hsi_ref. Checks: the exact one-line error of every report in bad/ (exit
# 1, no output file left), the seed's examples byte-exact against the
# reference in every direction, --check on the seed reports and on a bad
# one, `lay hsi` printing, and export -> run == the layout run directly.
set -u
TOOL=$1 REF=$2 SRC=$3 W=$4
rm -rf "$W" && mkdir -p "$W" || exit 1
cd "$SRC" || exit 1
fail=0
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

# ---- 1. malformed and inconsistent reports: exact messages ----------------
n=0
tab=$(printf '\t')
while IFS="$tab" read -r file cmd msg; do
  case $file in '#'*|'') continue ;; esac
  n=$((n + 1))
  set -- $cmd
  rm -f "$W/out.bin"
  "$TOOL" "$1" --hsi "bad/$file" "$2" "$3" -i /dev/null -o "$W/out.bin" \
    >"$W/stdout" 2>"$W/stderr"
  rc=$?
  [ $rc -eq 1 ] || bad "$file: exit $rc, not 1"
  got=$(cat "$W/stderr")
  [ "$got" = "$msg" ] || bad "$file: got '$got', want '$msg'"
  [ ! -e "$W/out.bin" ] || bad "$file: left an output file"
  [ ! -s "$W/stdout" ] || bad "$file: wrote to stdout"
done < bad/expected.txt
[ $n -ge 15 ] || bad "only $n malformed reports"

# ---- 2. the seed's examples against the reference --------------------------
# case  report  command  which  key
while read -r c report cmd which key; do
  "$REF" "$c" "$W/$c.in" "$W/$c.want" || { bad "$c: reference"; continue; }
  rm -f "$W/$c.got"
  if "$TOOL" "$cmd" --hsi "$report" "--$which" "$key" -i "$W/$c.in" \
       -o "$W/$c.got" 2>"$W/$c.err"; then
    cmp -s "$W/$c.got" "$W/$c.want" || bad "$c: bytes differ from the reference"
  else
    bad "$c: $(cat "$W/$c.err")"
  fi
done <<'CASES'
ann_in_pack    seed_annotation.json pack   input  0
ann_out_unpack seed_annotation.json unpack output 0
ann_out_pack   seed_annotation.json pack   output 0
xf_in_pack     seed_transform.json  pack   input  0
xf_in_unpack   seed_transform.json  unpack input  0
xf_out_unpack  seed_transform.json  unpack output 0
xf_out_pack    seed_transform.json  pack   output 0
rep_in_pack    seed_report.json     pack   input  compute_graph.ifm_ddr
rep_out_unpack seed_report.json     unpack output compute_graph.ofm_ddr
CASES

# A wrong input size: one line, exit 1, no output.
rm -f "$W/x.bin"
"$TOOL" pack --hsi seed_transform.json --input 0 -i /dev/null -o "$W/x.bin" \
  2>"$W/stderr"
[ $? -eq 1 ] || bad "empty input accepted"
[ "$(cat "$W/stderr")" = "lay: input is 0 bytes; inputs[0] needs 12288 (fp32 [1,3,32,32])" ] ||
  bad "size message: $(cat "$W/stderr")"
[ ! -e "$W/x.bin" ] || bad "wrong size left an output file"
"$TOOL" pack --hsi seed_transform.json --input nosuch -i /dev/null 2>"$W/stderr"
[ "$(cat "$W/stderr")" = "lay: seed_transform.json: no entry 'nosuch' in inputs (1 entry)" ] ||
  bad "unknown key message: $(cat "$W/stderr")"

# ---- 3. --check -----------------------------------------------------------
for r in seed_annotation seed_report seed_transform seed_transform_hcwnc8; do
  "$TOOL" hsi "$r.json" --check >"$W/$r.check" 2>"$W/stderr"
  rc=$?
  [ $rc -eq 0 ] || bad "$r --check: exit $rc: $(cat "$W/stderr")"
  cmp -s "$W/$r.check" "golden/$r.check" ||
    bad "$r --check output differs: $(diff "golden/$r.check" "$W/$r.check")"
done
"$TOOL" hsi bad/m18_hw_shape_chain.json --check >"$W/m18.check" 2>"$W/stderr"
[ $? -eq 1 ] || bad "m18 --check: not exit 1"
cmp -s "$W/m18.check" golden/m18.check ||
  bad "m18 --check output differs: $(diff golden/m18.check "$W/m18.check")"
[ "$(cat "$W/stderr")" = "lay: bad/m18_hw_shape_chain.json: 1 inconsistency" ] ||
  bad "m18 --check summary: $(cat "$W/stderr")"

"$TOOL" hsi bad/m16_reshape_count.json --check >"$W/m16.check" 2>"$W/stderr"
[ $? -eq 1 ] || bad "m16 --check: not exit 1"
cmp -s "$W/m16.check" golden/m16.check ||
  bad "m16 --check output differs: $(diff golden/m16.check "$W/m16.check")"
[ "$(cat "$W/stderr")" = "lay: bad/m16_reshape_count.json: 2 inconsistencies" ] ||
  bad "m16 --check summary: $(cat "$W/stderr")"
"$TOOL" hsi bad/hw_order_differs.json --check >"$W/hw.check" 2>/dev/null
[ $? -eq 1 ] || bad "hw_order_differs --check: not exit 1"
cmp -s "$W/hw.check" golden/hw_order_differs.check ||
  bad "hw_order_differs --check differs: $(diff golden/hw_order_differs.check "$W/hw.check")"

# ---- 4. lay hsi FILE prints the specs with buffer sizes --------------------
"$TOOL" hsi seed_transform.json >"$W/print.lay" 2>"$W/stderr" ||
  bad "hsi print: $(cat "$W/stderr")"
cmp -s "$W/print.lay" golden/seed_transform.print ||
  bad "hsi print differs: $(diff golden/seed_transform.print "$W/print.lay")"

"$TOOL" hsi bad/m15_pad_output_shape.json >"$W/m15.lay" 2>"$W/stderr"
[ $? -eq 1 ] || bad "hsi print of an inconsistent report: not exit 1"
[ "$(cat "$W/stderr")" = "lay: bad/m15_pad_output_shape.json: 1 entry is inconsistent; see 'lay hsi bad/m15_pad_output_shape.json --check'" ] ||
  bad "hsi print summary: $(cat "$W/stderr")"
grep -q '^# inconsistent: inputs\[0\].rt_transformations\[1\].output_shape' "$W/m15.lay" ||
  bad "hsi print: the inconsistency is not named"

# ---- 5. export, then run the export == run the layout ----------------------
# format  shape  dtype  quantize  direct layout
while read -r f shape dt q direct; do
  qa=""
  [ "$q" = "-" ] || qa="--quantize $q"
  for as in input output; do
    e="$W/exp-$f-$as.json"
    # shellcheck disable=SC2086
    "$TOOL" export "$f" --shape "$shape" --dtype "$dt" $qa --as "$as" -o "$e" \
      2>"$W/stderr" || { bad "export $f: $(cat "$W/stderr")"; continue; }
    "$TOOL" hsi "$e" --check >/dev/null 2>"$W/stderr" ||
      bad "export $f --as $as: --check: $(cat "$W/stderr")"
    elems=$(echo "$shape" | tr ',' '*' | xargs expr 2>/dev/null || echo 0)
    elems=$(echo "$shape" | awk -F, '{p=1; for(i=1;i<=NF;i++) p*=$i; print p}')
    if [ "$dt" = fp32 ]; then "$REF" floats "$W/d.in" "$elems"
    else "$REF" bytes "$W/d.in" "$elems"; fi
    for cmd in pack unpack; do
      if [ $cmd = unpack ]; then
        "$TOOL" pack "$direct" --shape "$shape" --dtype "$dt" -i "$W/d.in" \
          -o "$W/d.src" || { bad "$direct pack"; continue; }
      else cp "$W/d.in" "$W/d.src"; fi
      "$TOOL" $cmd "$direct" --shape "$shape" --dtype "$dt" -i "$W/d.src" \
        -o "$W/d.direct" 2>"$W/stderr" || { bad "$direct $cmd: $(cat "$W/stderr")"; continue; }
      "$TOOL" $cmd --hsi "$e" "--$as" 0 -i "$W/d.src" -o "$W/d.hsi" \
        2>"$W/stderr" || { bad "$f $as $cmd: $(cat "$W/stderr")"; continue; }
      cmp -s "$W/d.direct" "$W/d.hsi" || bad "export $f --as $as: $cmd differs from $direct"
    done
  done
done <<'EXPORTS'
amd.hcwnc4  2,5,3,7  int8 -           amd.hcwnc4
amd.hcwnc8  2,5,3,7  int8 -           amd.hcwnc8
amd.hcwnc16 1,17,2,3 fp32 -           amd.hcwnc16
amd.ab      3,5      int8 -           amd.ab
amd.ab      4,9      fp32 -           amd.ab
amd.hcwnc4  1,3,5,6  fp32 0.0078125,0 amd.hcwnc_q(4,0.0078125)
amd.hcwnc8  2,3,5,6  fp32 0.0078125,0 amd.hcwnc_q(8,0.0078125)
amd.hcwnc16 1,20,2,3 fp32 0.0078125,0 amd.hcwnc_q(16,0.0078125)
EXPORTS

# Export errors: one line, exit 1, no file.
rm -f "$W/e.json"
"$TOOL" export amd.hcwnc5 --shape 1,3,4,4 -o "$W/e.json" 2>"$W/stderr"
[ $? -eq 1 ] || bad "export hcwnc5: not exit 1"
[ "$(cat "$W/stderr")" = "lay: cannot export 'amd.hcwnc5': the flexmlrt-hsi.json formats are amd.hcwnc4, amd.hcwnc8, amd.hcwnc16 and amd.ab" ] ||
  bad "export hcwnc5 message: $(cat "$W/stderr")"
[ ! -e "$W/e.json" ] || bad "failed export left a file"
"$TOOL" export amd.hcwnc8 --shape 1,3,4,4 --quantize x -o "$W/e.json" 2>"$W/stderr"
[ "$(cat "$W/stderr")" = "lay: bad --quantize 'x': expected SCALE,ZERO_POINT" ] ||
  bad "export --quantize message: $(cat "$W/stderr")"
"$TOOL" export amd.hcwnc8 2>/dev/null
[ $? -eq 2 ] || bad "export without --shape: not a usage error"

[ $fail -eq 0 ] && echo "hsi cli: all passed ($n malformed reports)"
exit $fail
