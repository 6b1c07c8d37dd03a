/*
** robust.c: the front end against hostile input. Every input must give
** LAY_OK or a clean error (a valid code, a message), never a crash, hang
** or leak (the sanitizer build runs this under ASan). Also checks exact
** messages that are awkward to keep in .lay files (NUL bytes), the
** error formatter, transactional loading, file loading and LAY_PATH.
** Runs in tests/lang/errors (for its inc/ files).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "lang.h"
#include "lower.h"

static int failures;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      failures++;                                          \
      fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
    }                                                      \
  } while (0)

/* A deterministic pseudo-random generator (xorshift64*). */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1du;
}

/* Load src into a fresh module; check the outcome is clean. Returns the
** status and, when err_line is not NULL, the first formatted line. */
static lay_status load(const char *src, size_t len, char *line, size_t cap) {
  lg_module *m = lg_module_new();
  lay_error e;
  memset(&e, 0x5a, sizeof e); /* the loader must fill every field it uses */
  lay_status st = lg_load_string(m, "<r>", src, len, &e);
  if (st) {
    CHECK(st > LAY_OK && st <= LAY_E_INTERNAL, "bad status %d", (int)st);
    CHECK(e.code == st, "code %d != status %d", (int)e.code, (int)st);
    CHECK(memchr(e.message, 0, sizeof e.message) && e.message[0],
          "empty or unterminated message");
    CHECK(memchr(e.source_line, 0, sizeof e.source_line),
          "unterminated source line");
    char buf[1024];
    size_t need = lay_error_format(&e, buf, sizeof buf);
    CHECK(strlen(buf) == (need < sizeof buf ? need : sizeof buf - 1),
          "lay_error_format length");
    if (line) {
      buf[strcspn(buf, "\n")] = '\0';
      snprintf(line, cap, "%s", buf);
    }
  } else if (line) {
    snprintf(line, cap, "ok");
  }
  lg_module_free(m);
  return st;
}

