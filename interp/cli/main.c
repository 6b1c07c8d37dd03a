/*
** main.c: the `lay` command line: parses the arguments, prints help and
** version, and dispatches to the commands of cli_cmds.c (`draw` to
** cli_draw.c, `repl` to repl.c, `hsi`, `export` and `--hsi` to cli_hsi.c,
** `kneron` and `--kneron` to cli_kneron.c, `tidl` and `--tidl` to
** cli_tidl.c).
**
**   lay [-f FILE]... COMMAND ARGS [OPTIONS]
**
** Options may come before or after the positional arguments, as
** `--opt VALUE` or `--opt=VALUE`; `--` ends the options. An unknown command
** or option, an option the command does not take, or a missing argument
** is a usage error (exit 2).
*/
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_draw.h"
#include "cli_hsi.h"
#include "cli_kneron.h"
#include "cli_tidl.h"
#include "cli_lay.h"
#include "cli_npy.h"
#include "lay.h"
#include "repl.h"

/* Options, as bits of the set each command accepts. */
enum {
  O_F = 1 << 0,       /* -f FILE */
  O_THREADS = 1 << 1, /* --threads N */
  O_SHAPE = 1 << 2,
  O_DTYPE = 1 << 3,
  O_IN = 1 << 4,      /* -i */
  O_OUT = 1 << 5,     /* -o */
  O_LIMIT = 1 << 6,
  O_AT = 1 << 7,
  O_OFFSET = 1 << 8,
  O_HSI = 1 << 9,     /* --hsi, --input, --output */
  O_NPY = 1 << 10,    /* --npy (a flag: cli_npy.c) */
  O_KNERON = 1 << 11, /* --kneron */
};

typedef struct option {
  const char *name; /* as typed */
  int bit;          /* O_* */
  size_t field;     /* offsetof the cli_args string it sets; 0 = -f */
} option;

#define FIELD(f) offsetof(cli_args, f)
static const option options[] = {
    {"-f", O_F, 0},
    {"--file", O_F, 0},
    {"--threads", O_THREADS, FIELD(threads)},
    {"--shape", O_SHAPE, FIELD(shape)},
    {"--dtype", O_DTYPE, FIELD(dtype)},
    {"-i", O_IN, FIELD(in)},
    {"--in", O_IN, FIELD(in)},
    {"-o", O_OUT, FIELD(out)},
    {"--out", O_OUT, FIELD(out)},
    {"--limit", O_LIMIT, FIELD(limit)},
    {"--at", O_AT, FIELD(at)},
    {"--offset", O_OFFSET, FIELD(offset)},
    {"--hsi", O_HSI, FIELD(hsi)},
    {"--tidl", O_HSI, FIELD(tidl)},
    {"--input", O_HSI, FIELD(input)},
    {"--output", O_HSI, FIELD(output)},
    {"--npy", O_NPY, FIELD(npy)},
    {"--frame", O_HSI, FIELD(frame)},
    {"--all", O_HSI, FIELD(all)},
    {"--kneron", O_KNERON, FIELD(kneron)},
};
#define NOPTIONS (sizeof options / sizeof options[0])

/* A command: its positional arguments and options. */
typedef struct command {
  const char *name;
  int minpos, maxpos;      /* positional arguments (-1: any number) */
  int opts;                /* accepted O_* bits */
  int need;                /* O_* bits that must be given */
  int (*run)(const cli_args *a);
  const char *usage;       /* one line, after "usage: lay " */
  const char *help;        /* further lines */
} command;

