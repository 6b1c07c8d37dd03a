/*
** tidl.h: TI TIDL's io_1.bin, read into lay (internal; the public API is
** the lay_tidl_* block of lay.h).
**
** The file is the raw sTIDL_IOBufDesc_t that every TIDL compile writes
** (no header; little-endian int32 and float32 fields in declaration order;
** one array per field, indexed by tensor). Its size tells the version:
**
**   SDK 08.06        37256  arrays [32] in, [32] out
**   SDK 09, 1 core   93976  arrays [cores*32] in, [cores*128] out, plus
**   SDK 09, 2 cores 187928    numCores, numVirtualCores, numSuperBatches,
**   SDK 09, 4 cores 375832    inferenceMode, DIM1/DIM2, numValidTensorDims
**   SDK 10          378392  itidl_io.h: 4 cores fixed, inBufSize/outBufSize
**
** and, after any of them, the multi-subgraph container TIDL-RT accepts:
** u32 magic, u32 count n, n entries {u32 offset, u32 size, 2 reserved},
** then the n subgraphs' own structs (the tensors are the first, combined
** struct's). The magic number's value is not in TI's public headers we
** could read, so the container is recognized by its structure: the count,
** every size equal to the struct's, every offset as TIDL-RT adds them
** (the first is the header's size, each next one the previous size), and
** the file's exact length. Any other size is rejected. The field tables
** are in tidl.c.
*/
#ifndef LI_TIDL_H
#define LI_TIDL_H

#include <stddef.h>

#include "lay.h"

/* The struct sizes of the versions lay reads (see above). */
#define LI_TIDL_SIZE_0806 37256u
#define LI_TIDL_SIZE_09_1 93976u
#define LI_TIDL_SIZE_09_2 187928u
#define LI_TIDL_SIZE_09_4 375832u
#define LI_TIDL_SIZE_10 378392u
/* The largest file read: a container of 64 subgraphs of the largest
** struct. */
#define LI_TIDL_MAX_SUBGRAPHS 64
#define LI_TIDL_MAX_FILE \
  ((size_t)LI_TIDL_SIZE_10 * (LI_TIDL_MAX_SUBGRAPHS + 1) + 8 + \
   16 * LI_TIDL_MAX_SUBGRAPHS)

#endif /* LI_TIDL_H */
