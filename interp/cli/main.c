/*
** main.c: the `lay` command line: parses the arguments, prints help and
** version, and dispatches to the commands of cli_cmds.c (`draw` to
** cli_draw.c, `repl` to repl.c, `hsi`, `export` and `--hsi` to cli_hsi.c).
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
#include "cli_lay.h"
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
  O_MAP = 1 << 10,    /* --map T=S,... (convert) */
  O_JSON = 1 << 11,   /* --json (a flag: no value) */
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
    {"--input", O_HSI, FIELD(input)},
    {"--output", O_HSI, FIELD(output)},
    {"--map", O_MAP, FIELD(map)},
    {"--json", O_JSON, 0},
};
#define NOPTIONS (sizeof options / sizeof options[0])
#define FLAG_OPTS O_JSON /* options without a value */

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

#define MOVE_OPTS (O_F | O_THREADS | O_SHAPE | O_DTYPE | O_IN | O_OUT)
static const command commands[] = {
    {"pack", 1, 1, MOVE_OPTS | O_HSI, O_SHAPE, cli_cmd_move,
     "pack FORMAT --shape S [--dtype T] [-i IN] [-o OUT]",
     "Pack a CPU-side tensor (row-major, CPU-side order) into the layout.\n"},
    {"unpack", 1, 1, MOVE_OPTS | O_HSI, O_SHAPE, cli_cmd_move,
     "unpack FORMAT --shape S [--dtype T] [-i IN] [-o OUT]",
     "Unpack a layout buffer back into the CPU-side tensor.\n"},
    {"convert", 2, 2, MOVE_OPTS | O_MAP, O_SHAPE, cli_cmd_move,
     "convert FROM TO --shape S [--map T=S,...] [--dtype T] [-i IN] [-o OUT]",
     "Convert a buffer in layout FROM into layout TO (one plan, dimensions\n"
     "matched by name); the shape is FROM's CPU-side shape.\n"
     "--map T=S,...  TO's dimension T is FROM's dimension S, for layouts\n"
     "               that name their dimensions differently (qnn's (b, h,\n"
     "               w, d) against (n, c, h, w); core.flatN's (a, b, c, d));\n"
     "               the renames apply at once, dimensions not named keep\n"
     "               their names.\n"},
    {"show", 1, 1, O_F | O_SHAPE | O_DTYPE | O_LIMIT, O_SHAPE, cli_cmd_show,
     "show FORMAT --shape S [--dtype T] [--limit N]",
     "Print the memory order in the vendor docs' notation, one line per\n"
     "run: (0,0,0,0), (0,0,0,1) ... (0,0,0,29), pad x2\n"
     "--limit N lists at most N elements (default 4096, 0 = all).\n"},
    {"info", 1, 2, O_F | O_SHAPE | O_DTYPE | O_MAP, O_SHAPE, cli_cmd_info,
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
    {"list", 0, 1, O_F | O_JSON, 0, cli_cmd_list, "list [NAMESPACE] [--json]",
     "Print every layout and transform defined (of NAMESPACE: amd, core,\n"
     "kneron, qnn, ti, yours), one a line: its name, CPU-side dimensions,\n"
     "element type (any: give --dtype; fp32 -> int8: quantized) and\n"
     "parameters with their defaults.\n"},
    {"describe", 1, 1, O_F | O_JSON, 0, cli_cmd_describe,
     "describe NAME [--json]",
     "Explain a layout: the comment above it and its definition in its .lay\n"
     "file, its CPU side, memory order and parameters, and a command to try.\n"},
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
          "  lay pack|unpack --hsi FILE --input K|--output K [-i IN] [-o OUT]\n"
          "  lay hsi FILE [--check]\n"
          "  lay export FORMAT --shape S [--dtype T] [--quantize SCALE,ZP[,TYPE]] "
          "[--as input|output] [-f FILE] [-o OUT]\n"
          "\n"
          "Options:\n"
          "  -f FILE      load extra specs (repeatable); LAY_PATH lists "
          "folders\n"
          "               whose .lay files are loaded too\n"
          "  --shape S    the CPU-side shape, in CPU-side order: 1,3,224,224\n"
          "  --dtype T    fp32 fp16 bf16 int8 uint8 int16 uint16 int32 (or "
          "numpy's\n"
          "               float32, ...); default: the spec's type, else int8\n"
          "  -i IN, -o OUT  raw little-endian bytes; default stdin, stdout\n"
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
  printf(", --help.\n");
}

static const char *opt_name(int bit) {
  for (size_t i = 0; i < NOPTIONS; i++)
    if (options[i].bit == bit) return options[i].name;
  return "?";
}

/* The command line as parsed so far. */
typedef struct cmdline {
  cli_args a;
  const command *cmd; /* NULL until the command word */
  int help;           /* --help, -h or `help` was given */
  int seen;           /* O_* bits of the options given */
} cmdline;

/* Parse the option argv[*i] (and its value). Returns -1 to go on, else
** the exit code. */
static int parse_option(cmdline *cl, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
    cl->help = 1;
    return -1;
  }
  if (!strcmp(arg, "--version") && !cl->cmd) {
    printf("lay %s\n", lay_version_string());
    return CLI_OK;
  }
  const char *eq = strchr(arg, '=');
  size_t nl = eq && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
  const option *o = NULL;
  for (size_t k = 0; k < NOPTIONS; k++)
    if (strlen(options[k].name) == nl && !strncmp(options[k].name, arg, nl))
      o = &options[k];
  if (!o) {
    char hint[256];
    cli_suggest sg;
    cli_suggest_init(&sg, arg);
    for (size_t k = 0; k < NOPTIONS; k++)
      if (!cl->cmd || (cl->cmd->opts & options[k].bit))
        cli_suggest_add(&sg, options[k].name);
    cli_suggest_add(&sg, "--help");
    return cli_usage("unknown option '%s'%s", arg,
                     cli_suggest_text(&sg, hint, sizeof hint));
  }
  if (cl->cmd && !(cl->cmd->opts & o->bit))
    return cli_usage("%s: option '%s' does not apply", cl->cmd->name,
                     o->name);
  if (o->bit & FLAG_OPTS) { /* no value */
    if (eq) return cli_usage("option '%s' takes no value", o->name);
    cl->seen |= o->bit;
    if (o->bit == O_JSON) cl->a.json = 1;
    return -1;
  }
  const char *val;
  if (eq && arg[1] == '-') {
    val = eq + 1;
  } else if (*i + 1 < argc) {
    val = argv[++*i];
  } else {
    return cli_usage("option '%s' needs a value", o->name);
  }
  cl->seen |= o->bit;
  if (o->bit == O_F) cl->a.files[cl->a.nfiles++] = val;
  else *(const char **)((char *)&cl->a + o->field) = val;
  return -1;
}

