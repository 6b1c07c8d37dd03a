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
  LAY_DT_INT32 = 8
} lay_dtype;

/* "fp32" or numpy's "float32", ... ; LAY_DT_NONE for an unknown name. */
LAY_API lay_dtype lay_dtype_parse(const char *name);
LAY_API const char *lay_dtype_name(lay_dtype t); /* "fp32", ...; "none" */
LAY_API size_t lay_dtype_size(lay_dtype t);      /* bytes; 0 for NONE */

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
** nothing. Buffers must not overlap. threads <= 1 runs on the calling
** thread; more splits the outer loop over that many pthreads. */
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

/* A description of the plan in words (loops, tables, kernels, bytes),
** several lines. The caller frees it with lay_free. */
LAY_API char *lay_plan_describe(const lay_plan *plan);
/* Bytes the plan keeps beyond its fixed header: its loop nests, fill
** patterns and index tables (what a plan costs per format and shape). */
LAY_API size_t lay_plan_memory(const lay_plan *plan);
LAY_API void lay_free(void *p);

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

#ifdef __cplusplus
}
#endif
#endif /* LAY_H */
