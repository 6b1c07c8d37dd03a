/*
** module.c: the module, everything compiled so far (see lang.h). Loads
** files and strings (lexer + parser), qualifies definitions by namespace,
** resolves imports (relative to the importing file, then LAY_PATH; each
** real path once; cycles are errors), keeps each file's source and AST
** alive, runs the load-time checks of the lowering, and instantiates
** references into IR. Loading is transactional: on error the module is
** rolled back to what it held before. lg_check_file loads a file the same
** way but reports every failing definition, not only the first.
**
** Dependency order in lang/: lexer.re, parse.y and build.c make the AST;
** module.c keeps it and calls the lowering (lower.h: lg_lower,
** lg_check_def), which gets the module's names through an lg_defs lookup
** (find_def below) and never calls back into module.c.
*/
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build.h"
#include "diag.h"
#include "lang.h"
#include "lower.h"

/* One loaded text (a file or a string). */
typedef struct lg_file {
  char *name;      /* the name used in positions */
  char *real;      /* its real path; NULL for a string */
  char *src;       /* a NUL-terminated copy of the text */
  size_t len;      /* its length */
  lg_arena *arena; /* the AST and the definitions */
  lg_ast ast;      /* the statements */
} lg_file;

/* A test block and the file it came from. */
typedef struct lg_tref {
  const lg_test *test;
  const lg_file *file;
} lg_tref;

/* A file being loaded, for import cycle detection. */
typedef struct lg_loading {
  const char *name; /* as it was named */
  const char *real; /* its real path */
} lg_loading;

struct lg_module {
  lg_file **files;    /* every text loaded, in order */
  size_t nfiles, capfiles;
  lg_def **defs;      /* every definition, in order */
  size_t ndefs, capdefs;
  lg_tref *tests;     /* every test block, in order */
  size_t ntests, captests;
  size_t *slots;      /* hash of qualified names: defs index + 1, or 0 */
  size_t nslots;      /* a power of two, > 2 * ndefs */
  char *path;         /* LAY_PATH, ':'-separated; NULL for none */
  lg_loading loading[LG_MAX_IMPORTS + 1]; /* the import chain */
  int nloading;
  /* lg_check_file: where the failing definitions of the file it checks go,
  ** and those reported so far (to report an error once). */
  lg_report_fn report;
  void *report_ud;
  lay_error *reported;
  size_t nreported, capreported;
};

static lay_status load_file(lg_module *m, const char *path, lay_error *err);

/* ---- Names ---------------------------------------------------------------- */

static size_t hash_str(const char *s) {
  size_t h = 5381;
  for (; *s; s++) h = h * 33 ^ (unsigned char)*s;
  return h;
}

static lg_def *find_exact(const lg_module *m, const char *qname) {
  if (!m->nslots) return NULL;
  for (size_t i = hash_str(qname) & (m->nslots - 1);; i = (i + 1) & (m->nslots - 1)) {
    size_t k = m->slots[i];
    if (!k) return NULL;
    if (!strcmp(m->defs[k - 1]->qname, qname)) return m->defs[k - 1];
  }
}

/* Rebuild the hash for the first ndefs definitions, with room for one more. */
static int rehash(lg_module *m) {
  size_t n = 16;
  while (n <= 2 * (m->ndefs + 1)) n *= 2;
  if (n != m->nslots) {
    size_t *s = calloc(n, sizeof *s);
    if (!s) return -1;
    free(m->slots);
    m->slots = s;
    m->nslots = n;
  } else {
    memset(m->slots, 0, n * sizeof *m->slots);
  }
  for (size_t k = 0; k < m->ndefs; k++) {
    size_t i = hash_str(m->defs[k]->qname) & (n - 1);
    while (m->slots[i]) i = (i + 1) & (n - 1);
    m->slots[i] = k + 1;
  }
  return 0;
}

const lg_def *lg_module_find(const lg_module *m, const char *name,
                             const char *ns) {
  if (!m || !name) return NULL;
  if (ns && *ns) {
    size_t a = strlen(ns), b = strlen(name);
    char buf[512], *q = a + b + 2 <= sizeof buf ? buf : malloc(a + b + 2);
    if (q) {
      memcpy(q, ns, a);
      q[a] = '.';
      memcpy(q + a + 1, name, b + 1);
      const lg_def *d = find_exact(m, q);
      if (q != buf) free(q);
      if (d) return d;
    }
  }
  return find_exact(m, name);
}

