/*
** laymodule.c: the CPython extension lay._lay, a thin client of lay.h (and
** nothing else of liblay). It offers the error classes, Context and Plan
** (layvendor.c adds the vendor imports); lay/__init__.py builds the
** numpy-friendly functions and the report objects on top.
**
** Buffers cross through the buffer protocol only (no numpy C API): a plan
** reads any C-contiguous buffer and writes into any writable C-contiguous
** one. A non-contiguous input is refused here (Plan.run never copies);
** lay.pack/unpack/convert make such arrays contiguous before they call it.
** The GIL is released while a plan runs over LAY_PY_NOGIL_BYTES or more.
*/
#include "laymodule.h"

#include <string.h>

/* Below this many bytes (read + written) a run keeps the GIL: releasing
** and taking it back costs more than copying such a tensor. */
#define LAY_PY_NOGIL_BYTES 65536

/* ---- Errors ---------------------------------------------------------------
** lay.Error and one subclass per lay_status; some also derive from the
** builtin a Python user would catch (a dtype conflict is a TypeError). */
static PyObject *Error;
static struct {
  lay_status code;
  const char *name;   /* "lay.SyntaxError" */
  PyObject **builtin; /* a second base, or NULL */
  PyObject *cls;      /* made at import */
} err_classes[] = {
    {LAY_E_SYNTAX, "lay.SpecSyntaxError", NULL, NULL},
    {LAY_E_NAME, "lay.NameError", &PyExc_LookupError, NULL},
    {LAY_E_TYPE, "lay.DTypeError", &PyExc_TypeError, NULL},
    {LAY_E_SHAPE, "lay.ShapeError", &PyExc_ValueError, NULL},
    {LAY_E_ARG, "lay.ArgError", &PyExc_ValueError, NULL},
    {LAY_E_LAYOUT, "lay.LayoutError", NULL, NULL},
    {LAY_E_BUFFER, "lay.BufferSizeError", &PyExc_ValueError, NULL},
    {LAY_E_IO, "lay.FileError", &PyExc_OSError, NULL},
    {LAY_E_NOMEM, "lay.OutOfMemoryError", &PyExc_MemoryError, NULL},
    {LAY_E_LIMIT, "lay.LimitError", NULL, NULL},
    {LAY_E_OVERFLOW, "lay.SizeOverflowError", &PyExc_OverflowError, NULL},
    {LAY_E_JSON, "lay.ReportError", NULL, NULL},
    {LAY_E_INTERNAL, "lay.InternalError", NULL, NULL},
};
#define N_ERR_CLASSES (sizeof err_classes / sizeof err_classes[0])

/* Raise the class of e->code with the CLI's text, and attributes code,
** status, file, line, col, message, source_line. Returns NULL. */
PyObject *raise_lay(const lay_error *e) {
  PyObject *cls = Error;
  for (size_t i = 0; i < N_ERR_CLASSES; i++)
    if (err_classes[i].code == e->code) cls = err_classes[i].cls;
  char text[1200];
  lay_error_format(e, text, sizeof text);
  PyObject *exc = PyObject_CallFunction(cls, "s", text);
  if (!exc) return NULL;
  PyObject *v;
#define SETA(name, expr)                                   \
  v = (expr);                                              \
  if (!v || PyObject_SetAttrString(exc, name, v) < 0) {    \
    Py_XDECREF(v);                                         \
    Py_DECREF(exc);                                        \
    return NULL;                                           \
  }                                                        \
  Py_DECREF(v);
  SETA("code", PyLong_FromLong((long)e->code));
  SETA("status", PyUnicode_FromString(lay_status_str(e->code)));
  SETA("file", PyUnicode_DecodeUTF8(e->file, (Py_ssize_t)strlen(e->file), "replace"));
  SETA("line", PyLong_FromLong(e->line));
  SETA("col", PyLong_FromLong(e->col));
  SETA("message", PyUnicode_DecodeUTF8(e->message, (Py_ssize_t)strlen(e->message), "replace"));
  SETA("source_line", PyUnicode_DecodeUTF8(e->source_line,
                                           (Py_ssize_t)strlen(e->source_line), "replace"));
#undef SETA
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
  return NULL;
}

/* ---- dtypes ---------------------------------------------------------------- */

/* A dtype argument: None (LAY_DT_NONE), a name ("fp32", "float32", "<f4")
** or an object with a .name or a str() (numpy dtypes and types). */
static int dtype_arg(PyObject *o, lay_dtype *out) {
  if (o == NULL || o == Py_None) {
    *out = LAY_DT_NONE;
    return 0;
  }
  PyObject *s = NULL;
  if (PyUnicode_Check(o)) {
    s = o;
    Py_INCREF(s);
  } else if (PyObject_HasAttrString(o, "str") && PyObject_HasAttrString(o, "kind")) {
    s = PyObject_GetAttrString(o, "str"); /* numpy.dtype: "<f4" */
  } else if (PyType_Check(o)) {
    s = PyObject_GetAttrString(o, "__name__"); /* numpy.float32 */
  } else {
    s = PyObject_Str(o);
  }
  if (!s) return -1;
  const char *name = PyUnicode_AsUTF8(s);
  if (!name) {
    Py_DECREF(s);
    return -1;
  }
  *out = lay_dtype_parse(name);
  if (*out == LAY_DT_NONE) {
    PyErr_Format(PyExc_TypeError,
                 "unknown dtype '%s' (fp32 fp16 bf16 int8 uint8 int16 uint16 "
                 "int32 uint32 int64 uint64 int4 uint4 fp8e4m3 fp8e5m2, or numpy's "
                 "names)", name);
    Py_DECREF(s);
    return -1;
  }
  Py_DECREF(s);
  return 0;
}

