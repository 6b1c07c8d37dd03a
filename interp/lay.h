/*
** lay.h: the one public header of liblay.
**
** lay turns a text description of a tensor layout (a "spec") into a plan
** that packs a CPU-side tensor into an NPU buffer, unpacks it back, or
** converts between two layouts of the same logical tensor.
**
**   lay_ctx    a set of compiled specs: the embedded stdlib plus whatever
**              the application loads from files or strings.
**   lay_plan   an immutable, compiled conversion for one concrete shape,
**              dtype and direction; it may run from several threads at once.
**   lay_status a stable error code; lay_error carries the code, the
**              position (file:line:col) and a one-line message.
**
** The library never prints. Every function that can fail returns a
** lay_status and fills the caller's lay_error (which may be NULL).
** Handles are created by lay_*_new/create and freed by lay_*_free; every
** free function accepts NULL.
*/
#ifndef LAY_H
#define LAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define LAY_API __attribute__((visibility("default")))
#else
#define LAY_API
#endif

/* ---- Version ---------------------------------------------------------- */
#define LAY_VERSION_MAJOR 0
#define LAY_VERSION_MINOR 1
#define LAY_VERSION_RELEASE 0
#define LAY_VERSION_NUMBER \
  (LAY_VERSION_MAJOR * 10000 + LAY_VERSION_MINOR * 100 + LAY_VERSION_RELEASE)

LAY_API unsigned lay_version_number(void); /* LAY_VERSION_NUMBER of the library */
LAY_API const char *lay_version_string(void); /* "0.1.0" */

/* ---- Status and errors --------------------------------------------------
** The values are fixed: they never change meaning between versions. */
typedef enum lay_status {
  LAY_OK = 0,
  LAY_E_SYNTAX = 1,   /* the spec text does not parse */
  LAY_E_NAME = 2,     /* unknown or duplicate name (layout, dim, param, type) */
  LAY_E_TYPE = 3,     /* dtype missing, unknown or in conflict */
  LAY_E_SHAPE = 4,    /* shape of wrong rank, zero/negative dim, mismatch */
  LAY_E_ARG = 5,      /* bad argument (count, value, unknown keyword) */
  LAY_E_LAYOUT = 6,   /* the layout itself is invalid (splits, overlap) */
  LAY_E_BUFFER = 7,   /* a caller buffer is too small */
  LAY_E_IO = 8,       /* a file could not be read */
  LAY_E_NOMEM = 9,    /* out of memory */
  LAY_E_LIMIT = 10,   /* a documented limit was exceeded (rank, size, depth) */
  LAY_E_OVERFLOW = 11,/* a size or offset overflows 64 bits */
  LAY_E_JSON = 12,    /* a JSON report is malformed or inconsistent */
  LAY_E_INTERNAL = 13 /* a bug in lay: please report it */
} lay_status;

LAY_API const char *lay_status_str(lay_status s); /* "syntax error", ... */

/* Where and why something failed. line and col are 1-based; 0 when the
** error has no source position. source_line holds the offending line of
** the spec (without its newline) when there is one, so that a caller can
** print it with a caret under column col; a line too long for it is a
** window "...text..." that starts 60 bytes before the column. The caret
** counts characters (UTF-8), not bytes; tabs stay tabs. */
typedef struct lay_error {
  lay_status code;        /* what kind of failure */
  char file[256];         /* spec file name, "<string>" name, or "" */
  int line;               /* 1-based line, 0 when unknown */
  int col;                /* 1-based column, 0 when unknown: bytes into a
                             spec's line, characters into a JSON report's */
  char message[512];      /* one line, no trailing newline or period */
  char source_line[256];  /* the source line, "" when none */
} lay_error;

/* Format an error the way the CLI prints it, into buf (always
** NUL-terminated; returns the length it needed, like snprintf):
**   file.lay:3:12: error: unknown dimension 'b'
**       layout x (a) -> [b]
**                        ^
** The second and third lines only when there is a source line. Without a
** position the first line is "error: message" (with "file: " if known). */
LAY_API size_t lay_error_format(const lay_error *e, char *buf, size_t cap);

/* ---- Element types ------------------------------------------------------ */
typedef enum lay_dtype {
  LAY_DT_NONE = 0, /* not given: the spec leaves it open */
  LAY_DT_FP32 = 1,
  LAY_DT_FP16 = 2,
  LAY_DT_BF16 = 3,
  LAY_DT_INT8 = 4,
  LAY_DT_UINT8 = 5,
  LAY_DT_INT16 = 6,
  LAY_DT_UINT16 = 7,
  LAY_DT_INT32 = 8,
  LAY_DT_UINT32 = 9,
  LAY_DT_INT64 = 10,
  LAY_DT_INT4 = 11,    /* two per byte (lay_dtype_bits 4): see below */
  LAY_DT_UINT4 = 12,
  LAY_DT_FP8E4M3 = 13, /* OCP FP8 E4M3 (ml_dtypes float8_e4m3fn) */
  LAY_DT_FP8E5M2 = 14, /* OCP FP8 E5M2 (ml_dtypes float8_e5m2) */
  LAY_DT_UINT64 = 15   /* 0 .. 2^64 - 1 */
} lay_dtype;

