/*
** kneron_ref.c: an independent reference for `lay pack/unpack --kneron`,
** written from Kneron's description of the SDK's conversion ("Convert
** ONNX & NPU Data on the KL730 Platform": the index is the inner product
** of the ONNX index with stride_npu; outer channel groups add
** (c >> 4) * (G - 16), G the largest shape * stride_npu of the other
** axes; high/low formats put element e at (e / 16) * 32 + e % 16, the
** high byte 16 further, low = (u >> 1) & 0x7f, high = (u >> 8) & 0xff)
** and the SDK's arithmetic in float32: factor = f32(2^radix * scale),
** q = round_half_even(f32(x * factor)) clamped to [-128, 127] or
** [-32768, 32766], x = f32(q) / factor; 16-bit words are u & 0xfffe.
** Per channel it applies descriptor k to index k of the quantized axis
** (lay's ruling; the SDK's helper uses blocks of N*H*W elements). It
** shares no code with lay.
**
**   kneron_ref gen COUNT SEED OUT
**       COUNT float32 values k / 8, |k| <= 1000, into OUT
**   kneron_ref pack|unpack|packfix|unpackfix LAYOUT SHAPE STRIDES
**              SCALES RADIXES QAXIS IN OUT
**       LAYOUT as the SDK names it (1W16C8B, RAW_16B, ...); SHAPE,
**       STRIDES (stride_npu), SCALES, RADIXES: comma-separated lists.
**       pack reads fp32 ONNX data and writes the NPU buffer; unpack the
**       reverse; packfix/unpackfix take the NPU's integers (int8 or
**       int16) instead of fp32.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S8, SHL, SW16, SF32 };

static int parse_list(const char *s, double *v, int cap) {
  int n = 0;
  while (*s && n < cap) {
    char *e;
    v[n++] = strtod(s, &e);
    if (e == s) return -1;
    s = *e == ',' ? e + 1 : e;
  }
  return n;
}

static void *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *b = malloc((size_t)n + 1);
  *len = fread(b, 1, (size_t)n, f);
  fclose(f);
  return b;
}

static int spit(const char *path, const void *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int bad = fwrite(b, 1, n, f) != n;
  return fclose(f) || bad ? -1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "gen")) {
    long n = atol(argv[2]);
    uint32_t r = (uint32_t)atol(argv[3]) * 2654435761u + 1;
    float *x = malloc(sizeof(float) * (size_t)n);
    for (long i = 0; i < n; i++) {
      r = r * 1103515245u + 12345u;
      x[i] = (float)((int)(r >> 8) % 2001 - 1000) / 8;
    }
    int rc = spit(argv[4], x, sizeof(float) * (size_t)n) ? 1 : 0;
    free(x);
    return rc;
  }
  if (argc != 10) {
    fprintf(stderr, "usage: see kneron_ref.c\n");
    return 2;
  }
  const char *mode = argv[1], *lay = argv[2];
  int pack = !strncmp(mode, "pack", 4), fix = strstr(mode, "fix") != NULL;
  int store = !strcmp(lay, "RAW_FLOAT") ? SF32
              : strstr(lay, "HL")       ? SHL
              : !strcmp(lay, "8W1C16B") || !strcmp(lay, "RAW_16B") ? SW16
                                                                   : S8;
  int group = !strcmp(lay, "1W16C8B") || !strcmp(lay, "1W16C8BHL");
  double shp[8], str[8], sc[4096], rx[4096];
  int rank = parse_list(argv[3], shp, 8);
  if (parse_list(argv[4], str, 8) != rank) return 2;
  int nq = parse_list(argv[5], sc, 4096);
  if (parse_list(argv[6], rx, 4096) != nq) return 2;
  int qaxis = atoi(argv[7]);
  int64_t shape[8], stride[8], numel = 1;
  for (int d = 0; d < rank; d++) {
    shape[d] = (int64_t)shp[d];
    stride[d] = (int64_t)str[d];
    numel *= shape[d];
  }
  /* the buffer size and the channel group stride */
  int ch = -1;
  int64_t g = 0, size;
  if (group) {
    for (int d = 0; d < rank; d++) {
      if (stride[d] == 1) {
        ch = d;
        continue;
      }
      if (stride[d] * shape[d] > g) g = stride[d] * shape[d];
    }
    size = (shape[ch] + 15) / 16 * g;
  } else {
    int64_t mx = 0;
    int at = 0;
    for (int d = 0; d < rank; d++)
      if (stride[d] > mx) mx = stride[d], at = d;
    size = shape[at] * mx;
  }
  int64_t bytes = size * (store == S8 ? 1 : store == SF32 ? 4 : 2);
  size_t inlen;
  uint8_t *in = slurp(argv[8], &inlen);
  if (!in) return 1;
  uint8_t *npu = calloc((size_t)bytes, 1);
  size_t cpu_es = fix ? (store == S8 ? 1 : 2) : 4;
  uint8_t *cpu = calloc((size_t)numel, cpu_es);
  if ((pack && (int64_t)inlen != numel * (int64_t)cpu_es) ||
      (!pack && (int64_t)inlen != bytes)) {
    free(in);
    free(npu);
    free(cpu);
    return 3;
  }
  if (pack) memcpy(cpu, in, inlen);
  else memcpy(npu, in, inlen);
  int64_t idx[8] = {0};
  for (int64_t i = 0; i < numel; i++) {
    int64_t r = i;
    for (int d = rank - 1; d >= 0; d--) idx[d] = r % shape[d], r /= shape[d];
    int64_t e = 0;
    for (int d = 0; d < rank; d++) e += idx[d] * stride[d];
    if (group) e += (idx[ch] >> 4) * (g - 16);
    int k = nq > 1 ? (int)idx[qaxis] : 0;
    volatile float factor = powf(2.0f, (float)rx[k]) * (float)sc[k];
    if (store == SF32) {
      if (pack) memcpy(npu + 4 * e, cpu + 4 * i, 4);
      else memcpy(cpu + 4 * i, npu + 4 * e, 4);
      continue;
    }
    if (pack) {
      int q;
      if (fix) {
        q = store == S8 ? (int8_t)cpu[i] : (int16_t)(cpu[2 * i] | cpu[2 * i + 1] << 8);
      } else {
        float x;
        memcpy(&x, cpu + 4 * i, 4);
        volatile float p = x * factor;
        float qf = nearbyintf(p);
        float lo = store == S8 ? -128.0f : -32768.0f;
        float hi = store == S8 ? 127.0f : 32766.0f;
        q = (int)(qf < lo ? lo : qf > hi ? hi : qf);
      }
      uint16_t u = (uint16_t)(int16_t)q;
      if (store == S8) npu[e] = (uint8_t)q;
      else if (store == SW16) {
        npu[2 * e] = (uint8_t)(u & 0xfe);
        npu[2 * e + 1] = (uint8_t)(u >> 8);
      } else {
        int64_t b = (e >> 4 << 5) + (e & 15);
        npu[b] = (uint8_t)((u >> 1) & 0x7f);
        npu[b + 16] = (uint8_t)((u >> 8) & 0xff);
      }
    } else {
      int q;
      if (store == S8) q = (int8_t)npu[e];
      else if (store == SW16) q = (int16_t)((npu[2 * e] & 0xfe) | npu[2 * e + 1] << 8);
      else {
        int64_t b = (e >> 4 << 5) + (e & 15);
        q = (int16_t)(uint16_t)(((npu[b] & 0x7f) + (npu[b + 16] << 7)) << 1);
      }
      if (fix) {
        if (store == S8) cpu[i] = (uint8_t)q;
        else cpu[2 * i] = (uint8_t)q, cpu[2 * i + 1] = (uint8_t)((uint16_t)q >> 8);
      } else {
        volatile float x = (float)q / factor;
        float xv = x;
        memcpy(cpu + 4 * i, &xv, 4);
      }
    }
  }
  int rc = pack ? spit(argv[9], npu, (size_t)bytes)
                : spit(argv[9], cpu, (size_t)numel * cpu_es);
  free(in);
  free(npu);
  free(cpu);
  return rc ? 1 : 0;
}