/* The commands that parse their own arguments. */
static const char *const own_args[] = {"draw", "repl", "hsi", "export"};

/* The commands that parse their own arguments (argv[0] is the command):
** draw, repl, hsi, export. Returns the exit code, or -1 when `name` is
** none of them. */
static int run_own_args(const char *name, const cli_args *a, int argc,
                        char **argv) {
  if (!strcmp(name, "hsi")) return cli_hsi(argc, argv);
  if (strcmp(name, "draw") && strcmp(name, "repl") && strcmp(name, "export"))
    return -1;
  lay_ctx *ctx = cli_context(a);
  if (!ctx) return CLI_FAIL;
  int rc = name[0] == 'd'   ? cli_draw(ctx, argc, argv)
           : name[0] == 'r' ? cli_repl(ctx, (const char *const *)a->files,
                                       a->nfiles, argc, argv)
                            : cli_export(ctx, argc, argv);
  lay_ctx_free(ctx);
  return rc;
}

/* pack or unpack --hsi FILE --input K | --output K. */
static int run_hsi_move(const command *cmd, const cli_args *a, int seen) {
  if (!a->hsi)
    return cli_usage("%s: --%s is only used with --hsi", cmd->name,
                     a->input ? "input" : "output");
  if (!!a->input == !!a->output)
    return cli_usage("%s --hsi: give one of --input K and --output K",
                     cmd->name);
  if (a->npos)
    return cli_usage("%s --hsi: unexpected argument '%s'", cmd->name,
                     a->pos[0]);
  if (seen & (O_SHAPE | O_DTYPE))
    return cli_usage("%s --hsi: the shape and dtype come from the report",
                     cmd->name);
  lay_ctx *ctx = cli_context(a);
  int rc = ctx ? cli_hsi_run(!strcmp(cmd->name, "pack"), a->hsi,
                             a->input ? "input" : "output",
                             a->input ? a->input : a->output, a->in, a->out,
                             ctx)
               : CLI_FAIL;
  lay_ctx_free(ctx);
  return rc;
}