/* "fp32" or numpy's "float32", ... ; LAY_DT_NONE for an unknown name. */
LAY_API lay_dtype lay_dtype_parse(const char *name);
LAY_API const char *lay_dtype_name(lay_dtype t); /* "fp32", ...; "none" */
LAY_API size_t lay_dtype_size(lay_dtype t);      /* bytes; 0 for NONE */
/* Bits of one element in a buffer: 4 for int4 and uint4, whose buffers
** hold two elements per byte (the first in memory order in the low
** nibble, unless the layout says `nibbles = high_first`; a CPU-side
** buffer is always low nibble first, as ml_dtypes' packed int4); their
** lay_dtype_size is 1. 0 for NONE. */
LAY_API int lay_dtype_bits(lay_dtype t);

/* ---- Contexts -------------------------------------------------------------
** A context holds compiled specs. lay_ctx_new loads the embedded stdlib
** (namespaces core, amd, qnn, kneron, ti); loading a spec whose name clashes
** with an existing one fails with LAY_E_NAME. */
typedef struct lay_ctx lay_ctx;

LAY_API lay_status lay_ctx_new(lay_ctx **out, lay_error *err);
LAY_API void lay_ctx_free(lay_ctx *ctx);
/* Load a spec file; `import` inside it is resolved relative to the file,
** then along LAY_PATH. */
LAY_API lay_status lay_ctx_load_file(lay_ctx *ctx, const char *path,
                                     lay_error *err);
/* Load spec text; `name` is used in error positions ("<repl>", ...). */
LAY_API lay_status lay_ctx_load_string(lay_ctx *ctx, const char *name,
                                       const char *src, size_t len,
                                       lay_error *err);
/* Load every *.lay file of every folder listed in LAY_PATH (':'-separated).
** An unset or empty LAY_PATH loads nothing. */
LAY_API lay_status lay_ctx_load_path(lay_ctx *ctx, const char *lay_path,
                                     lay_error *err);
/* The number of layouts and transforms defined, and the i-th qualified
** name ("amd.hcwnc4"); NULL when i is out of range. */
LAY_API size_t lay_ctx_count(const lay_ctx *ctx);
LAY_API const char *lay_ctx_name(const lay_ctx *ctx, size_t i);

/* ---- Plans --------------------------------------------------------------- */
typedef enum lay_dir {
  LAY_PACK = 0,   /* CPU side -> layout */
  LAY_UNPACK = 1, /* layout -> CPU side */
  LAY_CONVERT = 2 /* layout A -> layout B (lay_plan_convert only) */
} lay_dir;

#define LAY_MAX_RANK 8   /* logical dimensions of a tensor */
#define LAY_MAX_AXES 32  /* axes of a layout after digit splits */

typedef struct lay_plan lay_plan;

/* Compile `format` (a qualified name, optionally with arguments:
** "ti.tidl(pad_l=1,pad_r=1)") for the CPU-side `shape` (CPU-side order)
** and `dtype` (LAY_DT_NONE: the spec's own type, int8 if it has none;
** an error if it contradicts the spec's type). */
LAY_API lay_status lay_plan_create(lay_ctx *ctx, const char *format,
                                   const int64_t *shape, int rank,
                                   lay_dtype dtype, lay_dir dir,
                                   lay_plan **out, lay_error *err);
/* Compile layout `from` -> layout `to` for one logical tensor whose
** CPU-side shape (in `from`'s CPU-side order) is `shape`; dimensions are
** matched by name. One plan, no intermediate buffer. */
LAY_API lay_status lay_plan_convert(lay_ctx *ctx, const char *from,
                                    const char *to, const int64_t *shape,
                                    int rank, lay_dtype dtype,
                                    lay_plan **out, lay_error *err);
LAY_API void lay_plan_free(lay_plan *plan);

/* Bytes the plan reads and writes per run. */
LAY_API size_t lay_plan_src_bytes(const lay_plan *plan);
LAY_API size_t lay_plan_dst_bytes(const lay_plan *plan);
LAY_API lay_dtype lay_plan_src_dtype(const lay_plan *plan);
LAY_API lay_dtype lay_plan_dst_dtype(const lay_plan *plan);
/* The CPU-side shape (rank and extents) and the hardware shape: the
** layout's axes in memory order, outermost first, with their extents.
** Return the rank; fill at most `cap` extents (and names, when `names` is
** not NULL: "h", "c/4", "c%4", ...; valid while the plan lives). */
LAY_API int lay_plan_cpu_shape(const lay_plan *plan, int64_t *shape, int cap);
LAY_API int lay_plan_hw_shape(const lay_plan *plan, int64_t *shape,
                              const char **names, int cap);