/* The lay dtype of a buffer's struct format ("f", "<e", "B", ...);
** LAY_DT_NONE when lay has none for it. */
static lay_dtype format_dtype(const char *f, Py_ssize_t itemsize) {
  if (!f) return LAY_DT_UINT8;
  if (*f == '<' || *f == '=' || *f == '@') f++;
  if (f[0] == 0 || f[1] != 0) return LAY_DT_NONE;
  switch (f[0]) {
  case 'f': return LAY_DT_FP32;
  case 'e': return LAY_DT_FP16;
  case 'b': return LAY_DT_INT8;
  case 'B': return LAY_DT_UINT8;
  case 'c': return LAY_DT_UINT8;
  case 'h': return LAY_DT_INT16;
  case 'H': return LAY_DT_UINT16;
  case 'i': case 'l': case 'q':
    return itemsize == 4 ? LAY_DT_INT32 : itemsize == 8 ? LAY_DT_INT64
                                                        : LAY_DT_NONE;
  case 'I': case 'L': case 'Q':
    return itemsize == 4 ? LAY_DT_UINT32 : itemsize == 8 ? LAY_DT_UINT64
                                                         : LAY_DT_NONE;
  default: return LAY_DT_NONE;
  }
}

/* Whether a buffer of dtype b can hold elements of type t: the same type,
** or uint16 holding bf16 (numpy has no bfloat16), or uint8 holding the raw
** bytes of fp8 and of int4/uint4 (two per byte, low nibble first). */
static int dtype_fits(lay_dtype b, lay_dtype t) {
  return b == t || (t == LAY_DT_BF16 && b == LAY_DT_UINT16) ||
         (b == LAY_DT_UINT8 &&
          (t == LAY_DT_FP8E4M3 || t == LAY_DT_FP8E5M2 || lay_dtype_bits(t) == 4));
}

/* ---- Context -------------------------------------------------------------- */
typedef struct {
  PyObject_HEAD
  lay_ctx *ctx;
} CtxObject;

static PyTypeObject CtxType;

lay_ctx *ctx_of(PyObject *o) {
  if (!PyObject_TypeCheck(o, &CtxType)) {
    PyErr_Format(PyExc_TypeError, "ctx must be a lay.Context, not %s",
                 Py_TYPE(o)->tp_name);
    return NULL;
  }
  return ((CtxObject *)o)->ctx;
}

static int ctx_init(CtxObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"lay_path", NULL};
  PyObject *path = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:Context", kwlist, &path))
    return -1;
  lay_error e;
  if (self->ctx) {
    lay_ctx_free(self->ctx);
    self->ctx = NULL;
  }
  if (lay_ctx_new(&self->ctx, &e) != LAY_OK) {
    raise_lay(&e);
    return -1;
  }
  const char *p = NULL;
  PyObject *bytes = NULL;
  if (path == Py_None) {
    p = getenv("LAY_PATH");
  } else if (path != Py_False) {
    if (!PyUnicode_FSConverter(path, &bytes)) return -1;
    p = PyBytes_AS_STRING(bytes);
  }
  lay_status st = p && *p ? lay_ctx_load_path(self->ctx, p, &e) : LAY_OK;
  Py_XDECREF(bytes);
  if (st != LAY_OK) {
    raise_lay(&e);
    return -1;
  }
  return 0;
}

static void ctx_dealloc(CtxObject *self) {
  lay_ctx_free(self->ctx);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *ctx_load_file(CtxObject *self, PyObject *arg) {
  PyObject *bytes;
  if (!PyUnicode_FSConverter(arg, &bytes)) return NULL;
  lay_error e;
  lay_status st = lay_ctx_load_file(self->ctx, PyBytes_AS_STRING(bytes), &e);
  Py_DECREF(bytes);
  if (st != LAY_OK) return raise_lay(&e);
  Py_RETURN_NONE;
}

static PyObject *ctx_load_string(CtxObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"text", "name", NULL};
  const char *text, *name = "<string>";
  Py_ssize_t len;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|s:load_string", kwlist, &text,
                                   &len, &name))
    return NULL;
  lay_error e;
  if (lay_ctx_load_string(self->ctx, name, text, (size_t)len, &e) != LAY_OK)
    return raise_lay(&e);
  Py_RETURN_NONE;
}

static PyObject *ctx_load_path(CtxObject *self, PyObject *arg) {
  PyObject *bytes;
  if (!PyUnicode_FSConverter(arg, &bytes)) return NULL;
  lay_error e;
  lay_status st = lay_ctx_load_path(self->ctx, PyBytes_AS_STRING(bytes), &e);
  Py_DECREF(bytes);
  if (st != LAY_OK) return raise_lay(&e);
  Py_RETURN_NONE;
}

