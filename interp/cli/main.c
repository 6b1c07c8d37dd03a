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
  O_MAP = 1 << 12,    /* --map T=S,... (convert) */
  O_JSON = 1 << 13,   /* --json (a flag: no value) */
  O_FORCE = 1 << 14,  /* --force (a flag) */
  O_DEBUG = 1 << 15,  /* --debug-plan (a flag, any command) */
  O_ELEMENTS = 1 << 16, /* --elements (a flag: where, at) */
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
    {"--map", O_MAP, FIELD(map)},
    {"--json", O_JSON, 0},
    {"--force", O_FORCE, 0},
    {"--debug-plan", O_DEBUG, 0},
    {"--elements", O_ELEMENTS, 0},
};
#define NOPTIONS (sizeof options / sizeof options[0])
#define FLAG_OPTS (O_JSON | O_FORCE | O_NPY | O_DEBUG | O_ELEMENTS) /* options without a value */

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

#define MOVE_OPTS \
  (O_F | O_THREADS | O_SHAPE | O_DTYPE | O_IN | O_OUT | O_NPY | O_FORCE)
static const command commands[] = {
    {"pack", 1, 1, MOVE_OPTS | O_HSI | O_KNERON, O_SHAPE, cli_cmd_move,
     "pack FORMAT --shape S [--dtype T] [-i IN] [-o OUT]",
     "Pack a CPU-side tensor (row-major, CPU-side order) into the layout.\n"
     "pack, unpack and convert stream in slabs of ~1 MB when a dimension\n"
     "is outermost in the output (see man lay; --debug-plan says why not).\n"
     "Examples:\n"
     "  lay pack amd.hcwnc4 --shape 1,3,224,224 -i img.bin -o img.hcwnc4\n"
     "  lay pack --hsi flexmlrt-hsi.json --input 0 -i x.f32 -o x.npu\n"},
    {"unpack", 1, 1, MOVE_OPTS | O_HSI | O_KNERON, O_SHAPE, cli_cmd_move,
     "unpack FORMAT --shape S [--dtype T] [-i IN] [-o OUT]",
     "Unpack a layout buffer back into the CPU-side tensor.\n"
     "Example:\n"
     "  lay unpack amd.hcwnc4 --shape 1,3,224,224 -i img.hcwnc4 -o img.bin\n"},
    {"convert", 2, 2, MOVE_OPTS | O_MAP, O_SHAPE, cli_cmd_move,
     "convert FROM TO --shape S [--map T=S,...] [--dtype T] [-i IN] [-o OUT]",
     "Convert a buffer in layout FROM into layout TO (one plan, dimensions\n"
     "matched by name); the shape is FROM's CPU-side shape.\n"
     "--map T=S,...  TO's dimension T is FROM's dimension S, for layouts\n"
     "               that name their dimensions differently (qnn's (b, h,\n"
     "               w, d) against (n, c, h, w); core.flatN's (a, b, c, d));\n"
     "               the renames apply at once, dimensions not named keep\n"
     "               their names.\n"
     "Examples:\n"
     "  lay convert amd.hcwnc4 kneron.1w16c8b --shape 1,3,32,32 -i a -o b\n"
     "  lay convert core.nchw qnn.crouton --shape 1,64,56,56 --map b=n,d=c \\\n"
     "      -i x.bin -o x.crouton\n"},
    {"show", 1, 1, O_F | O_SHAPE | O_DTYPE | O_LIMIT, O_SHAPE, cli_cmd_show,
     "show FORMAT --shape S [--dtype T] [--limit N]",
     "Print the memory order in the vendor docs' notation, one line per\n"
     "run: (0,0,0,0), (0,0,0,1) ... (0,0,0,29), pad x2\n"
     "Example:\n"
     "  lay show amd.hcwnc4 --shape 1,3,2,2\n"},
    {"info", 1, 2, O_F | O_SHAPE | O_DTYPE | O_MAP | O_JSON, 0, cli_cmd_info,
     "info FORMAT --shape S [--dtype T]   (or: info FROM TO --shape S)",
     "Print the shapes, element types, buffer sizes and the plan; with two\n"
     "formats, the plan that converts FROM into TO. Without a shape: lay\n"
     "describe.\n"
     "Examples:\n"
     "  lay info qnn.crouton --shape 1,8,8,32\n"
     "  lay info amd.hcwnc4 kneron.1w16c8b --shape 1,3,32,32\n"},
    {"where", 1, 1, O_F | O_SHAPE | O_DTYPE | O_AT | O_JSON | O_ELEMENTS,
     O_SHAPE | O_AT, cli_cmd_where,
     "where FORMAT --shape S --at I,J,K,L [--dtype T] [--elements]",
     "Print the byte offset of a CPU-side coordinate in the layout buffer;\n"
     "with byte planes, each plane's: 1 (plane lo), 17 (plane hi). The\n"
     "coordinate may be written 0,1,0,0, (0,1,0,0) or [0,1,0,0].\n"
     "--elements prints the element index instead (memory order: the byte\n"
     "offset over the element size; with int4 and uint4 the half byte).\n"
     "Example:\n"
     "  lay where amd.hcwnc4 --shape 1,3,2,2 --at 0,1,1,0\n"},
    {"at", 1, 1, O_F | O_SHAPE | O_DTYPE | O_OFFSET | O_JSON | O_ELEMENTS,
     O_SHAPE | O_OFFSET, cli_cmd_at,
     "at FORMAT --shape S --offset N [--dtype T] [--elements]",
     "Print the CPU-side coordinate stored at a byte offset of the layout\n"
     "buffer: (0,0,1,2), or pad (0,0,0,30) for padding (the padded\n"
     "coordinate), or hole; byte-plane layouts add the plane: plane lo;\n"
     "elements of several bytes say which: byte 1 of 2 (little-endian).\n"
     "--elements: N is an element index of the layout buffer instead.\n"
     "Example:\n"
     "  lay at amd.hcwnc4 --shape 1,3,2,2 --offset 9\n"},
    {"check", 1, -1, O_F, 0, cli_cmd_check, "check FILE.lay...",
     "Parse and validate spec files (names, splits, bijectivity, coverage);\n"
     "prints FILE: ok, or the error with its position. Each file is checked\n"
     "on its own against the stdlib; a file of a stdlib folder\n"
     "(stdlib/amd.lay) is checked in place of its embedded copy.\n"
     "Example:\n"
     "  lay check my_layouts.lay\n"},
    {"test", 1, -1, O_F, 0, cli_cmd_test, "test FILE...",
     "Run the test blocks of spec files; prints one line per failure and\n"
     "N passed, M failed.\n"
     "Example:\n"
     "  lay test my_layouts.lay\n"},
    {"list", 0, 1, O_F | O_JSON, 0, cli_cmd_list, "list [NAMESPACE] [--json]",
     "Print every layout and transform defined (of NAMESPACE: amd, core,\n"
     "kneron, qnn, ti, yours), one a line: its name, CPU-side dimensions,\n"
     "element type (any: give --dtype; fp32 -> int8: quantized) and\n"
     "parameters with their defaults.\n"
     "Examples:\n"
     "  lay list\n"
     "  lay list ti --json\n"},
    {"describe", 1, 1, O_F | O_JSON, 0, cli_cmd_describe,
     "describe NAME [--json]",
     "Explain a layout: the comment above it and its definition in its .lay\n"
     "file, its CPU side, memory order and parameters, and a command to try.\n"
     "Example:\n"
     "  lay describe ti.tidl\n"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The commands that parse their own arguments (main.c hands them argv);
** their --help is answered here. */
typedef struct own_command {
  const char *name;
  const char *usage; /* one line, after "usage: lay " */
  const char *help;  /* further lines: what it does, its options, examples */
} own_command;
static const own_command own_commands[] = {
    {"draw", "draw FORMAT --shape S [-o FILE.svg] [--row BYTES] [--color DIM]"
             " [--dtype T] [--from A] [--to B]",
     "A picture (SVG) of the layout buffer in memory order, each cell\n"
     "labelled with its CPU-side coordinate and coloured by one dimension;\n"
     "pad cells grey; heavy lines between chunks.\n"
     "Options:\n"
     "  --shape S      the CPU-side shape\n"
     "  --dtype T      the element type\n"
     "  -o FILE.svg    where to write it (default: stdout)\n"
     "  --row BYTES    bytes per row (default 16), whole elements, at most 64\n"
     "  --color DIM    the dimension that picks the colour (a name or index)\n"
     "  --from A, --to B  draw only the rows holding bytes A to B (byte\n"
     "                 offsets, or CPU-side coordinates: 0,1,0,0); a big\n"
     "                 buffer is otherwise drawn as its first and last rows\n"
     "Examples:\n"
     "  lay draw amd.hcwnc4 --shape 1,6,2,2 -o hcwnc4.svg\n"
     "  lay draw qnn.crouton --shape 1,56,56,64 --row 32 --from 2048 --to 4096\n"},
    {"repl", "repl [FILE.lay...]",
     "Explore layouts interactively; `help` at the prompt lists the\n"
     "commands. With stdin not a terminal, runs it as a script.\n"
     "Example:\n"
     "  lay repl my_layouts.lay\n"},
    {"hsi", "hsi FILE [--check] [--json]",
     "Print an AMD flexmlrt-hsi.json report (or the report of a compile\n"
     "cache folder) as lay specs.\n"
     "Options:\n"
     "  --check        report its inconsistencies\n"
     "  --json         print the entries (shapes, types, spec, buffer sizes,\n"
     "                 issues) as one JSON object for scripts\n"
     "Examples:\n"
     "  lay hsi flexmlrt-hsi.json\n"
     "  lay hsi flexmlrt-hsi.json --check --json\n"
     "See also: lay pack|unpack --hsi FILE --input K|--output K.\n"},
    {"tidl", "tidl FILE [--check]",
     "Print every tensor of a TIDL compiled model's io_1.bin (any SDK\n"
     "version's sTIDL_IOBufDesc_t, or its multi-subgraph container) as lay\n"
     "specs.\n"
     "Options:\n"
     "  --check        list the inconsistent fields, tensor by tensor\n"
     "Examples:\n"
     "  lay tidl model_io_1.bin\n"
     "  lay tidl model_io_1.bin --check\n"
     "See also: lay pack|unpack --tidl FILE --input K|--output K.\n"},
    {"kneron", "kneron FILE",
     "Print the layout a Kneron PLUS kp.TensorDescriptor describes, as lay\n"
     "specs.\n"
     "Options: none.\n"
     "Example:\n"
     "  lay kneron descriptor.txt\n"
     "See also: lay pack|unpack --kneron FILE.\n"},
    {"export", "export FORMAT --shape S [--dtype T] [--quantize SCALE,ZP[,TYPE]]"
               " [--as input|output] [-f FILE] [-o OUT]",
     "Write a flexmlrt-hsi.json report holding one tensor entry that\n"
     "describes the layout in AMD's transformation form.\n"
     "Options:\n"
     "  --shape S      the CPU-side shape\n"
     "  --dtype T      the CPU element type\n"
     "  --quantize SCALE,ZP[,TYPE]  a float CPU side quantized to TYPE (int8)\n"
     "  --as input|output  which list the entry goes in (default input)\n"
     "  -o OUT         where to write it (default: stdout)\n"
     "Example:\n"
     "  lay export amd.hcwnc8 --shape 1,16,8,8 --dtype fp32 --quantize "
     "0.5,0 -o r.json\n"},
};
#define NOWN (sizeof own_commands / sizeof own_commands[0])

/* What each option is, for the commands' --help (one line or two). */
static const struct {
  int bit;
  const char *text;
} option_help[] = {
    {O_SHAPE, "  --shape S      the CPU-side shape, in CPU-side order: 1,3,224,224\n"},
    {O_DTYPE, "  --dtype T      fp32 fp16 bf16 int8 uint8 int16 uint16 int32 uint32\n"
              "                 int64 uint64 int4 uint4 fp8e4m3 fp8e5m2 (or numpy's names);\n"
              "                 default: the spec's type, else int8\n"},
    {O_IN, "  -i IN          the input, raw little-endian bytes (default stdin)\n"},
    {O_OUT, "  -o OUT         the output (default stdout, not a terminal)\n"},
    {O_THREADS, "  --threads N    run the plan on N threads\n"},
    {O_LIMIT, "  --limit N      list at most N elements (default 4096, 0 = all)\n"},
    {O_AT, "  --at I,J,K,L   a CPU-side coordinate\n"},
    {O_OFFSET, "  --offset N     a byte offset in the layout buffer\n"},
    {O_ELEMENTS, "  --elements     element indexes (memory order) instead of bytes\n"},
    {O_HSI, "  --hsi FILE --input K | --output K   the tensor K (an index or a\n"
            "                 name) of an AMD flexmlrt-hsi.json report\n"},
    {O_MAP, "  --map T=S,...  rename TO's dimensions to match FROM's\n"},
    {O_JSON, "  --json         print JSON for scripts\n"},
    {O_NPY, "  --npy          write the output as .npy (an OUT ending in .npy is)\n"},
    {O_HSI, "  --tidl FILE --input K | --output K  the tensor K (an index or a\n"
            "                 name) of a TIDL io_1.bin\n"},
    {O_KNERON, "  --kneron FILE  the layout of a Kneron kp.TensorDescriptor\n"},
    {O_FORCE, "  --force        replace a read-only or hard-linked -o file\n"},
    {O_F, "  -f FILE        load extra specs (repeatable)\n"},
};

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
  for (size_t i = 0; i < NOWN; i++)
    fprintf(f, "  lay %s\n", own_commands[i].usage);
  fprintf(f,
          "  lay pack|unpack --hsi FILE|DIR [--input K|--output K] [--frame K] "
          "[-i IN] [-o OUT]\n"
          "  lay pack|unpack --hsi FILE|DIR --all DIR -o OUTDIR\n"
          "  lay pack|unpack --kneron FILE [--dtype fp32|int8|int16] [-i IN] "
          "[-o OUT]\n"
          "  lay pack|unpack --tidl FILE --input K|--output K [-i IN] [-o OUT]\n"
          "\n"
          "Options:\n"
          "  -f FILE      load extra specs (repeatable); LAY_PATH lists "
          "folders\n"
          "               whose .lay files are loaded too\n"
          "  --shape S    the CPU-side shape, in CPU-side order: 1,3,224,224,\n"
          "               or named: n=1,c=3,h=224,w=224 (checked against the\n"
          "               layout's dimension names and their order)\n"
          "  --dtype T    fp32 fp16 bf16 int8 uint8 int16 uint16 int32 uint32\n"
          "               int64 uint64 int4 uint4 fp8e4m3 fp8e5m2 (or numpy's\n"
          "               float32, ...); default: the spec's type, else int8\n"
          "  -i IN, -o OUT  raw little-endian bytes; default stdin, stdout;\n"
          "               pack -i X.npy takes the shape and dtype from the file,\n"
          "               an OUT ending in .npy is written as .npy\n"
          "  --npy        write the output of pack, unpack or convert as .npy\n"
          "  --threads N  run the plan on N threads\n"
          "  --debug-plan print the plan after each planning step (sides,\n"
          "               refine, boxes, coalesce, kernels) to stderr; so does\n"
          "               LAY_DEBUG_PLAN=1\n"
          "  --help       this text (lay COMMAND --help: the command's)\n"
          "  --version    print the version\n"
          "\n"
          "A FORMAT is a layout name with optional arguments:\n"
          "  amd.hcwnc4   qnn.crouton   'ti.tidl(pad_l=1,pad_r=1)'\n"
          "lay list shows them all, lay describe NAME explains one.\n");
}

/* usage, what it does, its options, then its examples. */
static void cmd_help(const command *c) {
  const char *ex = strstr(c->help, "Example");
  int n = ex ? (int)(ex - c->help) : (int)strlen(c->help);
  printf("usage: lay %s\n\n%.*s", c->usage, n, c->help);
  printf("Options:\n");
  for (size_t i = 0; i < sizeof option_help / sizeof *option_help; i++)
    if (c->opts & option_help[i].bit) printf("%s", option_help[i].text);
  printf("  --help         this text\n%s", ex ? ex : "");
}

/* `lay COMMAND --help` for a command that parses its own arguments: 1
** when argv (after the command word, up to a "--") asks for help. */
static int own_help(const char *name, int argc, char **argv) {
  for (size_t k = 0; k < NOWN; k++) {
    if (strcmp(own_commands[k].name, name)) continue;
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
      if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
        printf("usage: lay %s\n\n%s", own_commands[k].usage,
               own_commands[k].help);
        return 1;
      }
  }
  return 0;
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
  const own_command *own; /* `lay help draw`: the command to explain */
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
  if (o->bit == O_DEBUG) { /* any command that makes plans */
    if (eq) return cli_usage("option '%s' takes no value", o->name);
    cli_set_debug_plan(1);
    return -1;
  }
  if (cl->cmd && !(cl->cmd->opts & o->bit))
    return cli_usage("%s: option '%s' does not apply", cl->cmd->name,
                     o->name);
  if (o->bit & FLAG_OPTS) { /* no value */
    if (eq) return cli_usage("option '%s' takes no value", o->name);
    if (cl->seen & o->bit)
      return cli_usage("option '%s' is given twice", o->name);
    cl->seen |= o->bit;
    if (o->bit == O_JSON) cl->a.json = 1;
    if (o->bit == O_ELEMENTS) cl->a.elements = 1;
    if (o->bit == O_NPY) cl->a.npy = "1"; /* .npy hook */
    if (o->bit == O_FORCE) cli_set_force(cl->a.force = 1);
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
  /* A repeated option is a mistake, not "the last one wins" (-f adds). */
  if (o->bit != O_F && *(const char **)((char *)&cl->a + o->field))
    return cli_usage("option '%s' is given twice", o->name);
  cl->seen |= o->bit;
  if (o->bit == O_F) cl->a.files[cl->a.nfiles++] = val;
  else *(const char **)((char *)&cl->a + o->field) = val;
  return -1;
}

/* The commands that parse their own arguments (argv[0] is the command):
** draw, repl, hsi, kneron, tidl, export. Returns the exit code, or -1 when `name` is
** none of them. */
static int run_own_args(const char *name, const cli_args *a, int argc,
                        char **argv) {
  if (own_help(name, argc, argv)) return CLI_OK;
  if (!strcmp(name, "hsi")) return cli_hsi(argc, argv);
  if (!strcmp(name, "kneron")) return cli_kneron(argc, argv);
  if (!strcmp(name, "tidl")) return cli_tidl(argc, argv);
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

/* pack or unpack --hsi FILE|DIR [--input K|--output K] [--frame K], or
** --all DIR. */
static int run_hsi_move(const command *cmd, const cli_args *a, int seen) {
  if (!a->hsi)
    return cli_usage("%s: --%s is only used with --hsi", cmd->name,
                     a->input ? "input" : a->output ? "output"
                     : a->frame ? "frame" : "all");
  if (a->input && a->output)
    return cli_usage("%s --hsi: give one of --input K and --output K",
                     cmd->name);
  if (a->npos)
    return cli_usage("%s --hsi: unexpected argument '%s'", cmd->name,
                     a->pos[0]);
  if (seen & (O_SHAPE | O_DTYPE))
    return cli_usage("%s --hsi: the shape and dtype come from the report",
                     cmd->name);
  if (!a->all && cli_binary_tty(a->in, a->out, 1, 1)) return CLI_FAIL;
  lay_ctx *ctx = cli_context(a);
  int rc = ctx ? cli_hsi_run(!strcmp(cmd->name, "pack"), a, ctx) : CLI_FAIL;
  lay_ctx_free(ctx);
  return rc;
}

/* The positional arguments and required options of `cmd`: 0 when they are
** all there, else the usage error's exit code. */
static int check_args(const command *cmd, const cli_args *a, int seen) {
  /* .npy hook: pack -i NAME.npy takes the shape from the file's header. */
  if (!strcmp(cmd->name, "pack") && cli_npy_name(a->in)) seen |= O_SHAPE & cmd->need;
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
    if (cl->help && !cl->own) {
      for (size_t k = 0; k < NOWN; k++)
        if (!strcmp(own_commands[k].name, arg)) cl->own = &own_commands[k];
      if (cl->own) continue;
    }
    for (size_t k = 0; k < NCOMMANDS; k++)
      if (!strcmp(commands[k].name, arg)) cl->cmd = &commands[k];
    if (!cl->cmd) {
      char hint[256];
      cli_suggest sg;
      cli_suggest_init(&sg, arg);
      for (size_t k = 0; k < NCOMMANDS; k++)
        cli_suggest_add(&sg, commands[k].name);
      for (size_t k = 0; k < NOWN; k++)
        cli_suggest_add(&sg, own_commands[k].name);
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
    else if (cl->own) printf("usage: lay %s\n\n%s", cl->own->usage,
                             cl->own->help);
    else main_help(stdout);
    return CLI_OK;
  }
  if (!cl->cmd) return cli_usage("no command given");
  if (cl->seen & O_KNERON)
    return cli_kneron_cmd(a, cl->cmd->name, (cl->seen & O_HSI) != 0,
                          (cl->seen & O_SHAPE) != 0);
  if ((cl->seen & O_HSI) && a->tidl)
    return cli_tidl_move(a, cl->seen & (O_SHAPE | O_DTYPE));
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