/* Run the plan: read src_bytes from src, write dst_bytes into dst. A
** buffer shorter than the plan needs fails with LAY_E_BUFFER and writes
** nothing. Buffers must not overlap. The bytes written never depend on
** `threads`.
** threads <= 1 runs on the calling thread and starts no thread. More
** lends the run up to threads - 1 workers of a pool that liblay starts
** once per process, the first time a run asks for them, and grows to the
** most any run has asked for (at most 63); the workers spin for 50 us
** after a run (so that runs that follow each other find them awake), then
** sleep until the next run; they are joined at exit (or when liblay is
** unloaded). Several threads may
** run the same plan or different plans at once, each with its own count;
** the pool is not usable in a child after fork(). A run is split only
** where it pays: on at most one thread per 4 MB it moves (bytes read +
** written, weighted by the kernels' cost: a transpose, gather tile or
** value rule counts 2 times a copy). Handing work to the pool costs a
** run about 20 us of wall time (a futex wake, and a sleeping virtual CPU
** woken: measured, exec.c li_plan_run), so a run shorter than about
** 100 us gains nothing from a second thread. The parts are
** contiguous stretches of the plan's loops of about equal bytes, claimed
** by the caller and the workers as they come; a worker that is late
** leaves its share to the others. The environment variable
** LAY_SPLIT_MIN (bytes, read once) replaces the 4 MB. A run takes no
** more threads than the CPUs the process may run on (its affinity mask,
** or the environment variable LAY_CPUS, read once): more would wait for a
** core while the others wait for their part. */
LAY_API lay_status lay_plan_run(const lay_plan *plan, const void *src,
                                size_t src_bytes, void *dst,
                                size_t dst_bytes, int threads,
                                lay_error *err);

/* Coordinate (CPU-side order, `rank` values) -> byte offset in the layout
** buffer (for a convert plan: in the destination). */
LAY_API lay_status lay_plan_where(const lay_plan *plan, const int64_t *coord,
                                  int rank, uint64_t *offset, lay_error *err);
/* Byte offset in the layout buffer -> CPU-side coordinate. *is_pad is 0
** for data; 1 for padding inside the padded box, and then coord holds the
** padded coordinate in CPU-side terms, outside the tensor (crouton's
** (0,0,0,30) on a 1x3x5x30 tensor; -1 for a pad-before row); 2 for a hole
** left by an explicit stride or alignment (coord all -1). *plane receives
** the byte-plane index (0 when the layout has no planes). Any byte of a
** multi-byte element maps to that element. */
LAY_API lay_status lay_plan_at(const lay_plan *plan, uint64_t offset,
                               int64_t *coord, int cap, int *is_pad,
                               int *plane, lay_error *err);

/* The same in elements of the layout buffer, counted in its memory
** order: element i is at bytes [i * E, (i + 1) * E) for elements of E
** bytes (one byte each for a byte-plane layout), and in half byte i / 2
** of a 4-bit buffer (int4, uint4; lay_plan_where and lay_plan_at speak of
** its bytes: where gives the byte holding the element, at the byte's
** first element in memory order). */
LAY_API lay_status lay_plan_where_element(const lay_plan *plan,
                                          const int64_t *coord, int rank,
                                          uint64_t *index, lay_error *err);
LAY_API lay_status lay_plan_at_element(const lay_plan *plan, uint64_t index,
                                       int64_t *coord, int cap, int *is_pad,
                                       int *plane, lay_error *err);
/* Elements of the layout buffer. */
LAY_API uint64_t lay_plan_layout_elements(const lay_plan *plan);
/* 1 when the layout buffer is 4-bit (int4, uint4) with the first element
** of each byte in its high nibble (`nibbles = high_first`), else 0. */
LAY_API int lay_plan_layout_high_first(const lay_plan *plan);

/* A description of the plan in words (loops, tables, kernels, bytes),
** several lines. The caller frees it with lay_free. */
LAY_API char *lay_plan_describe(const lay_plan *plan);
/* Bytes the plan keeps beyond its fixed header: its loop nests, fill
** patterns and index tables (what a plan costs per format and shape). */
LAY_API size_t lay_plan_memory(const lay_plan *plan);
LAY_API void lay_free(void *p);

/* ---- The layout buffer of a plan ----------------------------------------
** For a pack plan the destination, for an unpack plan the source, for a
** convert plan the destination: what lay_plan_where and lay_plan_at refer
** to. */
LAY_API size_t lay_plan_layout_bytes(const lay_plan *plan); /* bytes */
/* Bytes of one element of the layout buffer (1 for byte-plane layouts,
** and for int4 and uint4, two per byte). */
LAY_API size_t lay_plan_layout_elem_bytes(const lay_plan *plan);
/* Byte planes of the layout (0 when it has none) and the name of plane i
** ("lo", "hi"; NULL when out of range; valid while the plan lives). */
LAY_API int lay_plan_plane_count(const lay_plan *plan);
LAY_API const char *lay_plan_plane_name(const lay_plan *plan, int i);