static PyObject *ctx_load_hsi(CtxObject *self, PyObject *args) {
  PyObject *path, *bytes;
  const char *ns;
  if (!PyArg_ParseTuple(args, "Os:load_hsi", &path, &ns)) return NULL;
  if (!PyUnicode_FSConverter(path, &bytes)) return NULL;
  lay_error e;
  lay_status st = lay_ctx_load_hsi(self->ctx, PyBytes_AS_STRING(bytes), ns, &e);
  Py_DECREF(bytes);
  if (st != LAY_OK) return raise_lay(&e);
  Py_RETURN_NONE;
}

/* load_tidl(path, ns) and load_kneron(path, ns): lay_ctx_load_tidl and
** lay_ctx_load_kneron (the objects lay.TidlModel and lay.KneronTensor
** load the file they have read with _Tidl.load and _Kneron.load). */
static PyObject *ctx_load_vendor(CtxObject *self, PyObject *args, int kneron) {
  PyObject *path, *bytes;
  const char *ns;
  if (!PyArg_ParseTuple(args, kneron ? "Os:load_kneron" : "Os:load_tidl", &path, &ns))
    return NULL;
  if (!PyUnicode_FSConverter(path, &bytes)) return NULL;
  lay_error e;
  const char *p = PyBytes_AS_STRING(bytes);
  lay_status st = kneron ? lay_ctx_load_kneron(self->ctx, p, ns, &e)
                         : lay_ctx_load_tidl(self->ctx, p, ns, &e);
  Py_DECREF(bytes);
  if (st != LAY_OK) return raise_lay(&e);
  Py_RETURN_NONE;
}

static PyObject *ctx_load_tidl(CtxObject *self, PyObject *args) {
  return ctx_load_vendor(self, args, 0);
}

static PyObject *ctx_load_kneron(CtxObject *self, PyObject *args) {
  return ctx_load_vendor(self, args, 1);
}

static PyObject *ctx_names(CtxObject *self, PyObject *unused) {
  (void)unused;
  size_t n = lay_ctx_count(self->ctx);
  PyObject *l = PyList_New((Py_ssize_t)n);
  if (!l) return NULL;
  for (size_t i = 0; i < n; i++) {
    PyObject *s = PyUnicode_FromString(lay_ctx_name(self->ctx, i));
    if (!s) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, (Py_ssize_t)i, s);
  }
  return l;
}

static PyObject *ctx_dims(CtxObject *self, PyObject *arg) {
  const char *fmt = PyUnicode_AsUTF8(arg);
  if (!fmt) return NULL;
  char names[LAY_MAX_RANK * 80];
  int rank;
  lay_error e;
  if (lay_format_dims(self->ctx, fmt, &rank, names, sizeof names, &e) != LAY_OK)
    return raise_lay(&e);
  PyObject *all = PyUnicode_FromString(names);
  if (!all) return NULL;
  PyObject *sep = PyUnicode_FromString(",");
  PyObject *l = sep ? PyUnicode_Split(all, sep, -1) : NULL;
  Py_XDECREF(sep);
  Py_DECREF(all);
  if (!l) return NULL;
  PyObject *t = PyList_AsTuple(l);
  Py_DECREF(l);
  return t;
}

/* A shape argument: a sequence of positive ints, at most LAY_MAX_RANK. */
static int shape_arg(PyObject *o, int64_t *shape, int *rank) {
  PyObject *seq = PySequence_Fast(o, "shape must be a sequence of ints");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > LAY_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "shape has %zd dimensions, lay takes at most %d",
                 n, LAY_MAX_RANK);
    Py_DECREF(seq);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (v == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
    shape[i] = (int64_t)v;
  }
  *rank = (int)n;
  Py_DECREF(seq);
  return 0;
}

static PyObject *plan_wrap(lay_plan *p, PyObject *ctx, lay_dir dir);

static const struct {
  const char *name;
  lay_dir dir;
} dir_names[] = {{"pack", LAY_PACK}, {"unpack", LAY_UNPACK}};

static PyObject *ctx_plan(CtxObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"format", "shape", "dtype", "direction", NULL};
  const char *fmt, *dirname = "pack";
  PyObject *shape_o, *dtype_o = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|Os:plan", kwlist, &fmt, &shape_o,
                                   &dtype_o, &dirname))
    return NULL;
  int64_t shape[LAY_MAX_RANK];
  int rank;
  lay_dtype dt;
  if (shape_arg(shape_o, shape, &rank) < 0 || dtype_arg(dtype_o, &dt) < 0) return NULL;
  int dir = -1;
  for (size_t i = 0; i < sizeof dir_names / sizeof dir_names[0]; i++)
    if (!strcmp(dirname, dir_names[i].name)) dir = (int)dir_names[i].dir;
  if (dir < 0)
    return PyErr_Format(PyExc_ValueError,
                        "direction '%s': expected 'pack' or 'unpack' (convert: "
                        "Context.convert_plan)", dirname);
  lay_plan *p;
  lay_error e;
  if (lay_plan_create(self->ctx, fmt, shape, rank, dt, (lay_dir)dir, &p, &e) != LAY_OK)
    return raise_lay(&e);
  return plan_wrap(p, (PyObject *)self, (lay_dir)dir);
}