/* Exact first lines for inputs that cannot live in a .lay file. */
static void exact(void) {
  static const struct {
    const char *src;
    size_t len;
    const char *want;
  } cases[] = {
    {"layout x\0 (a) -> [a]", 20, "<r>:1:9: error: unexpected NUL byte"},
    {"layout x (a) -> [a]\0", 20, "<r>:1:20: error: unexpected NUL byte"},
    {"\0", 1, "<r>:1:1: error: unexpected NUL byte"},
    {"test \"a\0b\" {}", 13, "<r>:1:8: error: unexpected NUL byte"},
    {"# x\n/* a\0 */", 12, "<r>:2:5: error: unexpected NUL byte"},
    {"# ab\0cd\nlayout", 14, "<r>:1:5: error: unexpected NUL byte"},
    {"", 0, "ok"},
    {"   \n\t\r\n", 7, "ok"},
    {"# a\n// b\n/* c\n d */ /**/ /***/ #", 32, "ok"},
    {"layout", 6, "<r>:1:7: error: unexpected end of input"},
    {"layout x (a) -> [a] \x7f", 21,
     "<r>:1:21: error: unexpected character '\\x7f'"},
    {"layout x (a) -> [a]\r\nlayout y (a) -> [a b]\r\n", 43,
     "<r>:2:20: error: unexpected 'b'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char line[512];
    load(cases[i].src, cases[i].len, line, sizeof line);
    CHECK(!strcmp(line, cases[i].want), "case %zu: got '%s', want '%s'", i,
          line, cases[i].want);
  }
}

/* lay_error_format and lay_status_str. */
static void format(void) {
  lay_error e;
  memset(&e, 0, sizeof e);
  e.code = LAY_E_NAME;
  snprintf(e.file, sizeof e.file, "file.lay");
  e.line = 3;
  e.col = 18;
  snprintf(e.message, sizeof e.message, "unknown dimension 'b'");
  snprintf(e.source_line, sizeof e.source_line, "layout x (a) -> [b]");
  char buf[512];
  const char *want = "file.lay:3:18: error: unknown dimension 'b'\n"
                     "    layout x (a) -> [b]\n"
                     "                     ^";
  size_t n = lay_error_format(&e, buf, sizeof buf);
  CHECK(!strcmp(buf, want) && n == strlen(want), "format: got\n%s", buf);
  /* Truncation: NUL-terminated, the needed length returned. */
  char small[10];
  CHECK(lay_error_format(&e, small, sizeof small) == strlen(want) &&
            !strcmp(small, "file.lay:"),
        "truncated format: '%s'", small);
  CHECK(lay_error_format(&e, NULL, 0) == strlen(want), "format cap 0");
  /* Tabs stay tabs in the caret line. */
  snprintf(e.source_line, sizeof e.source_line, "\tlayout\tx");
  e.col = 9;
  lay_error_format(&e, buf, sizeof buf);
  CHECK(!strcmp(strchr(strchr(buf, '\n') + 1, '\n') + 1, "    \t      \t^"),
        "tab caret: '%s'", buf);
  /* No position. */
  e.line = e.col = 0;
  lay_error_format(&e, buf, sizeof buf);
  CHECK(!strcmp(buf, "file.lay: error: unknown dimension 'b'"), "'%s'", buf);
  e.file[0] = '\0';
  lay_error_format(&e, buf, sizeof buf);
  CHECK(!strcmp(buf, "error: unknown dimension 'b'"), "'%s'", buf);
  for (int s = LAY_OK; s <= LAY_E_INTERNAL; s++) {
    const char *t = lay_status_str((lay_status)s);
    CHECK(t && *t, "status %d has no name", s);
    for (int r = LAY_OK; r < s; r++)
      CHECK(strcmp(t, lay_status_str((lay_status)r)), "status %d = %d", s, r);
  }
  CHECK(!strcmp(lay_status_str(LAY_E_SYNTAX), "syntax error"), "syntax");
}

/* A failing load leaves the module as it was. */
static void transactional(void) {
  lg_module *m = lg_module_new();
  lay_error e;
  const char *a = "layout a (x) -> [x]\ntest \"t\" { roundtrip }";
  const char *bad1 = "layout b (x) -> [x]\ntest \"u\" { roundtrip }\n"
                     "layout a (x) -> [x]";
  const char *bad2 = "layout b (x) -> [x]\nlayout c (x) -> [x";
  const char *b = "namespace n\nlayout b (x) -> [x]";
  CHECK(!lg_load_string(m, "a", a, strlen(a), &e), "load a");
  CHECK(lg_load_string(m, "bad1", bad1, strlen(bad1), &e) == LAY_E_NAME,
        "bad1");
  CHECK(!strcmp(e.message, "'a' is already defined at a:1:8"), "'%s'",
        e.message);
  CHECK(lg_load_string(m, "bad2", bad2, strlen(bad2), &e) == LAY_E_SYNTAX,
        "bad2");
  CHECK(lg_module_count(m) == 1 && lg_module_test_count(m) == 1,
        "rollback: %zu defs, %zu tests", lg_module_count(m),
        lg_module_test_count(m));
  CHECK(!lg_load_string(m, "b", b, strlen(b), &e), "load b");
  CHECK(lg_module_count(m) == 2 && !strcmp(lg_module_name(m, 1), "n.b"),
        "after b");
  CHECK(lg_module_name(m, 2) == NULL, "name out of range");
  CHECK(lg_module_find(m, "b", "n") && lg_module_find(m, "n.b", "") &&
            lg_module_find(m, "a", "n") && !lg_module_find(m, "b", NULL),
        "find");
  const char *file, *src;
  size_t len;
  const lg_test *t = lg_module_test(m, 0, &file, &src, &len);
  CHECK(t && !strcmp(t->name.s, "t") && !strcmp(file, "a") &&
            len == strlen(a) && !memcmp(src, a, len),
        "test 0");
  /* Many definitions: the name table grows. */
  char name[64];
  for (int i = 0; i < 2000; i++) {
    int n = snprintf(name, sizeof name, "layout l%d (x) -> [x]", i);
    CHECK(!lg_load_string(m, "many", name, (size_t)n, &e), "many %d", i);
  }
  CHECK(lg_module_count(m) == 2002 && lg_module_find(m, "l1999", NULL),
        "many");
  lg_module_free(m);
}

/* Files, imports and LAY_PATH (run in tests/lang/errors). */
static void files(void) {
  lg_module *m = lg_module_new();
  lay_error e;
  CHECK(lg_load_file(m, "inc", &e) == LAY_E_IO, "a directory");
  CHECK(lg_load_file(m, "no_such_file.lay", &e) == LAY_E_IO, "missing");
  CHECK(!lg_load_file(m, "inc/defs.lay", &e), "defs");
  CHECK(!lg_load_file(m, "./inc/../inc/defs.lay", &e), "defs again");
  CHECK(lg_module_count(m) == 1, "loaded once: %zu", lg_module_count(m));
  lg_module_free(m);

  m = lg_module_new();
  const char *imp = "import \"defs.lay\"\nlayout y = v.x";
  CHECK(lg_load_string(m, "s", imp, strlen(imp), &e) == LAY_E_IO,
        "import without LAY_PATH");
  CHECK(!strcmp(e.message, "cannot find 'defs.lay'"), "'%s'", e.message);
  lg_module_set_path(m, "/nonexistent::inc");
  CHECK(!lg_load_string(m, "s", imp, strlen(imp), &e), "import via path");
  CHECK(lg_module_count(m) == 2, "count %zu", lg_module_count(m));
  lg_module_free(m);
}

/* Huge and deeply nested inputs. */
static void big(void) {
  size_t n = 1 << 20;
  char *s = malloc(n + 64);
  char line[512];
  /* A 1 MB comment line. */
  s[0] = '#';
  memset(s + 1, 'x', n - 1);
  CHECK(load(s, n, line, sizeof line) == LAY_OK, "1 MB comment: %s", line);
  /* A 1 MB expression line. */
  int k = sprintf(s, "layout x (a) -> [a");
  for (size_t i = (size_t)k; i + 2 < n; i += 2) memcpy(s + i, "+a", 2);
  size_t len = n - (n - (size_t)k) % 2;
  s[len - 1] = ']';
  CHECK(load(s, len, line, sizeof line) == LAY_E_LIMIT, "1 MB expr: %s",
        line);
  lay_status st;
  /* A flat chain: LG_MAX_DEPTH operators load, one more is the limit,
  ** named as such. */
  for (int extra = 0; extra <= 1; extra++) {
    k = sprintf(s, "layout x (a) -> [a");
    for (int i = 0; i < LG_MAX_DEPTH + extra; i++)
      k += sprintf(s + k, " + 0");
    k += sprintf(s + k, "]");
    st = load(s, (size_t)k, line, sizeof line);
    if (!extra)
      CHECK(st == LAY_OK, "%d operators: %s", LG_MAX_DEPTH, line);
    else
      CHECK(st == LAY_E_LIMIT &&
                !strcmp(line, "<r>:1:18: error: more than 256 operators "
                              "nested in one expression (each operator of "
                              "a chain a + b + ... is one level)"),
            "%d operators: %s", LG_MAX_DEPTH + 1, line);
  }
  /* A 1 MB name. */
  k = sprintf(s, "layout ");
  memset(s + k, 'n', n);
  len = (size_t)k + n;
  len += (size_t)sprintf(s + len, " (a) -> [a]");
  st = load(s, len, line, sizeof line);
  CHECK(st == LAY_OK || st != LAY_E_SYNTAX, "1 MB name: %s", line);
  /* 10,000 nested brackets of every kind, and prefix operators. */
  static const char *open[] = {"[", "(", "{", "-", "~", "f(", "- (", "a["};
  for (size_t j = 0; j < sizeof open / sizeof open[0]; j++) {
    len = (size_t)sprintf(s, "layout x = ");
    for (int i = 0; i < 10000; i++) len += (size_t)sprintf(s + len, "%s", open[j]);
    len += (size_t)sprintf(s + len, "1");
    st = load(s, len, line, sizeof line);
    /* '{' is a syntax error right away: only tests open braces. */
    CHECK(st == (j == 2 ? LAY_E_SYNTAX : LAY_E_LIMIT), "10000 x '%s': %s",
          open[j], line);
  }
  free(s);
  /* More than LG_MAX_SOURCE. */
  s = calloc(LG_MAX_SOURCE + 2, 1);
  memset(s, ' ', LG_MAX_SOURCE + 1);
  CHECK(load(s, LG_MAX_SOURCE + 1, line, sizeof line) == LAY_E_LIMIT,
        "too big: %s", line);
  free(s);
}

/* Pseudo-random inputs: bytes, token soup, and mutations of a valid spec. */
static const char *vocab[] = {
  "namespace", "import", "layout", "transform", "test", "where", "chunked",
  "ChunkedMemoryLayout", "FlatMemoryLayout", "use", "load", "at", "order",
  "pack", "unpack", "roundtrip", "error", "align", "shape", "x", "n", "c",
  "h", "w", "amd.hcwnc4", "1w16c8b", "quantize", "cast", "pad", "bytes",
  "0", "1", "8", "0x7f", "1.5", "1e-3", "99999999999999999999", "\"s\"",
  "\"", "(", ")", "[", "]", "{", "}", "<", ">", ",", ":", "=", "==", "->",
  "|", "@", "+", "-", "*", "/", "%", "<<", ">>", "&", "^", "~", ".", "#",
  "/*", "*/", "\n", " ", "\t", "$", "\\",
};

static const char *valid =
    "namespace amd\n"
    "layout hcwnc(x = 4) (n, c, h, w) -> [h, c/x, w, n, c%x]\n"
    "layout hcwnc8 = hcwnc(8)\n"
    "layout crouton (b, h, w, d) -> [b, h/8, w/8, d/32, h%8, w%8, d%32]\n"
    "layout c4 = chunked<4, 0,0, 1,0, 2,0, 3,0, 1,8, 2,2, 3,32, 2,4>\n"
    "layout hl (n, c, h, w) : int16 -> [n, c/16, h, w, byte, c%16]\n"
    "  where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)\n"
    "layout t(pl = 0, pr = 0) (n, c, h, w) -> [n, c @ h * 64 align 16,\n"
    "  h, pl + w + pr] pad_value = -1 cast(to = fp16)\n"
    "layout s (n, w) -> [n, w[1:3]]\n"
    "transform tin (x: fp32[n=1, c=3, h=4, w=4]) =\n"
    "  quantize(scale = 0.0078125, zero_point = 0, to = int8)\n"
    "  | pad(end = [0,5,0,0]) | reshape([1,1,8,4,4]) | transpose([3,1,4,0,2])\n"
    "test \"t\" {\n  use amd.hcwnc8 shape [1,3,2,2] : int8\n"
    "  where [0,1,0,1] == 5\n  at 7 == pad\n  order == \"(0,0,0,0)\"\n"
    "  pack == hex(\"00 04\")\n  unpack hex(\"00\") == hex(\"00\")\n"
    "  roundtrip\n  load \"layout x (a) -> [b]\"\n  error == \"b\"\n}\n";

static void random_inputs(void) {
  char buf[4096];
  int ok = 0, bad = 0;
  CHECK(load(valid, strlen(valid), buf, sizeof buf) == LAY_OK,
        "the valid spec: %s", buf);
  for (int i = 0; i < 3000; i++) {
    size_t len = 0;
    int kind = i % 3;
    if (kind == 0) { /* random bytes */
      len = next() % 300;
      for (size_t j = 0; j < len; j++) buf[j] = (char)next();
    } else if (kind == 1) { /* token soup */
      int ntok = (int)(next() % 60);
      for (int j = 0; j < ntok; j++) {
        const char *t = vocab[next() % (sizeof vocab / sizeof vocab[0])];
        size_t tl = strlen(t);
        if (len + tl + 1 >= sizeof buf) break;
        memcpy(buf + len, t, tl);
        len += tl;
        if (next() % 2) buf[len++] = ' ';
      }
    } else { /* mutations of the valid spec */
      len = strlen(valid);
      memcpy(buf, valid, len);
      int nmut = 1 + (int)(next() % 4);
      for (int j = 0; j < nmut && len > 0; j++) {
        size_t at = next() % len;
        switch (next() % 3) {
        case 0: buf[at] = (char)next(); break;
        case 1: memmove(buf + at, buf + at + 1, len - at - 1); len--; break;
        default:
          if (len + 1 < sizeof buf) {
            memmove(buf + at + 1, buf + at, len - at);
            buf[at] = vocab[next() % (sizeof vocab / sizeof vocab[0])][0];
            len++;
          }
        }
      }
    }
    if (load(buf, len, NULL, 0)) bad++;
    else ok++;
    /* The same text as a reference. */
    buf[len < 200 ? len : 200] = '\0';
    lg_arena *a = lg_arena_new();
    lg_expr *e;
    lay_error err;
    if (lg_parse_ref(a, buf, &e, &err) == LAY_OK)
      CHECK(e && (e->kind == LG_X_NAME || e->kind == LG_X_CALL), "ref kind");
    lg_arena_free(a);
  }
  printf("random inputs: %d loaded, %d rejected cleanly\n", ok, bad);
}

/* References through lg_instantiate. */
static void refs(void) {
  lg_module *m = lg_module_new();
  lay_error e;
  CHECK(!lg_load_string(m, "v", valid, strlen(valid), &e), "valid");
  static const char *bad[] = {"", "amd.nope", "amd.hcwnc(", "3", "[1]",
                              "amd.hcwnc(8))", "layout x", "amd.hcwnc(x=)"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    lg_ir *ir = NULL;
    lay_status st = lg_instantiate(m, bad[i], &ir, &e);
    CHECK(st != LAY_OK && ir == NULL, "'%s' instantiated", bad[i]);
    CHECK(!strcmp(e.file, "<format>") || e.line == 0, "'%s': file '%s'",
          bad[i], e.file);
  }
  lg_ir *ir = NULL;
  CHECK(lg_instantiate(m, "amd.nope", &ir, &e) == LAY_E_NAME &&
            !strcmp(e.message, "unknown layout 'amd.nope'") && e.col == 1,
        "unknown: %s", e.message);
  CHECK(lg_instantiate(m, "amd.hcwnc(8", &ir, &e) == LAY_E_SYNTAX &&
            !strcmp(e.message, "')' expected (to close '(' at 1:10)") &&
            e.col == 12,
        "unclosed: %s at %d", e.message, e.col);
  lg_module_free(m);
}

/* Constant strides near 2^63 (issue 21): the load-time check's ladder
** and offsets must not overflow (the sanitizer build stops on signed
** overflow); the layouts are valid for small enough shapes. */
static void huge_strides(void) {
  static const char *const specs[] = {
      "layout st (a, b) -> [a @ 9223372036854775807, b]",
      "layout st (a, b) -> [a @ 9223372036854775806, b]",
      "layout st (a, b) -> [a @ 4611686018427387903 * 2, b]",
      "layout st (a, b) -> [a, b, 1 @ 9223372036854775807]",
      "layout st (a, b) -> [a @ 9223372036854775807, b @ 4611686018427387904]",
  };
  char line[512];
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    lay_status st = load(specs[i], strlen(specs[i]), line, sizeof line);
    CHECK(st == LAY_OK, "'%s': %s", specs[i], line);
  }
}