/* ---- Checking spec files -------------------------------------------------
** A report callback receives one positioned problem at a time (Wren
** style): err->file, err->line, err->column and err->message. */
typedef void (*lay_report_fn)(void *ud, const lay_error *err);
/* The embedded stdlib's files ("stdlib/amd.lay", ...): the name of file i,
** NULL past the last. */
LAY_API const char *lay_stdlib_file(size_t i);
/* lay_ctx_new without the embedded stdlib file `skip` ("stdlib/amd.lay";
** NULL: none), so that a copy of that file can be checked in its place. */
LAY_API lay_status lay_ctx_new_except(lay_ctx **out, const char *skip,
                                      lay_error *err);
/* Load the spec file `path` into ctx as lay_ctx_load_file does, but when
** a definition fails its static checks go on with the others and report
** every failing one, in source order (an error that stops the load, such
** as a syntax error or a name defined twice, is reported alone). Returns
** the number of problems: 0 when the file loaded (its names stay in ctx),
** else nothing of it stays. */
LAY_API int lay_ctx_check_file(lay_ctx *ctx, const char *path,
                               lay_report_fn report, void *ud);

/* ---- AMD flexmlrt-hsi.json reports ---------------------------------------
** A report lists `inputs` and `outputs`; each tensor entry describes the
** CPU side (cpu_shape, cpu_format, cpu_dtype), the NPU buffer (hw_shape,
** hw_format, hw_dtype), a boundary quantization (scale_factor,
** zero_point) and optionally an rt_transformations chain. lay_hsi_parse
** checks every field and turns every entry into spec text (a `layout` for
** the annotation form, a `transform` for the chain) that lay_hsi_load
** compiles through the ordinary front end, named NS.input0, NS.output1,
** ... (and NS.input0_ann for the annotation beside a chain). Every
** definition maps the CPU tensor to the NPU buffer (pack). Errors are
** LAY_E_JSON with a position (the JSON line:col, or the JSON path
** of the field in the message); LAY_E_LIMIT past the limits below. */
#define LAY_HSI_MAX_JSON ((size_t)64 << 20) /* bytes of one report */
#define LAY_HSI_MAX_TENSORS 4096 /* entries in inputs + outputs */
#define LAY_HSI_MAX_OPS 64       /* rt_transformations of one tensor */

typedef struct lay_hsi lay_hsi;

/* One finding of lay_hsi_check, or a recorded disagreement of an entry. */
typedef struct lay_hsi_issue {
  int output;       /* 0: inputs[index], 1: outputs[index] */
  int index;        /* the entry */
  int fatal;        /* 1: an inconsistency; 0: a note (nothing wrong) */
  char text[480];   /* one line: "inputs[0].hw_shape: ..." */
} lay_hsi_issue;

/* Parse `len` bytes of JSON; `file` names the report in errors. On
** success *out holds the report (free with lay_hsi_free). A len over
** LAY_HSI_MAX_JSON fails with LAY_E_LIMIT before json is read (json may
** then be NULL; len SIZE_MAX stands for "larger than the limit"). */
LAY_API lay_status lay_hsi_parse(const char *json, size_t len,
                                 const char *file, lay_hsi **out,
                                 lay_error *err);
/* The report a path names: the path itself, or for a folder (a compile
** cache) its flexmlrt-hsi.json or its only vaiml_par_N/0/flexmlrt-hsi.json.
** Free with lay_free; NULL with err set (LAY_E_IO: none there, LAY_E_ARG:
** several partitions, give one). lay_hsi_read and lay_ctx_load_hsi use it. */
LAY_API char *lay_hsi_locate(const char *path, lay_error *err);
/* Read and parse the report at `path` (a file of at most LAY_HSI_MAX_JSON
** bytes). */
LAY_API lay_status lay_hsi_read(const char *path, lay_hsi **out,
                                lay_error *err);
LAY_API void lay_hsi_free(lay_hsi *h); /* accepts NULL */

/* Entries of inputs (output = 0) or outputs (output = 1). */
LAY_API int lay_hsi_count(const lay_hsi *h, int output);
/* Find an entry by its index ("0") or its name or tensor_name; -1 when
** there is none. */
LAY_API int lay_hsi_find(const lay_hsi *h, int output, const char *key);

/* Facts about one entry (valid while h lives). */
typedef struct lay_hsi_info {
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
  int64_t frames;          /* 1; N when cpu_shape's N > 1 meets a hw_shape
                              of one frame (N = 1): the entry is N frame
                              buffers, cpu_shape above is one frame (N = 1)
                              and frame k is the k-th CPU block */
} lay_hsi_info;
LAY_API int lay_hsi_info_get(const lay_hsi *h, int output, int index,
                             lay_hsi_info *out);

/* All spec text of the report inside `namespace NS`, each definition
** preceded by a comment naming its entry; and its two parts: the header
** (a comment and `namespace NS`) and the text of one entry. Free with
** lay_free; NULL when out of memory. */
LAY_API char *lay_hsi_spec(const lay_hsi *h, const char *ns);
LAY_API char *lay_hsi_spec_header(const lay_hsi *h, const char *ns);
LAY_API char *lay_hsi_spec_entry(const lay_hsi *h, int output, int index);