static PyObject *ctx_convert_plan(CtxObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"src", "dst", "shape", "dtype", NULL};
  const char *from, *to;
  PyObject *shape_o, *dtype_o = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "ssO|O:convert_plan", kwlist, &from,
                                   &to, &shape_o, &dtype_o))
    return NULL;
  int64_t shape[LAY_MAX_RANK];
  int rank;
  lay_dtype dt;
  if (shape_arg(shape_o, shape, &rank) < 0 || dtype_arg(dtype_o, &dt) < 0) return NULL;
  lay_plan *p;
  lay_error e;
  if (lay_plan_convert(self->ctx, from, to, shape, rank, dt, &p, &e) != LAY_OK)
    return raise_lay(&e);
  return plan_wrap(p, (PyObject *)self, LAY_CONVERT);
}

static PyMethodDef ctx_methods[] = {
    {"load_file", (PyCFunction)ctx_load_file, METH_O,
     "load_file(path)\n\nLoad a spec file; its imports resolve next to it, then "
     "along LAY_PATH."},
    {"load_string", (PyCFunction)(void (*)(void))ctx_load_string,
     METH_VARARGS | METH_KEYWORDS,
     "load_string(text, name='<string>')\n\nLoad spec text; name is used in error "
     "positions."},
    {"load_path", (PyCFunction)ctx_load_path, METH_O,
     "load_path(lay_path)\n\nLoad every .lay file of the ':'-separated folders."},
    {"load_hsi", (PyCFunction)ctx_load_hsi, METH_VARARGS,
     "load_hsi(path, namespace)\n\nRead an AMD flexmlrt-hsi.json report and define "
     "namespace.input0, namespace.output0, ... (see lay.HsiReport)."},
    {"load_tidl", (PyCFunction)ctx_load_tidl, METH_VARARGS,
     "load_tidl(path, namespace)\n\nRead a TI TIDL io_1.bin and define "
     "namespace.input0, namespace.output0, ... and their _raw forms (see "
     "lay.TidlModel)."},
    {"load_kneron", (PyCFunction)ctx_load_kneron, METH_VARARGS,
     "load_kneron(path, namespace)\n\nRead a Kneron kp.TensorDescriptor (JSON) "
     "and define namespace.tensor and namespace.tensor_fixed (see "
     "lay.KneronTensor)."},
    {"dims", (PyCFunction)ctx_dims, METH_O,
     "dims(format) -> tuple[str, ...]\n\nThe CPU-side dimension names of format, in "
     "CPU-side order (('n', 'c', 'h', 'w') for amd.hcwnc4)."},
    {"names", (PyCFunction)ctx_names, METH_NOARGS,
     "names() -> list[str]\n\nThe qualified names of every layout and transform."},
    {"plan", (PyCFunction)(void (*)(void))ctx_plan, METH_VARARGS | METH_KEYWORDS,
     "plan(format, shape, dtype=None, direction='pack') -> Plan\n\nCompile format "
     "for the CPU-side shape (CPU-side order) and dtype (None: the spec's, else "
     "int8); direction 'pack' (CPU -> layout) or 'unpack'."},
    {"convert_plan", (PyCFunction)(void (*)(void))ctx_convert_plan,
     METH_VARARGS | METH_KEYWORDS,
     "convert_plan(src, dst, shape, dtype=None) -> Plan\n\nCompile layout src -> "
     "layout dst for one tensor of CPU-side shape (src's CPU-side order)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject CtxType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lay.Context",
    .tp_basicsize = sizeof(CtxObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(lay_path=None)\n\nA set of compiled specs: the embedded "
              "stdlib plus the .lay files of lay_path (None: $LAY_PATH; False: "
              "none) and whatever load_file/load_string add. Not thread-safe; "
              "its plans are.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)ctx_init,
    .tp_dealloc = (destructor)ctx_dealloc,
    .tp_methods = ctx_methods,
};

/* ---- Plan ------------------------------------------------------------------ */
typedef struct {
  PyObject_HEAD
  lay_plan *plan;
  PyObject *ctx;         /* keeps the context alive (names of hw dims) */
  size_t src_bytes, dst_bytes;
  lay_dtype src_dt, dst_dt;
  int src_cpu, dst_cpu;  /* 1: that side is the CPU tensor */
  int rank;
  int64_t cpu_shape[LAY_MAX_RANK];
} PlanObject;

static PyTypeObject PlanType;
static PyObject *allocator; /* lay/__init__.py's _alloc(shape, dtype name) */

static PyObject *plan_wrap(lay_plan *p, PyObject *ctx, lay_dir dir) {
  PlanObject *o = PyObject_New(PlanObject, &PlanType);
  if (!o) {
    lay_plan_free(p);
    return NULL;
  }
  o->plan = p;
  o->ctx = ctx;
  Py_INCREF(ctx);
  o->src_bytes = lay_plan_src_bytes(p);
  o->dst_bytes = lay_plan_dst_bytes(p);
  o->src_dt = lay_plan_src_dtype(p);
  o->dst_dt = lay_plan_dst_dtype(p);
  o->rank = lay_plan_cpu_shape(p, o->cpu_shape, LAY_MAX_RANK);
  /* pack: dst is the layout buffer; unpack: src is; convert: both are. */
  o->src_cpu = dir == LAY_PACK;
  o->dst_cpu = dir == LAY_UNPACK;
  return (PyObject *)o;
}

static void plan_dealloc(PlanObject *self) {
  lay_plan_free(self->plan);
  Py_XDECREF(self->ctx);
  PyObject_Free(self);
}

/* show(limit=4096): the layout buffer in memory order, one element a line. */
static PyObject *plan_show(PlanObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"limit", NULL};
  Py_ssize_t limit = 4096;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|n:show", kwlist, &limit)) return NULL;
  if (limit < 0) return PyErr_Format(PyExc_ValueError, "limit must be >= 0");
  size_t total = lay_plan_layout_bytes(self->plan);
  size_t step = lay_plan_layout_elem_bytes(self->plan);
  if (!step) step = 1;
  /* int4/uint4: two elements a byte, each listed ("3.1:" is the second
  ** element of byte 3 in memory order) */
  int nib = lay_dtype_bits(self->dst_cpu ? self->src_dt : self->dst_dt) == 4;
  if (nib) total = (size_t)lay_plan_layout_elements(self->plan);
  PyObject *lines = PyList_New(0);
  if (!lines) return NULL;
  char line[512];
  Py_ssize_t n = 0;
  for (size_t off = 0; off < total; off += step, n++) {
    if (limit && n >= limit) {
      snprintf(line, sizeof line, nib ? "... (%zu elements in all)\n"
                                      : "... (%zu bytes in all)\n", total);
    } else {
      int64_t c[LAY_MAX_RANK];
      int pad, plane;
      lay_error e;
      if ((nib ? lay_plan_at_element(self->plan, off, c, LAY_MAX_RANK, &pad,
                                     &plane, &e)
               : lay_plan_at(self->plan, off, c, LAY_MAX_RANK, &pad, &plane,
                             &e)) != LAY_OK) {
        Py_DECREF(lines);
        return raise_lay(&e);
      }
      int k = nib ? snprintf(line, sizeof line, "%6zu.%zu: ", off / 2, off % 2)
                  : snprintf(line, sizeof line, "%8zu: ", off);
      if (pad == 2) {
        k += snprintf(line + k, sizeof line - (size_t)k, "hole");
      } else {
        for (int i = 0; i < self->rank; i++)
          k += snprintf(line + k, sizeof line - (size_t)k, "%s%lld", i ? "," : "(",
                        (long long)c[i]);
        k += snprintf(line + k, sizeof line - (size_t)k, ")%s", pad ? " pad" : "");
      }
      const char *pn = lay_plan_plane_name(self->plan, plane);
      if (lay_plan_plane_count(self->plan) > 0 && pn)
        k += snprintf(line + k, sizeof line - (size_t)k, " plane %s", pn);
      snprintf(line + k, sizeof line - (size_t)k, "\n");
    }
    PyObject *s = PyUnicode_FromString(line);
    if (!s || PyList_Append(lines, s) < 0) {
      Py_XDECREF(s);
      Py_DECREF(lines);
      return NULL;
    }
    Py_DECREF(s);
    if (limit && n >= limit) break;
  }
  PyObject *empty = PyUnicode_FromString("");
  PyObject *r = empty ? PyUnicode_Join(empty, lines) : NULL;
  Py_XDECREF(empty);
  Py_DECREF(lines);
  return r;
}

PyObject *get_ints(const int64_t *v, int n) {
  PyObject *t = PyTuple_New(n);
  if (!t) return NULL;
  for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
  return t;
}

/* Check one buffer against one side of the plan: its byte count, and its
** element type unless it is raw bytes (uint8 for a side of another type). */
static int check_side(const Py_buffer *b, size_t need, lay_dtype dt, int cpu,
                      const PlanObject *p, const char *what) {
  lay_dtype bt = format_dtype(b->format, b->itemsize);
  int raw = bt == LAY_DT_UINT8 && !cpu;
  if (!raw && !dtype_fits(bt, dt)) {
    PyErr_Format(PyExc_TypeError, "%s holds %s (format '%s'), the plan's %s side "
                 "is %s%s", what, bt == LAY_DT_NONE ? "a type lay lacks"
                 : lay_dtype_name(bt), b->format ? b->format : "B", what,
                 lay_dtype_name(dt), dt == LAY_DT_BF16 ? " (pass bf16 as uint16)" : "");
    return -1;
  }
  if ((size_t)b->len != need) {
    PyErr_Format(PyExc_ValueError, "%s has %zd bytes, the plan's %s side has %zu",
                 what, b->len, what, need);
    return -1;
  }
  if (cpu && b->ndim > 1) {
    int same = b->ndim == p->rank;
    for (int i = 0; same && i < p->rank; i++)
      same = b->shape[i] == p->cpu_shape[i];
    if (!same) {
      int64_t bs[64];
      int bn = b->ndim < 64 ? b->ndim : 64;
      for (int i = 0; i < bn; i++) bs[i] = (int64_t)b->shape[i];
      PyObject *have = get_ints(bs, bn), *want = get_ints(p->cpu_shape, p->rank);
      if (have && want)
        PyErr_Format(PyExc_ValueError, "%s has shape %R, the plan's CPU side is %R",
                     what, have, want);
      Py_XDECREF(have);
      Py_XDECREF(want);
      return -1;
    }
  }
  return 0;
}

static PyObject *plan_alloc_out(PlanObject *self) {
  if (!allocator) return PyErr_Format(PyExc_RuntimeError, "no allocator: pass out=");
  PyObject *shape;
  if (self->dst_cpu && lay_dtype_bits(self->dst_dt) == 4) {
    /* int4/uint4: the packed bytes, two elements each */
    PyObject *r = PyObject_CallFunction(allocator, "(n)s",
                                        (Py_ssize_t)self->dst_bytes, "uint8");
    return r;
  }
  if (self->dst_cpu) {
    shape = PyTuple_New(self->rank);
    if (!shape) return NULL;
    for (int i = 0; i < self->rank; i++)
      PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(self->cpu_shape[i]));
  } else {
    shape = Py_BuildValue("(n)", (Py_ssize_t)self->dst_bytes);
  }
  if (!shape) return NULL;
  PyObject *r = PyObject_CallFunction(allocator, "Os", shape,
                                      self->dst_cpu ? lay_dtype_name(self->dst_dt) : "uint8");
  Py_DECREF(shape);
  return r;
}