/* The lowering's view of the module (lower.h): it finds alias targets
** through this, never by calling module.c itself. */
static const lg_def *find_def(const void *ud, const char *name,
                              const char *ns) {
  return lg_module_find(ud, name, ns);
}

/* ---- The module ----------------------------------------------------------- */

lg_module *lg_module_new(void) { return calloc(1, sizeof(lg_module)); }

static void file_free(lg_file *f) {
  if (!f) return;
  free(f->name);
  free(f->real);
  free(f->src);
  lg_arena_free(f->arena);
  free(f);
}

void lg_module_free(lg_module *m) {
  if (!m) return;
  for (size_t i = 0; i < m->nfiles; i++) file_free(m->files[i]);
  free(m->files);
  free(m->defs);
  free(m->tests);
  free(m->slots);
  free(m->path);
  free(m->reported);
  free(m);
}

void lg_module_set_path(lg_module *m, const char *lay_path) {
  free(m->path);
  m->path = lay_path && *lay_path ? strdup(lay_path) : NULL;
}

size_t lg_module_count(const lg_module *m) { return m ? m->ndefs : 0; }

const char *lg_module_name(const lg_module *m, size_t i) {
  return m && i < m->ndefs ? m->defs[i]->qname : NULL;
}

size_t lg_module_test_count(const lg_module *m) { return m ? m->ntests : 0; }

const lg_test *lg_module_test(const lg_module *m, size_t i, const char **file,
                              const char **src, size_t *src_len) {
  if (!m || i >= m->ntests) return NULL;
  const lg_tref *t = &m->tests[i];
  if (file) *file = t->file->name;
  if (src) *src = t->file->src;
  if (src_len) *src_len = t->file->len;
  return t->test;
}

/* Make room for one more element in a malloc'd array. */
static int reserve(void **v, size_t n, size_t *cap, size_t size) {
  if (n < *cap) return 0;
  size_t ncap = *cap ? *cap * 2 : 8;
  void *nv = realloc(*v, ncap * size);
  if (!nv) return -1;
  *v = nv;
  *cap = ncap;
  return 0;
}

/* Undo everything loaded after the module held nfiles/ndefs/ntests. */
static void rollback(lg_module *m, size_t nfiles, size_t ndefs,
                     size_t ntests) {
  while (m->nfiles > nfiles) file_free(m->files[--m->nfiles]);
  m->ndefs = ndefs;
  m->ntests = ntests;
  if (rehash(m)) {
    /* Out of memory while shrinking: lookups fall back to nothing. */
    free(m->slots);
    m->slots = NULL;
    m->nslots = 0;
  }
}

/* ---- Loading ---------------------------------------------------------------- */

static lay_status nomem(lay_error *err) {
  lg_error_plain(err, LAY_E_NOMEM, "", "out of memory");
  return LAY_E_NOMEM;
}

/* Is path a readable regular file? */
static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/rel as a malloc'd string (dir "" means rel itself). */
static char *join(const char *dir, size_t dlen, const char *rel) {
  size_t r = strlen(rel);
  char *s = malloc(dlen + r + 2);
  if (!s) return NULL;
  memcpy(s, dir, dlen);
  size_t k = dlen;
  if (dlen && dir[dlen - 1] != '/') s[k++] = '/';
  memcpy(s + k, rel, r + 1);
  return s;
}

/* Find an imported file: relative to the importing file, then LAY_PATH.
** Returns a malloc'd path, or NULL (with *oom set when out of memory). */
static char *resolve(const lg_module *m, const lg_file *from,
                     const char *rel, int *oom) {
  *oom = 0;
  if (rel[0] == '/') {
    if (!is_file(rel)) return NULL;
    char *s = strdup(rel);
    if (!s) *oom = 1;
    return s;
  }
  const char *slash = strrchr(from->name, '/');
  size_t dlen = from->real && slash ? (size_t)(slash - from->name) + 1 : 0;
  char *s = join(from->name, dlen, rel);
  if (!s) goto oom;
  if (is_file(s)) return s;
  free(s);
  for (const char *d = m->path; d && *d;) {
    const char *e = strchr(d, ':');
    size_t n = e ? (size_t)(e - d) : strlen(d);
    if (n) {
      s = join(d, n, rel);
      if (!s) goto oom;
      if (is_file(s)) return s;
      free(s);
    }
    d = e ? e + 1 : d + n;
  }
  return NULL;
oom:
  *oom = 1;
  return NULL;
}