/* Compile lay_hsi_spec(h, ns) into ctx (names must not clash). An entry
** whose text lay refuses (a slice keeping only padding, ...) becomes a
** fatal issue of that entry, with its JSON path and line:col, and is left
** out; the other entries are loaded. A field that cannot be read already
** made its entry unusable in lay_hsi_parse, never the report. */
LAY_API lay_status lay_hsi_load(const lay_hsi *h, lay_ctx *ctx,
                                const char *ns, lay_error *err);
/* Read the report at `path` and load it into ctx under namespace ns. */
LAY_API lay_status lay_ctx_load_hsi(lay_ctx *ctx, const char *path,
                                    const char *ns, lay_error *err);

/* The disagreements found while parsing (shapes, dtypes, scales): these
** make an entry unrunnable. Valid while h lives. */
LAY_API int lay_hsi_issue_count(const lay_hsi *h);
LAY_API const lay_hsi_issue *lay_hsi_issue_get(const lay_hsi *h, int i);
/* The first fatal issue of an entry, or NULL. */
LAY_API const lay_hsi_issue *lay_hsi_entry_issue(const lay_hsi *h,
                                                 int output, int index);
/* Every recorded issue, plus, for entries with both annotation fields and
** a chain, whether both describe the same bytes (both are run on the same
** pseudo-random data in ctx, where lay_hsi_load(h, ctx, ns) was done).
** *issues is malloc'd (free with lay_free); returns the count of fatal
** issues, or -1 with err set. */
LAY_API int lay_hsi_check(const lay_hsi *h, lay_ctx *ctx, const char *ns,
                          lay_hsi_issue **issues, int *nissues,
                          lay_error *err);

/* What `lay export --quantize SCALE,ZP[,TYPE]` asks for: a float CPU side
** quantized to the integer type `to` (int8 when LAY_DT_NONE). */
typedef struct lay_hsi_quant {
  double scale;      /* > 0 */
  double zero_point; /* an integer in the range of `to` */
  lay_dtype to;      /* the NPU element type */
} lay_hsi_quant;

/* A flexmlrt-hsi.json text holding one tensor entry in the transformation
** form for any layout of ctx (a reference with arguments: "amd.hcwnc(4)",
** "qnn.crouton", a user layout), for the CPU shape and dtype. The chain is
** built from the layout's IR: a quantize (or the dtype and scale fields
** for a value rule no chain step expresses), a slice of the stored window,
** a pad to the padded extents, a reshape into the digits of each
** dimension, a transpose into memory order. A layout that a chain cannot
** express (byte planes, strides or alignment that leave gaps, a gather
** table, per-channel or truncating quantization) fails with a message
** naming why. quant may be NULL. as_output puts the entry under "outputs"
** with the chain listed NPU -> CPU. Free with lay_free. */
LAY_API char *lay_hsi_export(lay_ctx *ctx, const char *format,
                             const int64_t *shape, int rank, lay_dtype dtype,
                             const lay_hsi_quant *quant, int as_output,
                             lay_error *err);
/* ---- The plan log -----------------------------------------------------------
** The planner's steps, one after another, as Halide logs its IR after each
** lowering pass. With a log set on a context, every lay_plan_create and
** lay_plan_convert on it calls fn(user, step, text) once after each step,
** in this order:
**   "sides"     the source and destination: axes, extents, strides, bytes
**               and value rules, as lay_plan_describe prints them;
**   "refine"    each dimension's common digits on the two sides (unit,
**               radix, strides) or its table of offset pairs, and the
**               dimension whose rows carry their pads;
**   "boxes"     every box as cut: data, pad, source pad or hole, its base
**               offsets and loops;
**   "coalesce"  every box's loops ordered and coalesced;
**   "kernels"   the finished plan: lay_plan_describe's text, every box
**               with its kernel.
** text is several lines ending in a newline, valid during the call only.
** A failed plan stops the log after its last complete step. The library
** never prints: the `lay` CLI prints these under --debug-plan (or with
** LAY_DEBUG_PLAN set). fn NULL turns the log off. */
typedef void (*lay_log_fn)(void *user, const char *step, const char *text);
LAY_API void lay_ctx_set_log(lay_ctx *ctx, lay_log_fn fn, void *user);

/* ---- Dimension names (added by the Python/.npy work, issue 18) ----------
** The CPU-side dimension names of `format` (a name with optional
** arguments), in CPU-side order, written into `names` as one
** comma-separated, NUL-terminated list ("n,c,h,w"; unnamed dimensions are
** "d0", "d1", ...); *rank receives their count. LAY_E_LIMIT when the list
** does not fit in cap bytes (names then holds ""); the errors of
** lay_plan_create for an unknown format or bad arguments. */
LAY_API lay_status lay_format_dims(lay_ctx *ctx, const char *format, int *rank,
                                   char *names, size_t cap, lay_error *err);
