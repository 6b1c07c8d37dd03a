/*
** langtest.c: the test driver of the front end (tests/lang).
**
**   langtest [-s] check FILE...       load each file into a fresh module;
**                                     print "ok" or the formatted error
**   langtest [-s] expect FILE         FILE starts with "# expect: TEXT",
**                                     maybe followed by lines "#    ..."
**                                     (the source and caret lines);
**                                     loading it must fail with an error
**                                     whose whole formatted text, minus
**                                     the "FILE:" prefix, is exactly that
**   langtest ast FILE [EXPECTED]      parse FILE and print its syntax tree,
**                                     one statement per line; with
**                                     EXPECTED, compare byte for byte
**   langtest [-s] golden FILE [IR]    print "== NAME" and the IR dump of
**                                     every layout/transform of FILE whose
**                                     parameters all have defaults, then of
**                                     every "#@ ir REF" comment line; with
**                                     IR, compare that output byte for byte
**   langtest [-s] checkall FILE [OUT]  every error lg_check_file reports
**                                     for FILE and their count; with OUT,
**                                     compare byte for byte
**
** -s loads the embedded stdlib into the module first.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "lang.h"
#include "lower.h"

/* The stdlib, embedded by stdlib/embed.cmake (gen/stdlib_data.c). */
typedef struct {
  const char *name;
  const char *text;
  size_t len;
} li_stdlib_file;
extern const li_stdlib_file li_stdlib_files[];

static int use_stdlib;

/* A growable output string. */
typedef struct out {
  char *s;
  size_t n, cap;
} out;

static void out_add(out *o, const char *s, size_t n) {
  if (o->n + n + 1 > o->cap) {
    size_t cap = (o->n + n + 1) * 2;
    char *ns = realloc(o->s, cap);
    if (!ns) {
      fprintf(stderr, "langtest: out of memory\n");
      exit(2);
    }
    o->s = ns;
    o->cap = cap;
  }
  memcpy(o->s + o->n, s, n);
  o->n += n;
  o->s[o->n] = '\0';
}

static void out_str(out *o, const char *s) { out_add(o, s, strlen(s)); }

/* The formatted error, with a final newline. */
static void out_error(out *o, const lay_error *e) {
  char buf[2048];
  lay_error_format(e, buf, sizeof buf);
  out_str(o, buf);
  out_str(o, "\n");
}

/* A fresh module, with the stdlib when -s was given. */
static lg_module *new_module(void) {
  lg_module *m = lg_module_new();
  if (!m) {
    fprintf(stderr, "langtest: out of memory\n");
    exit(2);
  }
  for (const li_stdlib_file *f = li_stdlib_files; use_stdlib && f->name; f++) {
    lay_error e;
    if (lg_load_string(m, f->name, f->text, f->len, &e)) {
      char buf[2048];
      lay_error_format(&e, buf, sizeof buf);
      fprintf(stderr, "langtest: the stdlib does not load:\n%s\n", buf);
      exit(2);
    }
  }
  return m;
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  out o = {0};
  char buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) out_add(&o, buf, k);
  fclose(f);
  if (!o.s) out_add(&o, "", 0);
  *len = o.n;
  return o.s;
}

static int cmd_check(int argc, char **argv) {
  int bad = 0;
  for (int i = 0; i < argc; i++) {
    lg_module *m = new_module();
    lay_error e;
    if (lg_load_file(m, argv[i], &e)) {
      out o = {0};
      out_error(&o, &e);
      fputs(o.s, stdout);
      free(o.s);
      bad = 1;
    } else {
      puts("ok");
    }
    lg_module_free(m);
  }
  return bad;
}

/* The expected error of an error test: the text after "# expect: " on
** the first line, then one line per following line that starts with "#"
** and four blanks (the source line and the caret line of the formatted
** error, each without its "#"). Returns a malloc'd string. */
static char *expected_error(const char *text) {
  static const char tag[] = "# expect: ";
  if (strncmp(text, tag, sizeof tag - 1)) return NULL;
  out o = {0};
  const char *line = text + sizeof tag - 1;
  for (int first = 1;; first = 0) {
    size_t n = strcspn(line, "\n");
    if (!first) out_str(&o, "\n");
    out_add(&o, line + (first ? 0 : 1), n - (first ? 0 : 1));
    if (!line[n] || strncmp(line + n + 1, "#    ", 5)) break;
    line += n + 1;
  }
  return o.s;
}