/* The file already loaded with this real path, or NULL. */
static const lg_file *loaded(const lg_module *m, const char *real) {
  for (size_t i = 0; i < m->nfiles; i++)
    if (m->files[i]->real && !strcmp(m->files[i]->real, real))
      return m->files[i];
  return NULL;
}

/* Error at a position of a loaded file. */
#define FERR(err, code, f, pos, ...) \
  lg_error_at(err, code, (f)->name, (f)->src, (f)->len, pos, __VA_ARGS__)

/* Load the file an import statement names. */
static lay_status do_import(lg_module *m, const lg_file *f, const lg_stmt *s,
                            lay_error *err) {
  int oom;
  const char *rel = s->u.name.s;
  if (s->u.name.n != strlen(rel)) {
    FERR(err, LAY_E_IO, f, s->pos, "cannot find '%s'", rel);
    return LAY_E_IO;
  }
  char *path = resolve(m, f, rel, &oom);
  if (!path) {
    if (oom) return nomem(err);
    FERR(err, LAY_E_IO, f, s->pos, "cannot find '%s'", rel);
    return LAY_E_IO;
  }
  char *real = realpath(path, NULL);
  if (!real) {
    FERR(err, LAY_E_IO, f, s->pos, "cannot open '%s': %s", path,
         strerror(errno));
    free(path);
    return LAY_E_IO;
  }
  for (int i = 0; i < m->nloading; i++) {
    if (strcmp(m->loading[i].real, real)) continue;
    char chain[400];
    size_t n = 0;
    for (int j = i; j < m->nloading && n < sizeof chain; j++)
      n += (size_t)snprintf(chain + n, sizeof chain - n, "%s -> ",
                            m->loading[j].name);
    if (n < sizeof chain) snprintf(chain + n, sizeof chain - n, "%s", path);
    FERR(err, LAY_E_NAME, f, s->pos, "import cycle: %s", chain);
    free(path);
    free(real);
    return LAY_E_NAME;
  }
  free(real);
  if (m->nloading >= LG_MAX_IMPORTS) {
    FERR(err, LAY_E_LIMIT, f, s->pos, "imports nested deeper than %d levels",
         LG_MAX_IMPORTS);
    free(path);
    return LAY_E_LIMIT;
  }
  lay_status st = load_file(m, path, err);
  free(path);
  return st;
}

/* Add a definition of file f under namespace ns. */
static lay_status define(lg_module *m, lg_file *f, const char *ns,
                         const lg_layout *l, const lg_transform *t,
                         lay_error *err) {
  const lg_str *name = l ? &l->name : &t->name;
  uint32_t pos = l ? l->pos : t->pos;
  lg_def *d = lg_arena_alloc(f->arena, sizeof *d);
  if (!d) return nomem(err);
  d->qname = *ns ? lg_arena_printf(f->arena, "%s.%s", ns, name->s)
                 : name->s;
  if (!d->qname) return nomem(err);
  d->ns = ns;
  d->layout = l;
  d->transform = t;
  d->file = f->name;
  d->src = f->src;
  d->src_len = f->len;
  const lg_def *old = find_exact(m, d->qname);
  if (old) {
    uint32_t opos = old->layout ? old->layout->pos : old->transform->pos;
    int line, col;
    lg_linecol(old->src, old->src_len, opos, &line, &col);
    FERR(err, LAY_E_NAME, f, pos, "'%s' is already defined at %s:%d:%d",
         d->qname, old->file, line, col);
    return LAY_E_NAME;
  }
  if (reserve((void **)&m->defs, m->ndefs, &m->capdefs, sizeof *m->defs))
    return nomem(err);
  if (2 * (m->ndefs + 1) >= m->nslots) {
    if (rehash(m)) return nomem(err);
  }
  m->defs[m->ndefs++] = d;
  size_t i = hash_str(d->qname) & (m->nslots - 1);
  while (m->slots[i]) i = (i + 1) & (m->nslots - 1);
  m->slots[i] = m->ndefs;
  return LAY_OK;
}