/* ---- Kneron PLUS tensor descriptors ---------------------------------------
** One kp.TensorDescriptor (the Python print or get_member_variable_dict of
** Kneron PLUS 3.x, as JSON: index, name, data_layout, tensor_shape_info
** {version, data}, quantization_parameters {version, data:
** {quantized_axis, quantized_fixed_point_descriptor_list}}) becomes two
** definitions: NS.tensor (fp32 on the CPU, Kneron fixed point into the
** NPU buffer) and NS.tensor_fixed (the NPU's integers on the CPU, no
** value rule). Version 2 descriptors (KL730) are built from their
** stride_npu; version 1 (KL520, KL720, KL630) name the stdlib layout of
** data_layout on shape_npu. An optional top-level "target_chip" (the
** enclosing kp.SingleModelDescriptor's) picks KL520's output variants.
** Errors are LAY_E_JSON naming the field ("tensor_shape_info.data.
** stride_npu[1]: ...") or the JSON line:col; LAY_E_LIMIT for a text over
** LAY_KNERON_MAX_JSON bytes. */
#define LAY_KNERON_MAX_JSON ((size_t)1 << 20)

typedef struct lay_kneron lay_kneron;

typedef struct lay_kneron_info {
  const char *name;        /* the descriptor's "name" ("" when absent) */
  int64_t index;           /* its "index" (0 when absent) */
  const char *data_layout; /* "1W16C8B", ... (the SDK enum's suffix) */
  int shape_version;       /* 1 or 2 */
  const char *ref;         /* the fp32 definition with its arguments,
                              relative to the namespace: "tensor(192,96,
                              48,16)"; give it as "NS." + ref */
  const char *fixed_ref;   /* the same for the integer definition */
  int rank;                /* the CPU side: ONNX shape (v2), shape_npu
                              (v1) */
  int64_t shape[LAY_MAX_RANK];
  lay_dtype dtype;         /* CPU type of ref: fp32 */
  lay_dtype fixed_dtype;   /* CPU type of fixed_ref: int8 or int16 (fp32
                              for RAW_FLOAT, whose two refs are one) */
  uint64_t npu_bytes;      /* the NPU buffer, as the SDK's helper sizes
                              it (version 2; 0 for version 1) */
  int nscales;             /* fixed-point descriptors (1: per tensor) */
  int quantized_axis;      /* their axis when nscales > 1 */
} lay_kneron_info;

/* Parse `len` bytes of JSON; `file` names it in errors. */
LAY_API lay_status lay_kneron_parse(const char *json, size_t len,
                                    const char *file, lay_kneron **out,
                                    lay_error *err);
/* Read and parse the descriptor at `path`. */
LAY_API lay_status lay_kneron_read(const char *path, lay_kneron **out,
                                   lay_error *err);
LAY_API void lay_kneron_free(lay_kneron *k); /* accepts NULL */
/* Facts about the descriptor (valid while k lives). */
LAY_API void lay_kneron_info_get(const lay_kneron *k, lay_kneron_info *out);
/* Its spec text inside `namespace NS` (free with lay_free). */
LAY_API char *lay_kneron_spec(const lay_kneron *k, const char *ns);
/* Compile lay_kneron_spec(k, ns) into ctx and plan both references once
** on the descriptor's shape, so that strides which overlap fail here
** (naming stride_npu). */
LAY_API lay_status lay_kneron_load(const lay_kneron *k, lay_ctx *ctx,
                                   const char *ns, lay_error *err);
/* Read the descriptor at `path` and load it into ctx under namespace ns. */
LAY_API lay_status lay_ctx_load_kneron(lay_ctx *ctx, const char *path,
                                       const char *ns, lay_error *err);

/* ---- TI TIDL io_1.bin ------------------------------------------------------
** Every TIDL compile writes *io_1.bin, the raw sTIDL_IOBufDesc_t: the
** inputs' and outputs' sizes, pads, pitches, element types, layouts and
** tensor scales. lay_tidl_parse reads every struct version (SDK 08.06,
** SDK 09 built for 1, 2 or 4 cores, SDK 10; told apart by the file's exact
** size) and the multi-subgraph container, bounds-checks every field, and
** turns each tensor into a layout (NS.input0, NS.output1, ...; and
** NS.input0_raw, the same bytes without the value rule) that
** lay_tidl_load compiles through the ordinary front end. Each layout maps
** the CPU tensor (N x C x H x W, or N x H x W x C for an NHWC tensor; the
** batches, DIM1 and DIM2 folded into N) to the TIDL buffer (pack), with
** TIDL-RT's arithmetic (float32, truncating). A file of another size, or
** counts outside their arrays, fail the whole file (LAY_E_IO for a file
** that cannot be read, else LAY_E_ARG); a bad field of one tensor makes
** that tensor unusable (an issue naming the field and the tensor). */
typedef struct lay_tidl_io lay_tidl_io;

/* One finding about a tensor: a fatal inconsistency or a note. */
typedef struct lay_tidl_issue {
  int output;     /* 0: inputs[index], 1: outputs[index] */
  int index;      /* the tensor */
  int fatal;      /* 1: the tensor is unusable; 0: a note */
  char text[480]; /* one line: "inputs[0] 'x': inPadL: -1 ..." */
} lay_tidl_issue;

