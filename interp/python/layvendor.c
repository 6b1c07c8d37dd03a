/*
** layvendor.c: the vendor imports of lay._lay, each a thin object over one
** parsed file of lay.h: _Hsi (AMD flexmlrt-hsi.json), _Tidl (TI TIDL
** io_1.bin) and _Kneron (one Kneron kp.TensorDescriptor). They give the
** file's facts as dicts and load its layouts into a Context;
** lay/__init__.py wraps them as HsiReport, TidlModel and KneronTensor.
** Names from a file are decoded as UTF-8 with U+FFFD for bad bytes.
*/
#include "laymodule.h"

#include <string.h>

/* None for NULL, else the text (bad UTF-8 replaced). */
static PyObject *opt_str(const char *s) {
  if (!s) Py_RETURN_NONE;
  return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* The path argument of a constructor as bytes (a new reference). */
static PyObject *path_arg(PyObject *args, PyObject *kw, const char *fmt) {
  static char *kwlist[] = {"path", NULL};
  PyObject *path, *bytes;
  if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &path)) return NULL;
  if (!PyUnicode_FSConverter(path, &bytes)) return NULL;
  return bytes;
}

/* ---- HsiReport: a parsed flexmlrt-hsi.json, for its entries' facts -------- */
typedef struct {
  PyObject_HEAD
  lay_hsi *h;
} HsiObject;

static int hsi_init(HsiObject *self, PyObject *args, PyObject *kw) {
  PyObject *bytes = path_arg(args, kw, "O:_Hsi");
  if (!bytes) return -1;
  lay_error e;
  lay_hsi_free(self->h);
  self->h = NULL;
  lay_status st = lay_hsi_read(PyBytes_AS_STRING(bytes), &self->h, &e);
  Py_DECREF(bytes);
  if (st != LAY_OK) {
    raise_lay(&e);
    return -1;
  }
  return 0;
}

