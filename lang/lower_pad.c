/*
** lower_pad.c: a layout's pad_value against its hardware type, the error
** always at the `pad_value = V` item in its .lay file (file:line:col, the
** line and a caret), saying what made the value what it is: the
** parameter and the instantiation that set it (`pv.par(300)`), or the
** element type a plan asks for when the layout leaves it open (--dtype).
**
** lg_pad_note records where the pad value is written in the IR
** (lg_ir.pad_src); lg_pad_fail reports a value that does not fit a type
** known while lowering; lg_pad_check_type checks the type a plan asks for
** (lay_plan_create, before planning) when the layout's own is open.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "lower_int.h"
#include "padval.h"

/* What made the pad value what it is, or "" for a literal outside any
** instantiation: "pad_value = v, with pv.par(300) at z.lay:6:14". */
static void pad_why(lw *w, const srcref *sr, const lg_clause *pad, char *buf,
                    size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  const char *text = lg_etext(w, sr, pad->value);
  char *end = NULL;
  (void)strtod(text, &end);
  if (end == text || *end) /* not a number as written */
    n = (size_t)snprintf(buf, cap, "pad_value = %s", text);
  if (w->use_set && strchr(w->use_text, '(') && n < cap) { /* arguments */
    n += (size_t)snprintf(buf + n, cap - n, "%swith %s", n ? ", " : "",
                          w->use_text);
    if (!w->use_plain && w->use_sr.src && n < cap) {
      int line, col;
      lg_linecol(w->use_sr.src, w->use_sr.len, w->use_pos, &line, &col);
      snprintf(buf + n, cap - n, " at %s:%d:%d", w->use_sr.file, line, col);
    }
  }
}

void lg_pad_note(lw *w, const srcref *sr, const lg_clause *pad, lg_ir *ir) {
  if (!pad || !sr || !sr->src) return;
  char why[400];
  pad_why(w, sr, pad, why, sizeof why);
  size_t n = strlen(why);
  char *keep = lg_arena_alloc(w->a, n + 1);
  if (!keep) return; /* the plan then reports it without a position */
  memcpy(keep, why, n + 1);
  ir->pad_src.file = sr->file;
  ir->pad_src.src = sr->src;
  ir->pad_src.len = sr->len;
  ir->pad_src.pos = pad->value->pos;
  ir->pad_src.why = keep;
}

int lg_pad_fail(lw *w, const srcref *sr, const lg_clause *pad, lay_dtype t,
                double v) {
  if (w->st) return -1;
  char why[400];
  pad_why(w, sr, pad, why, sizeof why);
  w->st = LAY_E_ARG;
  lg_error_at(w->err, LAY_E_ARG, sr->file, sr->src, sr->len, pad->value->pos,
              "pad_value %g does not fit %s%s%s%s", v, lay_dtype_name(t),
              *why ? " (" : "", why, *why ? ")" : "");
  return -1;
}

lay_status lg_pad_check_type(const lg_ir *ir, lay_dtype cpu, int asked,
                             lay_error *err) {
  const lg_ir_value *v = &ir->value;
  /* A type the layout names (its own, or a value rule's target) was
  ** checked while lowering; the planner checks a pad without a source. */
  if (v->cpu != LAY_DT_NONE || (v->kind != LG_V_NONE && v->hw != LAY_DT_NONE) ||
      !ir->pad_src.src || !lg_pad_fits(cpu, v))
    return LAY_OK;
  const char *why = ir->pad_src.why ? ir->pad_src.why : "";
  lg_error_at(err, LAY_E_ARG, ir->pad_src.file, ir->pad_src.src,
              ir->pad_src.len, ir->pad_src.pos,
              "pad_value %g does not fit %s (%s%sthe layout's element type "
              "is open, %s %s)",
              v->pad_value, lay_dtype_name(cpu), why, *why ? "; " : "",
              lay_dtype_name(cpu),
              asked ? "is the type asked for" : "by default");
  return LAY_E_ARG;
}