/* Parse `len` bytes; `file` names the file in messages. */
LAY_API lay_status lay_tidl_parse(const void *data, size_t len,
                                  const char *file, lay_tidl_io **out,
                                  lay_error *err);
/* Read and parse the file at `path`. */
LAY_API lay_status lay_tidl_read(const char *path, lay_tidl_io **out,
                                 lay_error *err);
LAY_API void lay_tidl_free(lay_tidl_io *t); /* accepts NULL */
/* "SDK 08.06", "SDK 09 (2 cores)", "SDK 10", with ", N subgraphs" for a
** container. Valid while t lives. */
LAY_API const char *lay_tidl_version(const lay_tidl_io *t);
/* Tensors of the inputs (output = 0) or outputs (output = 1). */
LAY_API int lay_tidl_count(const lay_tidl_io *t, int output);
/* Find a tensor by its index ("0") or its name; -1 when there is none. */
LAY_API int lay_tidl_find(const lay_tidl_io *t, int output, const char *key);

/* Facts about one tensor (valid while t lives). */
typedef struct lay_tidl_info {
  const char *name;       /* inDataName / outDataName */
  const char *def;        /* the layout's local name, "input0" */
  const char *spec;       /* its spec text; NULL when the tensor is unusable */
  int rank;               /* 4 */
  int64_t cpu_shape[LAY_MAX_RANK]; /* [N, C, H, W] or [N, H, W, C] */
  lay_dtype cpu_dtype;    /* inputs: rawDataInElementType; outputs: fp32 */
  lay_dtype hw_dtype;     /* in/outElementType */
  int nhwc;               /* in/outLayout is 1 */
  uint64_t buffer_bytes;  /* the TIDL buffer, as TIOVX allocates it */
} lay_tidl_info;
LAY_API int lay_tidl_info_get(const lay_tidl_io *t, int output, int index,
                              lay_tidl_info *out);

/* All spec text inside `namespace NS`, a comment before each tensor.
** Free with lay_free; NULL when out of memory. */
LAY_API char *lay_tidl_spec(const lay_tidl_io *t, const char *ns);
/* Compile lay_tidl_spec(t, ns) into ctx (names must not clash). */
LAY_API lay_status lay_tidl_load(const lay_tidl_io *t, lay_ctx *ctx,
                                 const char *ns, lay_error *err);
/* Read the file at `path` and load it into ctx under namespace ns. */
LAY_API lay_status lay_ctx_load_tidl(lay_ctx *ctx, const char *path,
                                     const char *ns, lay_error *err);
/* The issues found while parsing, in file order; valid while t lives. */
LAY_API int lay_tidl_issue_count(const lay_tidl_io *t);
LAY_API const lay_tidl_issue *lay_tidl_issue_get(const lay_tidl_io *t, int i);
/* The fatal issue of a tensor, or NULL when it is usable. */
LAY_API const lay_tidl_issue *lay_tidl_tensor_issue(const lay_tidl_io *t,
                                                   int output, int index);

/* ---- Looking a definition up; converting with renamed dimensions --------
** (for `lay list`, `lay describe` and `lay convert --map`) */

#define LAY_INFO_MAX_PARAMS 16 /* parameters lay_def_info lists */

/* What a definition says before any shape is known. Strings are copies;
** src points into the context's copy of the definition's file (valid
** while the context lives). */
typedef struct lay_def_info {
  char name[128];          /* the qualified name found ("amd.hcwnc4") */
  int is_transform;        /* 1 for a transform, 0 for a layout */
  int rank;                /* CPU-side dimensions; 0 when unknown (an
                              alias of a template without defaults) */
  char dims[LAY_MAX_RANK][32]; /* their names, in CPU-side order */
  lay_dtype dtype;         /* the CPU type; LAY_DT_NONE when open */
  lay_dtype hw_dtype;      /* the stored type; LAY_DT_NONE when unknown */
  int nparams;             /* parameters (at most LAY_INFO_MAX_PARAMS) */
  char params[LAY_INFO_MAX_PARAMS][32];   /* their names */
  char defaults[LAY_INFO_MAX_PARAMS][64]; /* the default as written; ""
                                             when it has none */
  char file[256];          /* the file it comes from ("stdlib/amd.lay") */
  int line;                /* 1-based line of the definition's keyword */
  const char *src;         /* that file's text */
  size_t src_len;
  size_t start, end;       /* the definition's bytes in src: from its
                              keyword to the end of its last token */
} lay_def_info;

/* Fill *out for the definition `name` (a layout or transform name,
** looked up as lay_plan_create does, without arguments). LAY_E_NAME when
** there is none. */
LAY_API lay_status lay_ctx_def_info(lay_ctx *ctx, const char *name,
                                    lay_def_info *out, lay_error *err);