static void hsi_dealloc(HsiObject *self) {
  lay_hsi_free(self->h);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *hsi_count(HsiObject *self, PyObject *arg) {
  int output = PyObject_IsTrue(arg);
  if (output < 0) return NULL;
  return PyLong_FromLong(lay_hsi_count(self->h, output));
}

static PyObject *hsi_info(HsiObject *self, PyObject *args) {
  int output, index;
  if (!PyArg_ParseTuple(args, "pi:info", &output, &index)) return NULL;
  if (index < 0 || index >= lay_hsi_count(self->h, output))
    return PyErr_Format(PyExc_IndexError, "%s[%d]: the report has %d", output ?
                        "outputs" : "inputs", index, lay_hsi_count(self->h, output));
  lay_hsi_info in;
  lay_hsi_info_get(self->h, output, index, &in);
  const lay_hsi_issue *is = lay_hsi_entry_issue(self->h, output, index);
  return Py_BuildValue("{s:N,s:N,s:N,s:N,s:s,s:s,s:N,s:i,s:N}",
                       "name", opt_str(in.name), "tensor_name", opt_str(in.tensor_name),
                       "def", opt_str(in.def), "cpu_shape", get_ints(in.cpu_shape, in.rank),
                       "cpu_dtype", lay_dtype_name(in.cpu_dtype),
                       "hw_dtype", lay_dtype_name(in.hw_dtype),
                       "hw_shape", get_ints(in.hw_shape, in.hw_rank),
                       "has_chain", in.has_chain, "issue", opt_str(is ? is->text : NULL));
}

static PyMethodDef hsi_methods[] = {
    {"count", (PyCFunction)hsi_count, METH_O, "count(output) -> int"},
    {"info", (PyCFunction)hsi_info, METH_VARARGS, "info(output, index) -> dict"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject HsiType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lay._lay._Hsi",
    .tp_basicsize = sizeof(HsiObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "_Hsi(path): a parsed flexmlrt-hsi.json (use lay.HsiReport)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)hsi_init,
    .tp_dealloc = (destructor)hsi_dealloc,
    .tp_methods = hsi_methods,
};

/* ---- _Tidl: a parsed TIDL io_1.bin ------------------------------------------ */
typedef struct {
  PyObject_HEAD
  lay_tidl_io *t;
} TidlObject;

static int tidl_init(TidlObject *self, PyObject *args, PyObject *kw) {
  PyObject *bytes = path_arg(args, kw, "O:_Tidl");
  if (!bytes) return -1;
  lay_error e;
  lay_tidl_free(self->t);
  self->t = NULL;
  lay_status st = lay_tidl_read(PyBytes_AS_STRING(bytes), &self->t, &e);
  Py_DECREF(bytes);
  if (st != LAY_OK) {
    raise_lay(&e);
    return -1;
  }
  return 0;
}

static void tidl_dealloc(TidlObject *self) {
  lay_tidl_free(self->t);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *tidl_version(TidlObject *self, PyObject *unused) {
  (void)unused;
  return opt_str(lay_tidl_version(self->t));
}

static PyObject *tidl_count(TidlObject *self, PyObject *arg) {
  int output = PyObject_IsTrue(arg);
  if (output < 0) return NULL;
  return PyLong_FromLong(lay_tidl_count(self->t, output));
}

static PyObject *tidl_info(TidlObject *self, PyObject *args) {
  int output, index;
  if (!PyArg_ParseTuple(args, "pi:info", &output, &index)) return NULL;
  lay_tidl_info in;
  if (lay_tidl_info_get(self->t, output, index, &in) != 0)
    return PyErr_Format(PyExc_IndexError, "%s[%d]: the file has %d", output ?
                        "outputs" : "inputs", index, lay_tidl_count(self->t, output));
  const lay_tidl_issue *is = lay_tidl_tensor_issue(self->t, output, index);
  return Py_BuildValue("{s:N,s:N,s:N,s:N,s:s,s:s,s:O,s:K,s:N}",
                       "name", opt_str(in.name), "def", opt_str(in.def),
                       "spec", opt_str(in.spec), "cpu_shape", get_ints(in.cpu_shape, in.rank),
                       "cpu_dtype", lay_dtype_name(in.cpu_dtype),
                       "hw_dtype", lay_dtype_name(in.hw_dtype),
                       "nhwc", in.nhwc ? Py_True : Py_False,
                       "buffer_bytes", (unsigned long long)in.buffer_bytes,
                       "issue", opt_str(is ? is->text : NULL));
}

/* Every issue in file order: [(output, index, fatal, text), ...]. */
static PyObject *tidl_issues(TidlObject *self, PyObject *unused) {
  (void)unused;
  int n = lay_tidl_issue_count(self->t);
  PyObject *l = PyList_New(n);
  if (!l) return NULL;
  for (int i = 0; i < n; i++) {
    const lay_tidl_issue *is = lay_tidl_issue_get(self->t, i);
    PyObject *v = Py_BuildValue("(iiON)", is->output, is->index,
                                is->fatal ? Py_True : Py_False, opt_str(is->text));
    if (!v) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, v);
  }
  return l;
}

static PyObject *tidl_spec(TidlObject *self, PyObject *args) {
  const char *ns;
  if (!PyArg_ParseTuple(args, "s:spec", &ns)) return NULL;
  char *text = lay_tidl_spec(self->t, ns);
  if (!text) return PyErr_NoMemory();
  PyObject *s = opt_str(text);
  lay_free(text);
  return s;
}

static PyObject *tidl_load(TidlObject *self, PyObject *args) {
  PyObject *ctx;
  const char *ns;
  if (!PyArg_ParseTuple(args, "Os:load", &ctx, &ns)) return NULL;
  lay_ctx *c = ctx_of(ctx);
  if (!c) return NULL;
  lay_error e;
  if (lay_tidl_load(self->t, c, ns, &e) != LAY_OK) return raise_lay(&e);
  Py_RETURN_NONE;
}

static PyMethodDef tidl_methods[] = {
    {"version", (PyCFunction)tidl_version, METH_NOARGS, "version() -> str"},
    {"count", (PyCFunction)tidl_count, METH_O, "count(output) -> int"},
    {"info", (PyCFunction)tidl_info, METH_VARARGS, "info(output, index) -> dict"},
    {"issues", (PyCFunction)tidl_issues, METH_NOARGS,
     "issues() -> [(output, index, fatal, text)]"},
    {"spec", (PyCFunction)tidl_spec, METH_VARARGS, "spec(namespace) -> str"},
    {"load", (PyCFunction)tidl_load, METH_VARARGS, "load(ctx, namespace)"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject TidlType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lay._lay._Tidl",
    .tp_basicsize = sizeof(TidlObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "_Tidl(path): a parsed TIDL io_1.bin (use lay.TidlModel)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)tidl_init,
    .tp_dealloc = (destructor)tidl_dealloc,
    .tp_methods = tidl_methods,
};

/* ---- _Kneron: one parsed kp.TensorDescriptor ---------------------------------- */
typedef struct {
  PyObject_HEAD
  lay_kneron *k;
} KneronObject;

static int kneron_init(KneronObject *self, PyObject *args, PyObject *kw) {
  PyObject *bytes = path_arg(args, kw, "O:_Kneron");
  if (!bytes) return -1;
  lay_error e;
  lay_kneron_free(self->k);
  self->k = NULL;
  lay_status st = lay_kneron_read(PyBytes_AS_STRING(bytes), &self->k, &e);
  Py_DECREF(bytes);
  if (st != LAY_OK) {
    raise_lay(&e);
    return -1;
  }
  return 0;
}

static void kneron_dealloc(KneronObject *self) {
  lay_kneron_free(self->k);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *kneron_info(KneronObject *self, PyObject *unused) {
  (void)unused;
  lay_kneron_info in;
  lay_kneron_info_get(self->k, &in);
  return Py_BuildValue("{s:N,s:L,s:N,s:i,s:N,s:N,s:N,s:s,s:s,s:K,s:i,s:i}",
                       "name", opt_str(in.name), "index", (long long)in.index,
                       "data_layout", opt_str(in.data_layout),
                       "shape_version", in.shape_version, "ref", opt_str(in.ref),
                       "fixed_ref", opt_str(in.fixed_ref),
                       "cpu_shape", get_ints(in.shape, in.rank),
                       "dtype", lay_dtype_name(in.dtype),
                       "fixed_dtype", lay_dtype_name(in.fixed_dtype),
                       "npu_bytes", (unsigned long long)in.npu_bytes,
                       "nscales", in.nscales, "quantized_axis", in.quantized_axis);
}

static PyObject *kneron_spec(KneronObject *self, PyObject *args) {
  const char *ns;
  if (!PyArg_ParseTuple(args, "s:spec", &ns)) return NULL;
  char *text = lay_kneron_spec(self->k, ns);
  if (!text) return PyErr_NoMemory();
  PyObject *s = opt_str(text);
  lay_free(text);
  return s;
}

static PyObject *kneron_load(KneronObject *self, PyObject *args) {
  PyObject *ctx;
  const char *ns;
  if (!PyArg_ParseTuple(args, "Os:load", &ctx, &ns)) return NULL;
  lay_ctx *c = ctx_of(ctx);
  if (!c) return NULL;
  lay_error e;
  if (lay_kneron_load(self->k, c, ns, &e) != LAY_OK) return raise_lay(&e);
  Py_RETURN_NONE;
}

static PyMethodDef kneron_methods[] = {
    {"info", (PyCFunction)kneron_info, METH_NOARGS, "info() -> dict"},
    {"spec", (PyCFunction)kneron_spec, METH_VARARGS, "spec(namespace) -> str"},
    {"load", (PyCFunction)kneron_load, METH_VARARGS, "load(ctx, namespace)"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject KneronType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lay._lay._Kneron",
    .tp_basicsize = sizeof(KneronObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "_Kneron(path): a parsed kp.TensorDescriptor (use lay.KneronTensor)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)kneron_init,
    .tp_dealloc = (destructor)kneron_dealloc,
    .tp_methods = kneron_methods,
};

int vendor_add_types(PyObject *m) {
  static const struct {
    const char *name;
    PyTypeObject *type;
  } types[] = {{"_Hsi", &HsiType}, {"_Tidl", &TidlType}, {"_Kneron", &KneronType}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (PyType_Ready(types[i].type) < 0 ||
        PyModule_AddObjectRef(m, types[i].name, (PyObject *)types[i].type) < 0)
      return -1;
  return 0;
}