/* The positional arguments and required options of `cmd`: 0 when they are
** all there, else the usage error's exit code. */
static int check_args(const command *cmd, const cli_args *a, int seen) {
  if (a->npos < cmd->minpos)
    return cli_usage(
        "%s: missing %s", cmd->name,
        cmd->minpos == 2 && a->npos == 1 ? "the TO format"
        : !strcmp(cmd->name, "check") || !strcmp(cmd->name, "test")
            ? "a FILE"
        : cmd->minpos == 2 ? "the FROM and TO formats"
                           : "the FORMAT");
  if (cmd->maxpos >= 0 && a->npos > cmd->maxpos)
    return cli_usage("%s: unexpected argument '%s'", cmd->name,
                     a->pos[cmd->maxpos]);
  if ((seen & cmd->need) != cmd->need)
    return cli_usage("%s: missing %s", cmd->name,
                     opt_name(cmd->need & ~seen & -(cmd->need & ~seen)));
  return 0;
}

/* Parse argv and run the command; the exit code. */
static int run(cmdline *cl, int argc, char **argv) {
  cli_args *a = &cl->a;
  int dashdash = 0, rc;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!dashdash && arg[0] == '-' && arg[1]) {
      if (!strcmp(arg, "--")) dashdash = 1;
      else if ((rc = parse_option(cl, argc, argv, &i)) >= 0) return rc;
      continue;
    }
    if (cl->cmd) {
      a->pos[a->npos++] = arg;
      continue;
    }
    if (!strcmp(arg, "help")) {
      cl->help = 1;
      continue;
    }
    if (!cl->help && (rc = run_own_args(arg, a, argc - i, argv + i)) >= 0)
      return rc;
    for (size_t k = 0; k < NCOMMANDS; k++)
      if (!strcmp(commands[k].name, arg)) cl->cmd = &commands[k];
    if (!cl->cmd) {
      char hint[256];
      cli_suggest sg;
      cli_suggest_init(&sg, arg);
      for (size_t k = 0; k < NCOMMANDS; k++)
        cli_suggest_add(&sg, commands[k].name);
      for (size_t k = 0; k < sizeof own_args / sizeof *own_args; k++)
        cli_suggest_add(&sg, own_args[k]);
      return cli_usage("unknown command '%s'%s", arg,
                       cli_suggest_text(&sg, hint, sizeof hint));
    }
    a->cmd = cl->cmd->name;
    int bad = cl->seen & ~cl->cmd->opts;
    if (bad)
      return cli_usage("%s: option '%s' does not apply", cl->cmd->name,
                       opt_name(bad & -bad));
  }
  if (cl->help) {
    if (cl->cmd) cmd_help(cl->cmd);
    else main_help(stdout);
    return CLI_OK;
  }
  if (!cl->cmd) return cli_usage("no command given");
  if (cl->seen & O_HSI) return run_hsi_move(cl->cmd, a, cl->seen);
  if ((rc = check_args(cl->cmd, a, cl->seen))) return rc;
  return cl->cmd->run(a);
}

int main(int argc, char **argv) {
  cmdline cl;
  memset(&cl, 0, sizeof cl);
  cl.a.pos = calloc((size_t)argc + 1, sizeof *cl.a.pos);
  cl.a.files = calloc((size_t)argc + 1, sizeof *cl.a.files);
  int rc = CLI_FAIL;
  if (!cl.a.pos || !cl.a.files) fprintf(stderr, "lay: out of memory\n");
  else rc = run(&cl, argc, argv);
  free(cl.a.pos);
  free(cl.a.files);
  return rc;
}