static PyObject *plan_run(PlanObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
  PyObject *x = NULL, *out = Py_None;
  long threads = 1;
  if (nargs < 1 || nargs > 2)
    return PyErr_Format(PyExc_TypeError, "run(x, out=None, threads=1) takes 1 or 2 "
                        "positional arguments, got %zd", nargs);
  x = args[0];
  if (nargs == 2) out = args[1];
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; i++) {
    const char *k = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
    PyObject *v = args[nargs + i];
    if (!k) return NULL;
    if (!strcmp(k, "out")) {
      out = v;
    } else if (!strcmp(k, "threads")) {
      threads = PyLong_AsLong(v);
      if (threads == -1 && PyErr_Occurred()) return NULL;
    } else {
      return PyErr_Format(PyExc_TypeError, "run() got an unexpected keyword '%s'", k);
    }
  }
  if (threads < 1 || threads > 1024)
    return PyErr_Format(PyExc_ValueError, "threads=%ld: expected 1..1024", threads);
  Py_buffer in, ob;
  if (PyObject_GetBuffer(x, &in, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
    if (PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_ValueError)) {
      PyErr_Clear();
      PyErr_SetString(PyExc_ValueError, "x is not C-contiguous: pass "
                      "numpy.ascontiguousarray(x) (Plan.run never copies; lay.pack "
                      "and friends do)");
    }
    return NULL;
  }
  if (check_side(&in, self->src_bytes, self->src_dt, self->src_cpu, self, "input") < 0) {
    PyBuffer_Release(&in);
    return NULL;
  }
  if (out == Py_None) {
    out = plan_alloc_out(self);
    if (!out) {
      PyBuffer_Release(&in);
      return NULL;
    }
  } else {
    Py_INCREF(out);
  }
  if (PyObject_GetBuffer(out, &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
    if (PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_ValueError)) {
      PyErr_Clear();
      PyErr_SetString(PyExc_ValueError, "out must be a writable C-contiguous buffer");
    }
    PyBuffer_Release(&in);
    Py_DECREF(out);
    return NULL;
  }
  if (check_side(&ob, self->dst_bytes, self->dst_dt, self->dst_cpu, self, "output") < 0)
    goto fail;
  const char *a = in.buf, *b = ob.buf;
  if (in.len && ob.len && a < b + ob.len && b < a + in.len) {
    PyErr_SetString(PyExc_ValueError, "x and out overlap: lay cannot run in place");
    goto fail;
  }
  lay_error e;
  lay_status st;
  if (self->src_bytes + self->dst_bytes >= LAY_PY_NOGIL_BYTES || threads > 1) {
    Py_BEGIN_ALLOW_THREADS
    st = lay_plan_run(self->plan, in.buf, (size_t)in.len, ob.buf, (size_t)ob.len,
                      (int)threads, &e);
    Py_END_ALLOW_THREADS
  } else {
    st = lay_plan_run(self->plan, in.buf, (size_t)in.len, ob.buf, (size_t)ob.len, 1, &e);
  }
  PyBuffer_Release(&in);
  PyBuffer_Release(&ob);
  if (st != LAY_OK) {
    Py_DECREF(out);
    return raise_lay(&e);
  }
  return out;