static int cmd_expect(const char *path) {
  size_t len;
  char *text = read_all(path, &len);
  if (!text) {
    fprintf(stderr, "%s: cannot read\n", path);
    return 1;
  }
  char *want = expected_error(text);
  if (!want) {
    fprintf(stderr, "%s: the first line must be '# expect: ...'\n", path);
    free(text);
    return 1;
  }

  lg_module *m = new_module();
  lay_error e;
  int rc = 1;
  if (!lg_load_file(m, path, &e)) {
    printf("%s: loaded without error, expected:\n%s\n", path, want);
  } else {
    /* The whole formatted error (message, source line, caret line),
    ** without the "FILE:" prefix of the message. */
    char buf[2048];
    lay_error_format(&e, buf, sizeof buf);
    printf("%s\n", buf);
    char *got = buf;
    size_t pl = strlen(path);
    if (!strncmp(got, path, pl) && got[pl] == ':') got += pl + 1;
    if (!strcmp(got, want)) {
      rc = 0;
    } else {
      printf("MISMATCH\nexpected:\n%s\ngot:\n%s\n", want, got);
    }
  }
  lg_module_free(m);
  free(want);
  free(text);
  return rc;
}

/* Print o, or compare it with the file `expected` (1 on a difference). */
static int compare_or_print(const out *o, const char *expected) {
  int rc = 0;
  if (!expected) {
    fputs(o->s, stdout);
  } else {
    size_t len;
    char *want = read_all(expected, &len);
    if (!want) {
      printf("%s: cannot read; the output was:\n%s", expected, o->s);
      rc = 1;
    } else if (len != o->n || memcmp(want, o->s, len)) {
      int line = 1;
      size_t i = 0;
      for (; i < len && i < o->n && want[i] == o->s[i]; i++)
        if (want[i] == '\n') line++;
      printf("%s: differs from the output at line %d; the output was:\n%s",
             expected, line, o->s);
      rc = 1;
    }
    free(want);
  }
  return rc;
}

/* checkall: every error lg_check_file reports, formatted, then a count. */
static void report_error(void *ud, const lay_error *e) { out_error(ud, e); }

static int cmd_checkall(const char *path, const char *expected) {
  out o = {0};
  out_add(&o, "", 0);
  lg_module *m = new_module();
  size_t n = lg_check_file(m, path, report_error, &o);
  char buf[64];
  snprintf(buf, sizeof buf, "%zu error%s\n", n, n == 1 ? "" : "s");
  out_str(&o, buf);
  lg_module_free(m);
  int rc = compare_or_print(&o, expected);
  free(o.s);
  return rc;
}

/* ---- The syntax tree as text --------------------------------------------- */

static void put_expr(out *o, const lg_expr *e);

static void put_list(out *o, const lg_list *l) {
  for (int i = 0; i < l->n; i++) {
    if (i) out_str(o, " ");
    put_expr(o, l->v[i]);
  }
}

