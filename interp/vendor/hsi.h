/*
** hsi.h: AMD's flexmlrt-hsi.json compilation report, read into lay
** (internal, prefix li_).
**
** A report lists `inputs` and `outputs`; each tensor entry describes the
** CPU side (cpu_shape, cpu_format, cpu_dtype), the NPU buffer (hw_shape,
** hw_format, hw_dtype), a boundary quantization (scale_factor, zero_point;
** -1.0 = unset) and optionally an explicit rt_transformations chain.
** li_hsi_parse checks every field and turns every entry into lay spec TEXT
** (a `layout` for the annotation form, a `transform` for the chain), which
** li_hsi_load compiles through the ordinary front end, so that JSON and
** specs share one IR and one planner. The definitions are named
** NS.input0, NS.output1, ... (the chain when the entry has one, else the
** annotation) and NS.input0_ann (the annotation, when the entry also has
** a chain and cpu_format -> hw_format gives the declared hw_shape;
** --check runs both). An entry with an inconsistency is not defined (its
** text appears commented out).
**
** Every definition maps the CPU tensor to the NPU buffer (pack); for an
** output the report lists the chain NPU -> CPU, which is inverted here.
**
** Errors are LAY_E_JSON with either the JSON line:col (text that is not
** strict JSON; the column counts characters) or the JSON path of the
** offending field in the message ("inputs[0].rt_transformations[2].perm:
** ..."); LAY_E_LIMIT for a report over LI_HSI_MAX_JSON bytes or nested
** deeper than cJSON's 1000 levels.
*/
#ifndef LI_HSI_H
#define LI_HSI_H

#include <stddef.h>
#include <stdint.h>

#include "lay.h"

#define LI_HSI_MAX_JSON ((size_t)64 << 20) /* bytes of one report */
#define LI_HSI_MAX_TENSORS 4096 /* entries in inputs + outputs */
#define LI_HSI_MAX_OPS 64       /* rt_transformations of one tensor */

typedef struct li_hsi li_hsi;

/* One finding of li_hsi_check, or a recorded disagreement of an entry. */
typedef struct li_hsi_issue {
  int output;       /* 0: inputs[index], 1: outputs[index] */
  int index;        /* the entry */
  int fatal;        /* 1: an inconsistency; 0: a note (nothing wrong) */
  char text[480];   /* one line: "inputs[0].hw_shape: ..." */
} li_hsi_issue;

/* Parse `len` bytes of JSON; `file` names the report in errors. On
** success *out holds the report (free with li_hsi_free). */
lay_status li_hsi_parse(const char *json, size_t len, const char *file,
                        li_hsi **out, lay_error *err);
void li_hsi_free(li_hsi *h); /* accepts NULL */

/* Entries of inputs (output = 0) or outputs (output = 1). */
int li_hsi_count(const li_hsi *h, int output);
/* Find an entry by its index ("0") or its name or tensor_name; -1 when
** there is none. */
int li_hsi_find(const li_hsi *h, int output, const char *key);

/* Facts about one entry (valid while h lives). */
typedef struct li_hsi_info {
  const char *name;        /* "name", or NULL */
  const char *tensor_name; /* "tensor_name", or NULL */
  const char *def;         /* the definition's local name, "input0" */
  const char *spec;        /* its spec text (a layout or a transform);
                              NULL when an issue left nothing to define */
  const char *ann_spec;    /* the annotation as a layout when the entry
                              also has a chain and it gives hw_shape */
  int has_chain;           /* rt_transformations present */
  int rank;                /* cpu_shape */
  int64_t cpu_shape[LAY_MAX_RANK];
  int hw_rank;             /* hw_shape as declared */
  int64_t hw_shape[LAY_MAX_AXES];
  lay_dtype cpu_dtype, hw_dtype;
} li_hsi_info;
int li_hsi_info_get(const li_hsi *h, int output, int index, li_hsi_info *out);

/* All spec text of the report, each definition preceded by a comment
** naming its entry, inside `namespace NS`. malloc'd; NULL on OOM. */
char *li_hsi_spec(const li_hsi *h, const char *ns);
/* Its two parts: the header (a comment and `namespace NS`) and the text
** of one entry (comments naming it, its definitions). malloc'd. */
char *li_hsi_spec_header(const li_hsi *h, const char *ns);
char *li_hsi_spec_entry(const li_hsi *h, int output, int index);

/* Compile li_hsi_spec(h, ns) into ctx (names must not clash). */
lay_status li_hsi_load(const li_hsi *h, lay_ctx *ctx, const char *ns,
                       lay_error *err);

/* The disagreements found while parsing (shapes, dtypes, scales), as a
** list of issues (valid while h lives); these make an entry unrunnable. */
int li_hsi_issue_count(const li_hsi *h);
const li_hsi_issue *li_hsi_issue_get(const li_hsi *h, int i);
/* The first fatal issue of an entry, or NULL. */
const li_hsi_issue *li_hsi_entry_issue(const li_hsi *h, int output,
                                       int index);

/* --check: every recorded issue, plus, for entries with both annotation
** fields and a chain, whether both describe the same bytes (both are run
** on the same pseudo-random data in ctx, where li_hsi_load(h, ctx, ns)
** was done). *issues is malloc'd (free it); returns the count of fatal
** issues, or -1 with err set. */
int li_hsi_check(const li_hsi *h, lay_ctx *ctx, const char *ns,
                 li_hsi_issue **issues, int *nissues, lay_error *err);

/* The error for a report of `len` bytes that is over LI_HSI_MAX_JSON
** (li_hsi_parse gives the same; the CLI uses it for a file it does not
** read, len SIZE_MAX meaning "more than the limit"). */
void li_hsi_size_error(const char *file, size_t len, lay_error *err);

/* What `lay export --quantize SCALE,ZP[,TYPE]` asks for: a float CPU side
** quantized to the integer type `to` (int8 when LAY_DT_NONE). */
typedef struct li_hsi_quant {
  double scale;      /* > 0 */
  double zero_point; /* an integer in the range of `to` */
  lay_dtype to;      /* the NPU element type */
} li_hsi_quant;

/* lay export: a flexmlrt-hsi.json file holding one tensor entry in the
** transformation form for any layout of ctx (a reference with arguments:
** "amd.hcwnc(4)", "qnn.crouton", a user layout), for the CPU shape and
** dtype (LAY_DT_NONE: the layout's, else int8; fp32 with quant). The chain
** is built from the layout's IR: a quantize (or the cpu_dtype, hw_dtype,
** scale_factor and zero_point fields for a value rule no chain step
** expresses: a float cast, an integer CPU side), a slice of the stored
** window, a pad to the padded extents, a reshape into the digits of each
** dimension, a transpose into memory order. A layout that a chain cannot
** express (byte planes, explicit strides or alignment that leave gaps, a
** gather table, per-channel or truncating quantization) fails with a
** message naming why. quant may be NULL. as_output puts the entry under
** "outputs" with the chain listed NPU -> CPU. malloc'd JSON text ending
** with a newline. */
char *li_hsi_export(lay_ctx *ctx, const char *format, const int64_t *shape,
                    int rank, lay_dtype dtype, const li_hsi_quant *quant,
                    int as_output, lay_error *err);

#endif /* LI_HSI_H */