fail:
  PyBuffer_Release(&in);
  PyBuffer_Release(&ob);
  Py_DECREF(out);
  return NULL;
}

static PyObject *plan_where(PlanObject *self, PyObject *arg) {
  int64_t c[LAY_MAX_RANK];
  int rank;
  if (shape_arg(arg, c, &rank) < 0) return NULL;
  uint64_t off;
  lay_error e;
  if (lay_plan_where(self->plan, c, rank, &off, &e) != LAY_OK) return raise_lay(&e);
  return PyLong_FromUnsignedLongLong(off);
}

static PyObject *plan_at(PlanObject *self, PyObject *arg) {
  unsigned long long off = PyLong_AsUnsignedLongLong(arg);
  if (off == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  int64_t c[LAY_MAX_RANK];
  int pad, plane;
  lay_error e;
  if (lay_plan_at(self->plan, off, c, LAY_MAX_RANK, &pad, &plane, &e) != LAY_OK)
    return raise_lay(&e);
  PyObject *t = PyTuple_New(self->rank);
  if (!t) return NULL;
  for (int i = 0; i < self->rank; i++)
    PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(c[i]));
  return Py_BuildValue("(Nii)", t, pad, plane);
}

static PyObject *plan_describe(PlanObject *self, PyObject *unused) {
  (void)unused;
  char *d = lay_plan_describe(self->plan);
  if (!d) return PyErr_NoMemory();
  PyObject *s = PyUnicode_FromString(d);
  lay_free(d);
  return s;
}