/* printf into o (short texts: names and numbers). */
static void put_fmt(out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put_fmt(out *o, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  out_str(o, buf);
}

static void put_string(out *o, const lg_str *s) {
  out_str(o, "\"");
  for (size_t i = 0; i < s->n; i++) {
    unsigned char c = (unsigned char)s->s[i];
    if (c == '"' || c == '\\') put_fmt(o, "\\%c", c);
    else if (c == '\n') out_str(o, "\\n");
    else if (c < 0x20 || c >= 0x7f) put_fmt(o, "\\x%02x", c);
    else out_add(o, (const char *)&c, 1);
  }
  out_str(o, "\"");
}

static void put_expr(out *o, const lg_expr *e) {
  static const char *ops[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|",
                              "^", "neg", "~"};
  if (!e) {
    out_str(o, "_");
    return;
  }
  switch (e->kind) {
  case LG_X_INT: put_fmt(o, "%lld", (long long)e->u.i); break;
  case LG_X_FLOAT: put_fmt(o, "%.17g", e->u.f); break;
  case LG_X_STR: put_string(o, &e->u.str); break;
  case LG_X_NAME: out_str(o, e->u.str.s); break;
  case LG_X_LIST:
    out_str(o, "[");
    put_list(o, &e->u.list);
    out_str(o, "]");
    break;
  case LG_X_UNARY:
  case LG_X_BINARY:
    put_fmt(o, "(%s ", ops[e->u.op.op]);
    put_expr(o, e->u.op.a);
    if (e->kind == LG_X_BINARY) {
      out_str(o, " ");
      put_expr(o, e->u.op.b);
    }
    out_str(o, ")");
    break;
  case LG_X_CALL:
    out_str(o, "(call ");
    put_expr(o, e->u.call.fn);
    if (e->u.call.args.n) out_str(o, " ");
    put_list(o, &e->u.call.args);
    out_str(o, ")");
    break;
  case LG_X_SLICE:
    out_str(o, "(slice ");
    put_expr(o, e->u.slice.base);
    out_str(o, " ");
    put_expr(o, e->u.slice.lo);
    out_str(o, " ");
    put_expr(o, e->u.slice.hi);
    out_str(o, ")");
    break;
  case LG_X_NAMED:
    put_fmt(o, "(= %s ", e->u.named.name.s);
    put_expr(o, e->u.named.value);
    out_str(o, ")");
    break;
  case LG_X_CHUNKED:
    out_str(o, e->u.chunked.flat ? "(flat" : "(chunked");
    for (int i = 0; i < e->u.chunked.n; i++)
      put_fmt(o, " %lld", (long long)e->u.chunked.v[i]);
    out_str(o, ")");
    break;
  }
  put_fmt(o, "@%u", (unsigned)e->pos);
}

static void put_layout(out *o, const lg_layout *l) {
  put_fmt(o, "layout %s@%u", l->name.s, (unsigned)l->pos);
  if (l->has_params) {
    out_str(o, " params(");
    put_list(o, &l->params);
    out_str(o, ")");
  }
  if (l->dims.n) {
    out_str(o, " dims(");
    put_list(o, &l->dims);
    out_str(o, ")");
  }
  if (l->dtype) {
    out_str(o, " type ");
    put_expr(o, l->dtype);
  }
  if (l->alias) {
    out_str(o, " alias ");
    put_expr(o, l->alias);
  }
  if (l->chunked) {
    out_str(o, " order ");
    put_expr(o, l->chunked);
  }
  if (l->items) {
    put_fmt(o, " order@%u [", (unsigned)l->order_pos);
    for (int i = 0; i < l->n_items; i++) {
      if (i) out_str(o, ", ");
      put_expr(o, l->items[i].e);
      if (l->items[i].stride) {
        out_str(o, " @ ");
        put_expr(o, l->items[i].stride);
        if (l->items[i].stride_bytes) out_str(o, " bytes");
      }
      if (l->items[i].align) {
        out_str(o, " align ");
        put_expr(o, l->items[i].align);
        if (l->items[i].align_bytes) out_str(o, " bytes");
      }
    }
    out_str(o, "]");
  }
  for (int i = 0; i < l->n_clauses; i++) {
    const lg_clause *c = &l->clauses[i];
    static const char *kinds[] = {"where", "set", "call"};
    put_fmt(o, "\n  %s@%u %s ", kinds[c->kind], (unsigned)c->pos, c->name.s);
    put_expr(o, c->value);
  }
}

static void put_test(out *o, const lg_test *t) {
  static const char *kinds[] = {"use", "load", "where", "at", "order",
                                "pack", "unpack", "roundtrip", "error"};
  out_str(o, "test ");
  put_string(o, &t->name);
  put_fmt(o, "@%u", (unsigned)t->pos);
  for (int i = 0; i < t->n_stmts; i++) {
    const lg_tstmt *s = &t->stmts[i];
    put_fmt(o, "\n  %s@%u", kinds[s->kind], (unsigned)s->pos);
    const lg_expr *v[3] = {s->a, s->b, s->c};
    for (int j = 0; j < 3; j++) {
      out_str(o, " ");
      put_expr(o, v[j]);
    }
  }
}

static int cmd_ast(const char *path, const char *expected) {
  size_t len;
  char *src = read_all(path, &len);
  if (!src) {
    fprintf(stderr, "%s: cannot read\n", path);
    return 1;
  }
  out o = {0};
  out_add(&o, "", 0);
  lg_ast ast = {0};
  lay_error e;
  lg_parse p;
  memset(&p, 0, sizeof p);
  p.a = lg_arena_new();
  p.file = path;
  p.src = src;
  p.len = len;
  p.ast = &ast;
  p.err = &e;
  if (lg_parse_file(&p)) {
    out_error(&o, &e);
  } else {
    for (int i = 0; i < ast.n; i++) {
      const lg_stmt *s = &ast.stmts[i];
      switch (s->kind) {
      case LG_S_NAMESPACE: put_fmt(&o, "namespace %s", s->u.name.s); break;
      case LG_S_IMPORT:
        out_str(&o, "import ");
        put_string(&o, &s->u.name);
        break;
      case LG_S_LAYOUT: put_layout(&o, s->u.layout); break;
      case LG_S_TRANSFORM: {
        const lg_transform *t = s->u.transform;
        put_fmt(&o, "transform %s@%u input %s type ", t->name.s,
                (unsigned)t->pos, t->input.s);
        put_expr(&o, t->dtype);
        out_str(&o, " shape(");
        put_list(&o, &t->shape);
        out_str(&o, ")");
        for (int j = 0; j < t->ops.n; j++) {
          out_str(&o, "\n  | ");
          put_expr(&o, t->ops.v[j]);
        }
        break;
      }
      case LG_S_TEST: put_test(&o, s->u.test); break;
      }
      out_str(&o, "\n");
    }
  }
  lg_arena_free(p.a);
  free(src);
  int rc = compare_or_print(&o, expected);
  free(o.s);
  return rc;
}

/* "== ref" and the dump of lg_instantiate(ref), or the error. */
static void golden_one(out *o, lg_module *m, const char *ref) {
  out_str(o, "== ");
  out_str(o, ref);
  out_str(o, "\n");
  lg_ir *ir = NULL;
  lay_error e;
  if (lg_instantiate(m, ref, &ir, &e)) {
    out_error(o, &e);
    return;
  }
  char *d = lg_ir_dump(ir);
  if (!d) {
    out_str(o, "(lg_ir_dump failed)\n");
  } else {
    out_str(o, d);
    if (!*d || d[strlen(d) - 1] != '\n') out_str(o, "\n");
  }
  free(d);
  lg_ir_free(ir);
}

/* Do all parameters of d have defaults? */
static int all_defaults(const lg_def *d) {
  if (!d->layout) return 1;
  for (int i = 0; i < d->layout->params.n; i++)
    if (d->layout->params.v[i]->kind != LG_X_NAMED) return 0;
  return 1;
}

static int cmd_golden(const char *path, const char *expected) {
  out o = {0};
  out_add(&o, "", 0);
  lg_module *m = new_module();
  lay_error e;
  if (lg_load_file(m, path, &e)) {
    out_error(&o, &e);
  } else {
    for (size_t i = 0; i < lg_module_count(m); i++) {
      const lg_def *d = lg_module_find(m, lg_module_name(m, i), NULL);
      if (d && !strcmp(d->file, path) && all_defaults(d))
        golden_one(&o, m, d->qname);
    }
    size_t len;
    char *text = read_all(path, &len);
    for (char *line = text; line && *line;) {
      char *nl = strchr(line, '\n');
      if (nl) *nl = '\0';
      if (!strncmp(line, "#@ ir ", 6)) {
        char *ref = line + 6;
        size_t n = strlen(ref);
        while (n && (ref[n - 1] == ' ' || ref[n - 1] == '\r')) ref[--n] = '\0';
        golden_one(&o, m, ref);
      }
      line = nl ? nl + 1 : line + strlen(line);
    }
    free(text);
  }
  lg_module_free(m);

  int rc = compare_or_print(&o, expected);
  free(o.s);
  return rc;
}

int main(int argc, char **argv) {
  int i = 1;
  if (i < argc && !strcmp(argv[i], "-s")) {
    use_stdlib = 1;
    i++;
  }
  if (i + 1 < argc && !strcmp(argv[i], "check"))
    return cmd_check(argc - i - 1, argv + i + 1);
  if (i + 2 == argc && !strcmp(argv[i], "expect"))
    return cmd_expect(argv[i + 1]);
  if ((i + 2 == argc || i + 3 == argc) && !strcmp(argv[i], "ast"))
    return cmd_ast(argv[i + 1], i + 3 == argc ? argv[i + 2] : NULL);
  if ((i + 2 == argc || i + 3 == argc) && !strcmp(argv[i], "golden"))
    return cmd_golden(argv[i + 1], i + 3 == argc ? argv[i + 2] : NULL);
  if ((i + 2 == argc || i + 3 == argc) && !strcmp(argv[i], "checkall"))
    return cmd_checkall(argv[i + 1], i + 3 == argc ? argv[i + 2] : NULL);
  fprintf(stderr,
          "usage: langtest [-s] check FILE...\n"
          "       langtest [-s] expect FILE\n"
          "       langtest ast FILE [EXPECTED.ast]\n"
          "       langtest [-s] golden FILE [EXPECTED.ir]\n"
          "       langtest [-s] checkall FILE [EXPECTED]\n");
  return 2;
}
