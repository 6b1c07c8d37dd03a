/* tests/bench/dnnl_md.h: what lay_bench (bench.c) and lay_sweep (sweep.c)
 * share of oneDNN 2.x: the error check, and a blocked memory descriptor
 * written field by field (the 2.x API allows it), which is how both
 * express a vendor layout exactly. Include only with LAY_BENCH_DNNL. */
#ifndef LAY_BENCH_DNNL_MD_H
#define LAY_BENCH_DNNL_MD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#define DNNL_OK(x)                                                       \
  do {                                                                   \
    dnnl_status_t st_ = (x);                                             \
    if (st_ != dnnl_success) {                                           \
      fprintf(stderr, "oneDNN error %d at %s:%d: %s\n", (int)st_,        \
              __FILE__, __LINE__, #x);                                   \
      exit(3);                                                           \
    }                                                                    \
  } while (0)

/* dims, padded dims and outer strides per logical dim; inner blocks
 * (outermost first) of sizes blks[] on dims idxs[]; offset0 in elements. */
static inline dnnl_memory_desc_t dnnl_md_blocked(int ndims, const int64_t *dims,
                                                 const int64_t *pdims,
                                                 dnnl_data_type_t dt,
                                                 const int64_t *strides, int nblks,
                                                 const int64_t *blks,
                                                 const int64_t *idxs, int64_t off0) {
  dnnl_memory_desc_t md;
  memset(&md, 0, sizeof md);
  md.ndims = ndims;
  for (int d = 0; d < ndims; ++d) {
    md.dims[d] = dims[d];
    md.padded_dims[d] = pdims[d];
    md.format_desc.blocking.strides[d] = strides[d];
  }
  md.data_type = dt;
  md.offset0 = off0;
  md.format_kind = dnnl_blocked;
  md.format_desc.blocking.inner_nblks = nblks;
  for (int i = 0; i < nblks; ++i) {
    md.format_desc.blocking.inner_blks[i] = blks[i];
    md.format_desc.blocking.inner_idxs[i] = idxs[i];
  }
  return md;
}

#endif