/* Report err through m->report unless an equal error was reported; -1
** when out of memory. */
static int report_once(lg_module *m, const lay_error *err) {
  for (size_t i = 0; i < m->nreported; i++) {
    const lay_error *r = &m->reported[i];
    if (r->line == err->line && r->col == err->col &&
        !strcmp(r->file, err->file) && !strcmp(r->message, err->message))
      return 0;
  }
  if (reserve((void **)&m->reported, m->nreported, &m->capreported,
              sizeof *m->reported))
    return -1;
  m->reported[m->nreported++] = *err;
  m->report(m->report_ud, err);
  return 0;
}

/* Parse and define one text; the caller rolls back on error. */
static lay_status load_body(lg_module *m, lg_file *f, lay_error *err) {
  lg_parse p;
  memset(&p, 0, sizeof p);
  p.a = f->arena;
  p.file = f->name;
  p.src = f->src;
  p.len = f->len;
  p.ast = &f->ast;
  p.err = err;
  if (lg_parse_file(&p)) return p.status;

  size_t first_def = m->ndefs;
  const char *ns = "";
  lay_status st = LAY_OK;
  for (int i = 0; i < f->ast.n && !st; i++) {
    const lg_stmt *s = &f->ast.stmts[i];
    switch (s->kind) {
    case LG_S_NAMESPACE: ns = s->u.name.s; break;
    case LG_S_IMPORT: st = do_import(m, f, s, err); break;
    case LG_S_LAYOUT: st = define(m, f, ns, s->u.layout, NULL, err); break;
    case LG_S_TRANSFORM:
      st = define(m, f, ns, NULL, s->u.transform, err);
      break;
    case LG_S_TEST:
      if (reserve((void **)&m->tests, m->ntests, &m->captests,
                  sizeof *m->tests))
        return nomem(err);
      m->tests[m->ntests].test = s->u.test;
      m->tests[m->ntests++].file = f;
      break;
    }
  }
  /* The static checks, once every name of the text is known. Definitions
  ** of imported files were checked when those were loaded. The file that
  ** lg_check_file checks goes on after a failing definition. */
  int all = m->report && m->nloading == 1;
  lg_defs defs = {find_def, m};
  for (size_t i = first_def; i < m->ndefs && (!st || all); i++) {
    if (m->defs[i]->src != f->src) continue;
    lay_error e;
    lay_status s2 = lg_check_def(&defs, m->defs[i], st ? &e : err);
    if (s2 && all && report_once(m, st ? &e : err)) return nomem(err);
    if (!st) st = s2;
  }
  return st;
}

/* Load a text under `name` (real: its real path, or NULL). */
static lay_status load_text(lg_module *m, const char *name, const char *real,
                            const char *src, size_t len, lay_error *err) {
  if (len > LG_MAX_SOURCE) {
    lg_error_plain(err, LAY_E_LIMIT, name, "source is larger than %u bytes",
                   LG_MAX_SOURCE);
    return LAY_E_LIMIT;
  }
  size_t nfiles = m->nfiles, ndefs = m->ndefs, ntests = m->ntests;
  lg_file *f = calloc(1, sizeof *f);
  if (!f || reserve((void **)&m->files, m->nfiles, &m->capfiles,
                    sizeof *m->files)) {
    free(f);
    return nomem(err);
  }
  m->files[m->nfiles++] = f;
  f->name = strdup(name ? name : "<string>");
  f->real = real ? strdup(real) : NULL;
  f->src = malloc(len + 1);
  f->arena = lg_arena_new();
  if (!f->name || (real && !f->real) || !f->src || !f->arena) {
    rollback(m, nfiles, ndefs, ntests);
    return nomem(err);
  }
  if (len) memcpy(f->src, src, len);
  f->src[len] = '\0';
  f->len = len;

  lay_status st = LAY_OK;
  if (real) {
    m->loading[m->nloading].name = f->name;
    m->loading[m->nloading++].real = f->real;
  }
  st = load_body(m, f, err);
  if (real) m->nloading--;
  if (st) rollback(m, nfiles, ndefs, ntests);
  return st;
}

lay_status lg_load_string(lg_module *m, const char *name, const char *src,
                          size_t len, lay_error *err) {
  if (!m || (!src && len)) {
    lg_error_plain(err, LAY_E_ARG, "", "no module or source");
    return LAY_E_ARG;
  }
  return load_text(m, name, NULL, src ? src : "", len, err);
}