static PyObject *plan_get_cpu_shape(PlanObject *self, void *u) {
  (void)u;
  return get_ints(self->cpu_shape, self->rank);
}

static PyObject *plan_get_hw_shape(PlanObject *self, void *u) {
  (void)u;
  int64_t s[LAY_MAX_AXES];
  int n = lay_plan_hw_shape(self->plan, s, NULL, LAY_MAX_AXES);
  return get_ints(s, n < LAY_MAX_AXES ? n : LAY_MAX_AXES);
}

static PyObject *plan_get_hw_names(PlanObject *self, void *u) {
  (void)u;
  int64_t s[LAY_MAX_AXES];
  const char *names[LAY_MAX_AXES];
  int n = lay_plan_hw_shape(self->plan, s, names, LAY_MAX_AXES);
  if (n > LAY_MAX_AXES) n = LAY_MAX_AXES;
  PyObject *t = PyTuple_New(n);
  if (!t) return NULL;
  for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyUnicode_FromString(names[i]));
  return t;
}

static PyObject *plan_get_planes(PlanObject *self, void *u) {
  (void)u;
  int n = lay_plan_plane_count(self->plan);
  PyObject *t = PyTuple_New(n);
  if (!t) return NULL;
  for (int i = 0; i < n; i++)
    PyTuple_SET_ITEM(t, i, PyUnicode_FromString(lay_plan_plane_name(self->plan, i)));
  return t;
}

#define SIZE_GETTER(fname, expr)                      \
  static PyObject *fname(PlanObject *self, void *u) { \
    (void)u;                                          \
    return expr;                                      \
  }
SIZE_GETTER(plan_get_src_bytes, PyLong_FromSize_t(self->src_bytes))
SIZE_GETTER(plan_get_dst_bytes, PyLong_FromSize_t(self->dst_bytes))
SIZE_GETTER(plan_get_layout_bytes, PyLong_FromSize_t(lay_plan_layout_bytes(self->plan)))
SIZE_GETTER(plan_get_layout_elem, PyLong_FromSize_t(lay_plan_layout_elem_bytes(self->plan)))
SIZE_GETTER(plan_get_memory, PyLong_FromSize_t(lay_plan_memory(self->plan)))
SIZE_GETTER(plan_get_high_first, PyBool_FromLong(lay_plan_layout_high_first(self->plan)))
SIZE_GETTER(plan_get_src_dtype, PyUnicode_FromString(lay_dtype_name(self->src_dt)))
SIZE_GETTER(plan_get_dst_dtype, PyUnicode_FromString(lay_dtype_name(self->dst_dt)))
SIZE_GETTER(plan_get_src_cpu, PyBool_FromLong(self->src_cpu))
SIZE_GETTER(plan_get_dst_cpu, PyBool_FromLong(self->dst_cpu))
SIZE_GETTER(plan_get_context, (Py_INCREF(self->ctx), self->ctx))