#define MOVE_OPTS (O_F | O_THREADS | O_SHAPE | O_DTYPE | O_IN | O_OUT | O_NPY)
static const command commands[] = {
    {"pack", 1, 1, MOVE_OPTS | O_HSI | O_KNERON, O_SHAPE, cli_cmd_move,
     "pack FORMAT --shape S [--dtype T] [-i IN] [-o OUT]",
     "Pack a CPU-side tensor (row-major, CPU-side order) into the layout.\n"},
    {"unpack", 1, 1, MOVE_OPTS | O_HSI | O_KNERON, O_SHAPE, cli_cmd_move,
     "unpack FORMAT --shape S [--dtype T] [-i IN] [-o OUT]",
     "Unpack a layout buffer back into the CPU-side tensor.\n"},
    {"convert", 2, 2, MOVE_OPTS, O_SHAPE, cli_cmd_move,
     "convert FROM TO --shape S [--dtype T] [-i IN] [-o OUT]",
     "Convert a buffer in layout FROM into layout TO (one plan, dimensions\n"
     "matched by name); the shape is FROM's CPU-side shape.\n"},
    {"show", 1, 1, O_F | O_SHAPE | O_DTYPE | O_LIMIT, O_SHAPE, cli_cmd_show,
     "show FORMAT --shape S [--dtype T] [--limit N]",
     "Print the memory order in the vendor docs' notation, one line per\n"
     "run: (0,0,0,0), (0,0,0,1) ... (0,0,0,29), pad x2\n"
     "--limit N lists at most N elements (default 4096, 0 = all).\n"},
    {"info", 1, 2, O_F | O_SHAPE | O_DTYPE, O_SHAPE, cli_cmd_info,
     "info FORMAT --shape S [--dtype T]   (or: info FROM TO --shape S)",
     "Print the shapes, element types, buffer sizes and the plan; with two\n"
     "formats, the plan that converts FROM into TO.\n"},
    {"where", 1, 1, O_F | O_SHAPE | O_DTYPE | O_AT, O_SHAPE | O_AT,
     cli_cmd_where, "where FORMAT --shape S --at I,J,K,L [--dtype T]",
     "Print the byte offset of a CPU-side coordinate in the layout buffer.\n"},
    {"at", 1, 1, O_F | O_SHAPE | O_DTYPE | O_OFFSET, O_SHAPE | O_OFFSET,
     cli_cmd_at, "at FORMAT --shape S --offset N [--dtype T]",
     "Print the CPU-side coordinate stored at a byte offset of the layout\n"
     "buffer: (0,0,1,2), or pad (0,0,0,30) for padding (the padded\n"
     "coordinate), or hole; byte-plane layouts add the plane: plane lo.\n"},
    {"check", 1, -1, O_F, 0, cli_cmd_check, "check FILE.lay...",
     "Parse and validate spec files (names, splits, bijectivity, coverage);\n"
     "prints FILE: ok, or the error with its position. Each file is checked\n"
     "on its own against the stdlib; a file of a stdlib folder\n"
     "(stdlib/amd.lay) is checked in place of its embedded copy.\n"},
    {"test", 1, -1, O_F, 0, cli_cmd_test, "test FILE...",
     "Run the test blocks of spec files; prints one line per failure and\n"
     "N passed, M failed.\n"},
    {"list", 0, 0, O_F, 0, cli_cmd_list, "list",
     "Print the name of every layout and transform defined.\n"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void main_help(FILE *f) {
  fprintf(f,
          "usage: lay [-f FILE]... COMMAND [ARGS]\n"
          "\n"
          "lay packs CPU tensors into NPU memory layouts, unpacks them back,\n"
          "converts between layouts and explains them.\n"
          "\n"
          "Commands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(f, "  lay %s\n", commands[i].usage);
  fprintf(f,
          "  lay draw FORMAT --shape S [-o FILE.svg] [--row BYTES] "
          "[--color DIM]\n"
          "  lay repl [FILE.lay...]\n"
          "  lay pack|unpack --hsi FILE|DIR [--input K|--output K] [--frame K] "
          "[-i IN] [-o OUT]\n"
          "  lay pack|unpack --hsi FILE|DIR --all DIR -o OUTDIR\n"
          "  lay hsi FILE [--check]\n"
          "  lay pack|unpack --kneron FILE [--dtype fp32|int8|int16] [-i IN] "
          "[-o OUT]\n"
          "  lay kneron FILE\n"
          "  lay pack|unpack --tidl FILE --input K|--output K [-i IN] [-o OUT]\n"
          "  lay tidl FILE [--check]\n"
          "  lay export FORMAT --shape S [--dtype T] [--quantize SCALE,ZP[,TYPE]] "
          "[--as input|output] [-f FILE] [-o OUT]\n"
          "\n"
          "Options:\n"
          "  -f FILE      load extra specs (repeatable); LAY_PATH lists "
          "folders\n"
          "               whose .lay files are loaded too\n"
          "  --shape S    the CPU-side shape, in CPU-side order: 1,3,224,224,\n"
          "               or named: n=1,c=3,h=224,w=224 (checked against the\n"
          "               layout's dimension names and their order)\n"
          "  --dtype T    fp32 fp16 bf16 int8 uint8 int16 uint16 int32 (or "
          "numpy's\n"
          "               float32, ...); default: the spec's type, else int8\n"
          "  -i IN, -o OUT  raw little-endian bytes; default stdin, stdout;\n"
          "               pack -i X.npy takes the shape and dtype from the file,\n"
          "               an OUT ending in .npy is written as .npy\n"
          "  --npy        write the output of pack, unpack or convert as .npy\n"
          "  --threads N  run the plan on N threads\n"
          "  --help       this text (lay COMMAND --help: the command's)\n"
          "  --version    print the version\n"
          "\n"
          "A FORMAT is a layout name with optional arguments:\n"
          "  amd.hcwnc4   qnn.crouton   'ti.tidl(pad_l=1,pad_r=1)'\n");
}

static void cmd_help(const command *c) {
  printf("usage: lay %s\n\n%s", c->usage, c->help);
  printf("\nCommon options: -f FILE (repeatable)");
  if (c->opts & O_THREADS) printf(", --threads N");
  if (c->opts & O_NPY) printf(", --npy"); /* .npy hook */
  printf(", --help.\n");
}

static const char *opt_name(int bit) {
  for (size_t i = 0; i < NOPTIONS; i++)
    if (options[i].bit == bit) return options[i].name;
  return "?";
}

int main(int argc, char **argv) {
  cli_args a;
  memset(&a, 0, sizeof a);
  a.pos = calloc((size_t)argc + 1, sizeof *a.pos);
  a.files = calloc((size_t)argc + 1, sizeof *a.files);
  if (!a.pos || !a.files) {
    fprintf(stderr, "lay: out of memory\n");
    return CLI_FAIL;
  }
  const command *cmd = NULL;
  int help = 0, seen = 0, dashdash = 0, rc;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!dashdash && arg[0] == '-' && arg[1]) {
      if (!strcmp(arg, "--")) {
        dashdash = 1;
        continue;
      }
      if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
        help = 1;
        continue;
      }
      if (!strcmp(arg, "--version") && !cmd) {
        printf("lay %s\n", lay_version_string());
        rc = CLI_OK;
        goto out;
      }
      const char *eq = strchr(arg, '=');
      size_t nl = eq && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
      const option *o = NULL;
      for (size_t k = 0; k < NOPTIONS; k++)
        if (strlen(options[k].name) == nl &&
            !strncmp(options[k].name, arg, nl))
          o = &options[k];
      if (!o) {
        rc = cli_usage("unknown option '%s'", arg);
        goto out;
      }
      const char *val;
      if (o->bit == O_NPY) { /* .npy hook: the one option without a value */
        if (eq) {
          rc = cli_usage("option '%s' takes no value", o->name);
          goto out;
        }
        val = "1";
      } else if (eq && arg[1] == '-') {
        val = eq + 1;
      } else if (i + 1 < argc) {
        val = argv[++i];
      } else {
        rc = cli_usage("option '%s' needs a value", o->name);
        goto out;
      }
      if (cmd && !(cmd->opts & o->bit)) {
        rc = cli_usage("%s: option '%s' does not apply", cmd->name, o->name);
        goto out;
      }
      seen |= o->bit;
      if (o->bit == O_F) a.files[a.nfiles++] = val;
      else *(const char **)((char *)&a + o->field) = val;
      continue;
    }
    if (!cmd) {
      if (!strcmp(arg, "help")) {
        help = 1;
        continue;
      }
      if ((!strcmp(arg, "draw") || !strcmp(arg, "repl")) && !help) {
        /* cli_draw and cli_repl parse their own arguments. */
        lay_ctx *ctx = cli_context(&a);
        if (!ctx) {
          rc = CLI_FAIL;
          goto out;
        }
        rc = arg[0] == 'd'
                 ? cli_draw(ctx, argc - i, argv + i)
                 : cli_repl(ctx, (const char *const *)a.files, a.nfiles,
                            argc - i, argv + i);
        lay_ctx_free(ctx);
        goto out;
      }
      if (!strcmp(arg, "tidl") && !help) { /* parses its own arguments */
        rc = cli_tidl(argc - i, argv + i);
        goto out;
      }
      if (!strcmp(arg, "hsi") && !help) { /* parses its own arguments */
        rc = cli_hsi(argc - i, argv + i);
        goto out;
      }
      if (!strcmp(arg, "kneron") && !help) { /* parses its own arguments */
        rc = cli_kneron(argc - i, argv + i);
        goto out;
      }
      if (!strcmp(arg, "export") && !help) { /* parses its own arguments */
        lay_ctx *ctx = cli_context(&a);
        rc = ctx ? cli_export(ctx, argc - i, argv + i) : CLI_FAIL;
        lay_ctx_free(ctx);
        goto out;
      }
      for (size_t k = 0; k < NCOMMANDS; k++)
        if (!strcmp(commands[k].name, arg)) cmd = &commands[k];
      if (!cmd) {
        rc = cli_usage("unknown command '%s'", arg);
        goto out;
      }
      a.cmd = cmd->name;
      if (seen & ~cmd->opts) {
        rc = cli_usage("%s: option '%s' does not apply", cmd->name,
                       opt_name(seen & ~cmd->opts & -(seen & ~cmd->opts)));
        goto out;
      }
      continue;
    }
    a.pos[a.npos++] = arg;
  }
  if (help) {
    if (cmd) cmd_help(cmd);
    else main_help(stdout);
    rc = CLI_OK;
    goto out;
  }
  if (!cmd) {
    rc = cli_usage("no command given");
    goto out;
  }
  if (seen & O_KNERON) {
    rc = cli_kneron_cmd(&a, cmd->name, (seen & O_HSI) != 0,
                        (seen & O_SHAPE) != 0);
    goto out;
  }
  if ((seen & O_HSI) && a.tidl) {
    rc = cli_tidl_move(&a, seen & (O_SHAPE | O_DTYPE));
    goto out;
  }
  if (seen & O_HSI) {
    if (!a.hsi)
      rc = cli_usage("%s: --%s is only used with --hsi", cmd->name,
                     a.input ? "input" : a.output ? "output"
                     : a.frame ? "frame" : "all");
    else if (a.input && a.output)
      rc = cli_usage("%s --hsi: give one of --input K and --output K",
                     cmd->name);
    else if (a.npos)
      rc = cli_usage("%s --hsi: unexpected argument '%s'", cmd->name,
                     a.pos[0]);
    else if (seen & (O_SHAPE | O_DTYPE))
      rc = cli_usage("%s --hsi: the shape and dtype come from the report",
                     cmd->name);
    else {
      lay_ctx *ctx = cli_context(&a);
      rc = ctx ? cli_hsi_run(!strcmp(cmd->name, "pack"), &a, ctx)
               : CLI_FAIL;
      lay_ctx_free(ctx);
    }
    goto out;
  }
  if (a.npos < cmd->minpos) {
    rc = cli_usage("%s: missing %s", cmd->name,
                   cmd->minpos == 2 && a.npos == 1 ? "the TO format"
                   : !strcmp(cmd->name, "check") || !strcmp(cmd->name, "test")
                       ? "a FILE"
                       : cmd->minpos == 2 ? "the FROM and TO formats"
                                          : "the FORMAT");
    goto out;
  }
  if (cmd->maxpos >= 0 && a.npos > cmd->maxpos) {
    rc = cli_usage("%s: unexpected argument '%s'", cmd->name,
                   a.pos[cmd->maxpos]);
    goto out;
  }
  /* .npy hook: pack -i NAME.npy takes the shape from the file's header. */
  if (!strcmp(cmd->name, "pack") && cli_npy_name(a.in)) seen |= O_SHAPE & cmd->need;
  if ((seen & cmd->need) != cmd->need) {
    rc = cli_usage("%s: missing %s", cmd->name,
                   opt_name(cmd->need & ~seen & -(cmd->need & ~seen)));
    goto out;
  }
  rc = cmd->run(&a);
out:
  free(a.pos);
  free(a.files);
  return rc;
}
