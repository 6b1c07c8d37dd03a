#!/bin/sh
# tests/cli/ux_hsi_json.sh: `lay hsi FILE --json` and `--check --json`
# (issue 19, discovery: --json on hsi as on list, describe, info, where,
# at). The expected values are read from the reports themselves
# (tests/hsi/*.json): the shapes and types of their entries, the CPU
# bytes as the product of cpu_shape, the NPU bytes as the product of
# hw_shape, and the issue texts as `lay hsi --check` prints them.
#   sh ux_hsi_json.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"
HSI=$HERE/../hsi
cd "$HSI" || exit 1

run hsi seed_report.json --json
expect_rc 0 "hsi --json"
expect_out '{"file": "seed_report.json", "check": false, "entries": [
  {"side": "inputs", "index": 0, "name": "compute_graph.ifm_ddr", "tensor_name": null, "layout": "hsi.input0", "spec": "layout input0 (n, c, h, w) : int8 -> [h, c/4, w, n, c%4]\n", "annotation_spec": null, "cpu_shape": [1, 3, 224, 224], "cpu_dtype": "int8", "hw_shape": [224, 1, 224, 1, 4], "hw_dtype": "int8", "frames": 1, "ok": true, "cpu_bytes": 150528, "npu_bytes": 200704, "issues": []},
  {"side": "outputs", "index": 0, "name": "compute_graph.ofm_ddr", "tensor_name": null, "layout": "hsi.output0", "spec": "layout output0 (n, c, h, w) : int8 -> [h, c/8, w, n, c%8]\n", "annotation_spec": null, "cpu_shape": [1, 2048, 7, 7], "cpu_dtype": "int8", "hw_shape": [7, 256, 7, 1, 8], "hw_dtype": "int8", "frames": 1, "ok": true, "cpu_bytes": 100352, "npu_bytes": 100352, "issues": []}
], "inconsistent": 0}' "hsi seed_report.json --json"
[ -s "$T/err" ] && fail "hsi --json: stderr $(cat "$T/err")"

# An entry that the report itself contradicts: left out ("layout": null),
# its issue listed, and the exit status and last line of `lay hsi`.
run hsi bad/m17_hw_shape_annotation.json --json
expect_rc 1 "hsi --json of an inconsistent report"
expect_err "lay: bad/m17_hw_shape_annotation.json: 1 entry is inconsistent; see 'lay hsi bad/m17_hw_shape_annotation.json --check'" "hsi --json: the last line"
cp "$T/out" "$T/m17.json"

# --check --json: the findings of --check, notes included.
run hsi bad/hw_order_differs.json --check --json
expect_rc 1 "hsi --check --json"
expect_err "lay: bad/hw_order_differs.json: 1 inconsistency" "hsi --check --json: the last line"
cp "$T/out" "$T/check.json"
run hsi seed_transform_hcwnc8.json --check --json
expect_rc 0 "hsi --check --json of a consistent report"
cp "$T/out" "$T/ok.json"

if command -v python3 >/dev/null; then
  python3 - "$T" <<'PY' || fail "hsi --json: the JSON (see above)"
import json, sys
t = sys.argv[1]
m17 = json.load(open(t + "/m17.json"))
e = m17["entries"]
assert m17["check"] is False and m17["inconsistent"] == 1, m17
assert [x["side"] for x in e] == ["inputs", "outputs"], e
assert e[0]["ok"] is False and e[0]["layout"] is None, e[0]
assert e[0]["cpu_bytes"] is None and e[0]["npu_bytes"] is None, e[0]
assert e[0]["hw_shape"] == [32, 1, 32, 1, 8] and e[0]["hw_dtype"] == "bf16", e[0]
assert e[0]["issues"] == [{"fatal": True, "text": "inputs[0].hw_shape: [32,1,32,1,8], but cpu_format NCHW -> hw_format HCWNC4 gives [32,1,32,1,4]"}], e[0]["issues"]
# outputs[0]: fp32 [1,4,30,30] is 14400 bytes; bf16 [30,1,30,1,4] 7200.
assert e[1]["ok"] is True and e[1]["layout"] == "hsi.output0", e[1]
assert (e[1]["cpu_bytes"], e[1]["npu_bytes"]) == (14400, 7200), e[1]

c = json.load(open(t + "/check.json"))
e = c["entries"]
assert c["check"] is True and c["inconsistent"] == 1, c
assert e[0]["ok"] is False and e[0]["layout"] == "hsi.input0", e[0]
assert e[0]["issues"] == [{"fatal": True, "text": "inputs[0]: the annotation fields and rt_transformations describe different bytes (first difference at byte 10)"}], e[0]
assert e[0]["annotation_spec"].startswith("layout input0_ann (n, c, h, w) : fp32 -> [h, c/8, w, n, c%8]\n"), e[0]
# outputs[0]: fp32 [1,4,32,32] is 16384 bytes; int8 [32,1,32,1,8] 8192.
assert e[1]["ok"] is True and (e[1]["cpu_bytes"], e[1]["npu_bytes"]) == (16384, 8192), e[1]
assert e[1]["issues"] == [{"fatal": False, "text": "outputs[0]: the annotation fields and rt_transformations give the same 8192 bytes"}], e[1]

k = json.load(open(t + "/ok.json"))
assert k["inconsistent"] == 0 and all(x["ok"] for x in k["entries"]), k
assert [len(x["issues"]) for x in k["entries"]] == [1, 1], k
PY
else
  grep -q '"inconsistent": 1}$' "$T/check.json" || fail "hsi --check --json: no count"
fi

run hsi seed_report.json --json --jsn
expect_rc 2 "hsi with an unknown option"
finish