static PyGetSetDef plan_getset[] = {
    {"src_bytes", (getter)plan_get_src_bytes, NULL, "bytes one run reads", NULL},
    {"dst_bytes", (getter)plan_get_dst_bytes, NULL, "bytes one run writes", NULL},
    {"src_dtype", (getter)plan_get_src_dtype, NULL, "element type read ('fp32', ...)", NULL},
    {"dst_dtype", (getter)plan_get_dst_dtype, NULL, "element type written", NULL},
    {"cpu_shape", (getter)plan_get_cpu_shape, NULL, "the CPU-side shape", NULL},
    {"hw_shape", (getter)plan_get_hw_shape, NULL,
     "extents of the layout's axes in memory order, outermost first", NULL},
    {"hw_names", (getter)plan_get_hw_names, NULL,
     "names of those axes ('h', 'c/4', 'c%4', ...)", NULL},
    {"planes", (getter)plan_get_planes, NULL, "names of the byte planes, () if none", NULL},
    {"layout_bytes", (getter)plan_get_layout_bytes, NULL, "bytes of the layout buffer", NULL},
    {"layout_elem_bytes", (getter)plan_get_layout_elem, NULL,
     "bytes of one element of the layout buffer", NULL},
    {"memory", (getter)plan_get_memory, NULL, "bytes the plan keeps (loops, tables)", NULL},
    {"layout_high_first", (getter)plan_get_high_first, NULL,
     "a 4-bit layout buffer whose bytes hold their first element in the high nibble",
     NULL},
    {"src_is_cpu", (getter)plan_get_src_cpu, NULL, "the input is the CPU tensor", NULL},
    {"dst_is_cpu", (getter)plan_get_dst_cpu, NULL, "the output is the CPU tensor", NULL},
    {"context", (getter)plan_get_context, NULL, "the Context the plan came from", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef plan_methods[] = {
    {"run", (PyCFunction)(void (*)(void))plan_run, METH_FASTCALL | METH_KEYWORDS,
     "run(x, out=None, threads=1) -> out\n\nRead x (C-contiguous, src_bytes bytes), "
     "write the result into out and return it; out=None allocates (the CPU tensor "
     "with cpu_shape, else a 1-D uint8 array). A CPU-side array must have the plan's "
     "dtype (bf16 as uint16) and cpu_shape (or be 1-D); a layout buffer may be raw uint8. The "
     "GIL is released while the plan runs (tensors of 64 KiB and more, or threads > 1)."},
    {"where", (PyCFunction)plan_where, METH_O,
     "where(coord) -> int\n\nByte offset of a CPU-side coordinate in the layout buffer."},
    {"at", (PyCFunction)plan_at, METH_O,
     "at(offset) -> (coord, pad, plane)\n\nThe CPU-side coordinate of a byte of the "
     "layout buffer; pad is 0 for data, 1 for padding (coord outside the tensor), 2 "
     "for a hole (coord all -1); plane the byte-plane index."},
    {"show", (PyCFunction)(void (*)(void))plan_show, METH_VARARGS | METH_KEYWORDS,
     "show(limit=4096) -> str\n\nThe layout buffer in memory order, one element a "
     "line: 'offset: (coord)', with ' pad', 'hole' and ' plane NAME' where they "
     "apply; at most limit lines (0: all)."},
    {"describe", (PyCFunction)plan_describe, METH_NOARGS,
     "describe() -> str\n\nThe plan in words: loops, tables, kernels, bytes."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lay.Plan",
    .tp_basicsize = sizeof(PlanObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled, immutable conversion for one shape, dtype and direction "
              "(Context.plan, Context.convert_plan); run it from any thread.",
    .tp_dealloc = (destructor)plan_dealloc,
    .tp_methods = plan_methods,
    .tp_getset = plan_getset,
};

/* ---- Module ------------------------------------------------------------------ */
static PyObject *mod_set_allocator(PyObject *m, PyObject *fn) {
  (void)m;
  Py_XDECREF(allocator);
  allocator = fn;
  Py_INCREF(fn);
  Py_RETURN_NONE;
}

static PyObject *mod_dtype_size(PyObject *m, PyObject *arg) {
  (void)m;
  lay_dtype t;
  if (dtype_arg(arg, &t) < 0) return NULL;
  return Py_BuildValue("(sn)", lay_dtype_name(t), (Py_ssize_t)lay_dtype_size(t));
}

/* _raise(code, file, message): raise lay.Error of that status as the
** library would (the report objects' checks made in Python). */
static PyObject *mod_raise(PyObject *m, PyObject *args) {
  (void)m;
  int code;
  const char *file, *message;
  if (!PyArg_ParseTuple(args, "iss:_raise", &code, &file, &message)) return NULL;
  lay_error e;
  memset(&e, 0, sizeof e);
  e.code = (lay_status)code;
  snprintf(e.file, sizeof e.file, "%s", file);
  snprintf(e.message, sizeof e.message, "%s", message);
  return raise_lay(&e);
}

static PyMethodDef mod_methods[] = {
    {"_raise", mod_raise, METH_VARARGS,
     "_raise(code, file, message): raise the lay.Error of lay_status code"},
    {"_set_allocator", mod_set_allocator, METH_O, "the function run() allocates with"},
    {"dtype_info", mod_dtype_size, METH_O,
     "dtype_info(dtype) -> (name, size)\n\nlay's name and byte size of a dtype "
     "('float32' -> ('fp32', 4)); TypeError for a type lay lacks."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef lay_module = {
    PyModuleDef_HEAD_INIT, "lay._lay",
    "The C part of the lay package: lay.h for Python (use `import lay`).", -1,
    mod_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__lay(void);
PyMODINIT_FUNC PyInit__lay(void) {
  PyObject *m = PyModule_Create(&lay_module);
  if (!m) return NULL;
  Error = PyErr_NewExceptionWithDoc(
      "lay.Error",
      "A failure reported by liblay; str() is the CLI's text. Attributes: code, "
      "status, file, line, col, message, source_line.",
      NULL, NULL);
  if (!Error || PyModule_AddObjectRef(m, "Error", Error) < 0) goto fail;
  for (size_t i = 0; i < N_ERR_CLASSES; i++) {
    PyObject *bases = err_classes[i].builtin
                          ? PyTuple_Pack(2, Error, *err_classes[i].builtin)
                          : PyTuple_Pack(1, Error);
    if (!bases) goto fail;
    char doc[160];
    snprintf(doc, sizeof doc, "lay.Error for status %d, %s (lay.h's lay_status).",
             (int)err_classes[i].code, lay_status_str(err_classes[i].code));
    err_classes[i].cls = PyErr_NewExceptionWithDoc(err_classes[i].name, doc, bases, NULL);
    Py_DECREF(bases);
    if (!err_classes[i].cls ||
        PyModule_AddObjectRef(m, err_classes[i].name + 4, err_classes[i].cls) < 0)
      goto fail;
  }
  if (PyType_Ready(&CtxType) < 0 || PyType_Ready(&PlanType) < 0 ||
      vendor_add_types(m) < 0)
    goto fail;
  if (PyModule_AddObjectRef(m, "Context", (PyObject *)&CtxType) < 0 ||
      PyModule_AddObjectRef(m, "Plan", (PyObject *)&PlanType) < 0 ||
      PyModule_AddStringConstant(m, "__version__", lay_version_string()) < 0)
    goto fail;
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
