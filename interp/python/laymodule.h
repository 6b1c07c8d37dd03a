/*
** laymodule.h: what the two C files of the extension lay._lay share:
** laymodule.c (errors, dtypes, Context, Plan, the module) and layvendor.c
** (the vendor imports _Hsi, _Tidl, _Kneron). Internal to the extension.
*/
#ifndef LAYMODULE_H
#define LAYMODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "lay.h"

/* Raise the lay.Error subclass of e->code (str() is the CLI's text; the
** attributes code, status, file, line, col, message, source_line).
** Returns NULL. */
PyObject *raise_lay(const lay_error *e);
/* A tuple of n ints. */
PyObject *get_ints(const int64_t *v, int n);
/* The lay_ctx of a lay.Context; NULL with a TypeError for anything else. */
lay_ctx *ctx_of(PyObject *o);
/* Ready the vendor types and add them to the module; -1 on failure. */
int vendor_add_types(PyObject *m);

#endif
