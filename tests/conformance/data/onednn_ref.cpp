// tests/conformance/data/onednn_ref.cpp: how onednn_*.bin were made: oneDNN's own reorder of an iota u8 tensor into blocked tags
// (not built by CMake; g++ onednn_ref.cpp -ldnnl && ./a.out, with libdnnl-dev 2.x)
#include <dnnl.hpp>
#include <cstdio>
#include <cstring>
#include <vector>
using namespace dnnl;
using tag = memory::format_tag;
static void one(engine &e, stream &s, const char *name, memory::dims d, tag plain, tag blk) {
  memory::desc sd(d, memory::data_type::u8, plain), dd(d, memory::data_type::u8, blk);
  size_t n = sd.get_size(), m = dd.get_size();
  std::vector<unsigned char> x(n), y(m, 0x5a);
  for (size_t i = 0; i < n; i++) x[i] = (unsigned char)i;
  memory sm(sd, e, x.data()), dm(dd, e, y.data());
  reorder(sm, dm).execute(s, sm, dm);
  s.wait();
  char fn[128]; snprintf(fn, sizeof fn, "onednn_%s.bin", name);
  FILE *f = fopen(fn, "wb"); fwrite(y.data(), 1, m, f); fclose(f);
  size_t pad5a = 0; for (auto c : y) pad5a += c == 0x5a;
  printf("%s: %zu -> %zu bytes (0x5a bytes left: %zu)\n", name, n, m, pad5a);
}
int main() {
  engine e(engine::kind::cpu, 0); stream s(e);
  one(e, s, "nChw8c", {2, 11, 3, 5}, tag::abcd, tag::nChw8c);
  one(e, s, "nChw16c", {1, 19, 2, 3}, tag::abcd, tag::nChw16c);
  one(e, s, "nCdhw16c", {1, 17, 2, 2, 3}, tag::abcde, tag::nCdhw16c);
  one(e, s, "OIhw16i16o", {17, 19, 1, 2}, tag::abcd, tag::OIhw16i16o);
  one(e, s, "OIhw4i16o4i", {18, 21, 1, 2}, tag::abcd, tag::OIhw4i16o4i);
  one(e, s, "gOIhw16i16o", {2, 17, 5, 1, 2}, tag::abcde, tag::gOIhw16i16o);
  one(e, s, "ABcd8b8a", {9, 10, 2, 3}, tag::abcd, tag::ABcd8b8a);
  return 0;
}