/* The exact bijectivity test (lang/inject.c) against brute force on every
** small grid of a random sample: it must say injective exactly when no
** two points share an offset, and a collision it reports must be one. */
static void injective(void) {
  int agree = 0;
  for (int t = 0; t < 20000; t++) {
    int n = 1 + (int)(next() % 4);
    int64_t ext[4], str[4], total = 1;
    for (int j = 0; j < n; j++) {
      ext[j] = 1 + (int64_t)(next() % 4);
      str[j] = (int64_t)(next() % 13);
      total *= ext[j];
    }
    int brute = 1;
    int64_t off[256];
    for (int64_t k = 0; k < total; k++) {
      int64_t kk = k, o = 0;
      for (int j = n - 1; j >= 0; j--) {
        o += (kk % ext[j]) * str[j];
        kk /= ext[j];
      }
      off[k] = o;
      for (int64_t q = 0; q < k && brute; q++)
        if (off[q] == o) brute = 0;
    }
    int64_t ka, kb;
    int r = lg_injective(ext, str, n, LG_INJECT_BOUND, &ka, &kb);
    CHECK(r == brute, "grid %d axes: lg_injective %d, brute force %d", n, r,
          brute);
    if (r == 0)
      CHECK(ka != kb && ka >= 0 && kb >= 0 && ka < total && kb < total &&
                off[ka] == off[kb],
            "reported points %lld and %lld do not collide", (long long)ka,
            (long long)kb);
    agree += r == brute;
  }
  printf("injective: %d grids agree with brute force\n", agree);
}

int main(void) {
  injective();
  huge_strides();
  exact();
  format();
  transactional();
  files();
  big();
  random_inputs();
  refs();
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  puts("ok");
  return 0;
}