/* lay_plan_convert with the target's dimensions renamed first: `map` is
** "T=S,T=S,..." where T names a dimension of `to` and S the dimension of
** `from` it is ("b=n,d=c" converts core.nchw into qnn.crouton, whose
** dimensions are (b, h, w, d)); renames apply all at once, so names may
** swap. A dimension the map does not name keeps its name; dimensions are
** then matched by name. NULL or "" is lay_plan_convert. When a dimension
** of either side has no partner, the message names both sides'
** dimensions: "dimension 'n' of the source is not in the target: the
** source has (n, c, h, w), the target (b, h, w, d)". */
LAY_API lay_status lay_plan_convert_map(lay_ctx *ctx, const char *from,
                                        const char *to, const char *map,
                                        const int64_t *shape, int rank,
                                        lay_dtype dtype, lay_plan **out,
                                        lay_error *err);

/* ---- Did you mean (lang/suggest.c) --------------------------------------- */
/* The names nearest to a mistyped word: an edit distance (typos, a swap of
** neighbours), case-insensitive, a candidate's name without its namespace,
** a prefix of 3 or more characters; at most a few typos away (1 for a word
** under 4 characters, then one per 3). Spec errors carry it already
** ("unknown name 'cc' (did you mean 'c'?)"); a caller uses it for its own
** words (commands, options, layout names):
**   lay_suggest s; lay_suggest_init(&s, word);
**   lay_suggest_add(&s, "pack"); ...
**   printf("unknown command '%s'%s", word, lay_suggest_text(&s, b, sizeof b)); */
#define LAY_SUGGEST_MAX 3
typedef struct lay_suggest {
  const char *word;                    /* what was typed (kept, not copied) */
  size_t best;                         /* how near cand[] are (internal) */
  int n;                               /* how many in cand[] */
  char cand[LAY_SUGGEST_MAX][64];      /* the nearest ones, in order seen */
} lay_suggest;
LAY_API void lay_suggest_init(lay_suggest *s, const char *word);
LAY_API void lay_suggest_add(lay_suggest *s, const char *candidate);
/* Every element type name lay_dtype_parse takes (lay's and numpy's). */
LAY_API void lay_suggest_dtypes(lay_suggest *s);
/* " (did you mean 'a' or 'b'?)" in buf (returned), or "". */
LAY_API const char *lay_suggest_text(const lay_suggest *s, char *buf,
                                     size_t cap);
/* ---- Slabs: running a plan piece by piece (streaming) ---------------------
** A plan can run in slabs when one CPU-side dimension is outermost on both
** sides: its rows (in blocks of `unit`) are contiguous, equally sized byte
** ranges of the source and of the destination, with nothing between them
** (no pad or hole outside the rows, no window or pad on the dimension, no
** gather table, no per-channel rule along it). Slab i is rows
** [i * rows, min((i + 1) * rows, extent)) of that dimension: source bytes
** [i * src_bytes, ...) and destination bytes [i * dst_bytes, ...), the last
** slab holding what remains. Failing that, a dimension outermost on one
** side of a plan whose other side is plain row-major (the CPU side,
** core.nchw) gives slabs too, that side in pieces: one per index of the
** dimensions before it; piece j of slab i of the source at byte
** j * src_stride + i * (src_bytes / src_pieces), the pieces of a slab
** end to end making its source (the same for the destination). It is moved by a plan made like this one
** (the same format, dtype and direction) with the dimension's extent cut
** to the slab's rows; lay_plan_slab_check confirms that such a plan moves
** exactly the slab's bytes. `lay pack|unpack|convert` stream this way. */
typedef struct lay_slabs {
  int dim;          /* the dimension cut, in the order of the plan's shape
                       (for a convert plan: the source's CPU-side order) */
  int64_t extent;   /* its extent in the plan */
  int64_t unit;     /* slabs hold a multiple of this many rows (a block of
                       the dimension on a side), but the last */
  int64_t rows;     /* rows of every slab but the last */
  int64_t count;    /* slabs */
  size_t src_bytes; /* source bytes of a slab of `rows` rows */
  size_t dst_bytes; /* destination bytes of it */
  int64_t src_pieces; /* 1: the slab's source is contiguous; more: pieces */
  size_t src_stride;  /* bytes from one piece to the next (src_bytes when
                         src_pieces is 1) */
  int64_t dst_pieces; /* the same for the destination (at most one side */
  size_t dst_stride;  /* is in pieces) */
} lay_slabs;
/* The slabs of `plan` whose source plus destination bytes stay within
** max_bytes (at least one unit: a slab may exceed it when one unit does);
** a plan that fits whole is one slab. LAY_E_ARG, with the reason in err,
** when no dimension admits slabs ("no dimension is outermost on both
** sides ('c': it is not outermost)"). */
LAY_API lay_status lay_plan_slabs(const lay_plan *plan, size_t max_bytes,
                                  lay_slabs *out, lay_error *err);
/* LAY_OK when `part` is `plan` cut to its own extent of dimension
** sl->dim (rows, or the last slab's rows): the same sides, value rules
** and direction, so that it moves a slab's bytes exactly; else LAY_E_ARG. */
LAY_API lay_status lay_plan_slab_check(const lay_plan *plan,
                                       const lay_slabs *sl,
                                       const lay_plan *part, lay_error *err);

#ifdef __cplusplus
}
#endif
#endif /* LAY_H */
