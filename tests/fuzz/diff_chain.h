/*
** diff_chain.h: the transform-chain differential check (diff_chain.c),
** run by fuzz_diff.c for inputs that start with "TC".
*/
#ifndef FZ_DIFF_CHAIN_H
#define FZ_DIFF_CHAIN_H
#include <stddef.h>
#include <stdint.h>
int fz_chain_one(const uint8_t *data, size_t size);
/* Cases so far: [0] packed and compared byte for byte, [1] refused as
** LANGUAGE.md says, [2] with a pad stored, [3] with a value op, [4] with
** a per-channel quantize, [5] with several value ops, [6] whose stored pads hold
** different values (counted in [0] too). */
extern long fz_chain_count[7];
/* Layout-form cases checked to the end by fuzz_diff.c. */
extern long fz_layout_count;
#endif