/* Read a whole file into a malloc'd buffer. */
static lay_status read_file(const char *path, char **out, size_t *len,
                            lay_error *err) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    lg_error_plain(err, LAY_E_IO, "", "cannot open '%s': %s", path,
                   strerror(errno));
    return LAY_E_IO;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      if (cap > LG_MAX_SOURCE) break;
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t k = fread(buf + n, 1, cap - n, fp);
    n += k;
    if (k == 0) break;
  }
  int bad = ferror(fp);
  fclose(fp);
  if (!buf) return nomem(err);
  if (bad) {
    free(buf);
    lg_error_plain(err, LAY_E_IO, "", "cannot read '%s'", path);
    return LAY_E_IO;
  }
  if (n > LG_MAX_SOURCE) {
    free(buf);
    lg_error_plain(err, LAY_E_LIMIT, path, "source is larger than %u bytes",
                   LG_MAX_SOURCE);
    return LAY_E_LIMIT;
  }
  *out = buf;
  *len = n;
  return LAY_OK;
}

static lay_status load_file(lg_module *m, const char *path, lay_error *err) {
  if (!is_file(path)) {
    struct stat st;
    if (stat(path, &st) == 0)
      lg_error_plain(err, LAY_E_IO, "", "cannot open '%s': not a file", path);
    else
      lg_error_plain(err, LAY_E_IO, "", "cannot open '%s': %s", path,
                     strerror(errno));
    return LAY_E_IO;
  }
  char *real = realpath(path, NULL);
  if (!real) {
    lg_error_plain(err, LAY_E_IO, "", "cannot open '%s': %s", path,
                   strerror(errno));
    return LAY_E_IO;
  }
  if (loaded(m, real)) {
    free(real);
    return LAY_OK;
  }
  char *src;
  size_t len;
  lay_status st = read_file(path, &src, &len, err);
  if (!st) {
    st = load_text(m, path, real, src, len, err);
    free(src);
  }
  free(real);
  return st;
}

lay_status lg_load_file(lg_module *m, const char *path, lay_error *err) {
  if (!m || !path) {
    lg_error_plain(err, LAY_E_ARG, "", "no module or path");
    return LAY_E_ARG;
  }
  return load_file(m, path, err);
}

size_t lg_check_file(lg_module *m, const char *path, lg_report_fn report,
                     void *ud) {
  lay_error err;
  if (!m || !path || !report) {
    lg_error_plain(&err, LAY_E_ARG, "", "no module, path or report function");
    if (report) report(ud, &err);
    return 1;
  }
  m->report = report;
  m->report_ud = ud;
  m->nreported = 0;
  lay_status st = load_file(m, path, &err);
  /* A failure that stopped the load (syntax, import, a clash) is reported
  ** here; failing definitions were reported as they were checked. */
  if (st && !m->nreported) report(ud, &err);
  size_t n = st ? (m->nreported ? m->nreported : 1) : 0;
  m->report = NULL;
  m->report_ud = NULL;
  m->nreported = 0;
  return n;
}

/* ---- Instances ---------------------------------------------------------------- */

lay_status lg_instantiate(lg_module *m, const char *ref, lg_ir **out,
                          lay_error *err) {
  return lg_instantiate_for(m, ref, NULL, 0, LAY_DT_NONE, out, err);
}

lay_status lg_instantiate_for(lg_module *m, const char *ref,
                              const int64_t *shape, int rank, lay_dtype dtype,
                              lg_ir **out, lay_error *err) {
  if (out) *out = NULL;
  if (!m || !ref || !out) {
    lg_error_plain(err, LAY_E_ARG, "", "no module, format or output");
    return LAY_E_ARG;
  }
  lg_arena *a = lg_arena_new();
  if (!a) return nomem(err);
  lg_expr *e;
  lay_status st = lg_parse_ref(a, ref, &e, err);
  if (!st) {
    const lg_expr *name = e->kind == LG_X_CALL ? e->u.call.fn : e;
    const lg_def *d = lg_module_find(m, name->u.str.s, NULL);
    if (!d) {
      lg_error_at(err, LAY_E_NAME, "<format>", ref, strlen(ref), name->pos,
                  "unknown layout '%s'", name->u.str.s);
      st = LAY_E_NAME;
    } else {
      lg_defs defs = {find_def, m};
      st = lg_lower_for(&defs, d,
                        e->kind == LG_X_CALL ? &e->u.call.args : NULL, ref,
                        shape, rank, dtype, out, err);
    }
  }
  lg_arena_free(a);
  return st;
}
