/*
** kernels.h: the registry of the executor's kernels, one X-macro table.
**
** A kernel runs the innermost loops of a box (plan_int.h li_box) for one
** step of the odometer over the box's outer loops. Each row of the table:
**
**   X(ID, name, loops, what)
**     ID     the enum value LI_K_ID (plan_int.h li_kern) and the step
**            function step_ID that runs it (exec.c)
**     name   what lay_plan_describe (`lay info`) and the plan log print
**     loops  the innermost loops it takes: min(loops, the box's loops)
**     what   one line on what it does
**
** From this table come the li_kern enum, the names (li_kern_name), the
** loop count (li_kern_loops) and li_exec_box's dispatch switch. The
** planner chooses a kernel for each box (plan/loops.c li_choose_kernel)
** and gives a kernel only to boxes with enough loops for it; ROWS takes 3
** loops where the box has them, else 2, and CONV 3, 2 or 1; PLANES (255)
** takes every loop of the box, one step a box part. The order of
** the rows is the order of the enum values, which nothing depends on.
*/
#ifndef LI_KERNELS_H
#define LI_KERNELS_H

#define LI_KERNELS(X)                                                        \
  X(MEMCPY, "memcpy", 1, "a contiguous run on both sides")                   \
  X(COPY, "strided copy", 1, "a strided element copy")                       \
  X(ILV, "interleave", 2,                                                    \
    "planes interleaved into blocks of bk & 255 units (2-16 bytes; a "      \
    "unit bk >> 8 elements, 0: one), pads among them, the rest of the "     \
    "next two loops in the same call")                                       \
  X(DEILV, "deinterleave", 2,                                               \
    "blocks of bk & 255 units (2-16 bytes; a unit bk >> 8 elements, 0: "    \
    "one) split into planes, the rest of the next two loops in the same "   \
    "call (the inverse of ILV)")                                             \
  X(ILV2, "interleave through a tile", 3,                                    \
    "ILV over two loops: a tile's rows to their destination rows (bk 8) "    \
    "or through a stack tile")                                               \
  X(DEILV2, "deinterleave through a tile", 3,                                \
    "blocks of bk bytes into planes, read as a tile's rows (bk 8) or "       \
    "through a stack tile")                                                  \
  X(EXPAND, "expand", 2,                                                     \
    "1-byte rows of k back to back into rows of bk with pads (RGB->RGBX)")   \
  X(CONV_ILV, "convert + interleave", 2,                                     \
    "each plane's run converted, then interleaved (1-byte destination)")     \
  X(ROWS, "row copy", 3,                                                     \
    "rows of bk contiguous bytes over 2 or 3 loops, their pads with them")   \
  X(BLOCK, "block copy", 2,                                                  \
    "an n x k block, destination stride 1 inside (k unrolled for "           \
    "2/3/4/8/16/32, else bk 0), row pads")                                   \
  X(CONV, "convert", 3,                                                      \
    "a value conversion through stack tiles of whole rows (1 to 3 loops)")   \
  X(TABLE, "table gather", 1, "a gather table's runs (plan_int.h li_gather)") \
  X(MEMSET, "memset", 1, "a fill: contiguous, one byte value")               \
  X(FILL, "fill", 1, "a fill: strided, or a multi-byte pattern")             \
  X(PADCONV, "converted pad per channel", 1,                                 \
    "a fill with the source's pad converted per channel")                    \
  X(SPLIT2, "split into 2 byte planes", 3,                                   \
    "2-byte elements split into 2 byte planes, k <= 16 a row, rows over "    \
    "2 loops (planes.c: K x 16 byte transposes in registers)")                                                           \
  X(PLANES, "byte planes", 255,                                             \
    "the whole box between a side with byte planes and one without: "       \
    "tiles of K rows x 16 columns split or combined and transposed in "     \
    "registers (the pair of 16-bit bits: both planes a register, AVX2), "   \
    "value rules on runs through L1, pad rows (bk: rows written, pat) "     \
    "with the data (planes.c)")                                             \
  X(DONE, "written with its data", 1,                                       \
    "a fill whose bytes a PLANES box writes as the pad rows of its tiles "  \
    "(planes.c li_planes_absorb): nothing to run")                          \
  X(TR, "transpose", 2,                                                     \
    "the two innermost loops, one contiguous in the source, the other in "   \
    "the destination, as one 2-D transposition (tr.c li_tr2d); elements "   \
    "may be groups of bk contiguous ones (HCWNC4 -> HCWNC8)")                \
  X(TRG, "gather tile", 1,                                                  \
    "a transposition whose destination side is a table of T source rows "    \
    "(pads among them) and groups of destination offsets (li_trg); 2, 4 "   \
    "or 8 rows interleaved when the run writes them back to back")           \
  X(TRC, "transpose by a column table", 1,                                 \
    "a transposition whose T source-contiguous columns span two "          \
    "destination loops (HCWNC4's channels of several images): B's rows "   \
    "from a table (li_trg grp), the innermost loop A's rows (tr.c)")        \
  X(MTILE, "macro tile", 1,                                                 \
    "the box's innermost digits as one register tile (li_mtile): 16-byte "  \
    "chunks from a table, the perfect shuffle, chunks to a table, over "    \
    "up to three loops of its own (exec/mtile.c)")                          \
  X(VSLAB, "convert a slab, then move", 1,                                   \
    "a value rule as one pass over L1: each step a slab of CPU-side runs "  \
    "converted into a buffer and moved by the hardware elements' data "      \
    "kernel (or moved, then converted); plan_int.h li_slab")                 \
  X(DIMTAB, "element copy through offset pairs", 1,                          \
    "the innermost loop is a table loop: one element per (source, "          \
    "destination) offset pair")

#endif /* LI_KERNELS_H */
