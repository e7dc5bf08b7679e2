#include "haloex/grid/box.hpp"

#include "haloex/core/error.hpp"

namespace haloex {

std::vector<Offset> neighbour_offsets(int ndim) {
  std::vector<Offset> out;
  const int r2 = ndim > 2 ? 1 : 0;
  const int r1 = ndim > 1 ? 1 : 0;
  for (int a = -1; a <= 1; ++a)
    for (int b = -r1; b <= r1; ++b)
      for (int c = -r2; c <= r2; ++c)
        if (a != 0 || b != 0 || c != 0) out.push_back({a, b, c});
  return out;
}

std::string offset_name(const Offset& o) {
  static const char axis[] = {'x', 'y', 'z'};
  std::string s;
  for (int d = 0; d < max_dims; ++d)
    if (o[d] != 0) {
      s += axis[d];
      s += o[d] > 0 ? '+' : '-';
    }
  return s.empty() ? "self" : s;
}

Offset offset_from_name(const std::string& name) {
  Offset o{0, 0, 0};
  if (name.empty() || name.size() % 2 != 0)
    throw InputError("neighbour name '" + name + "' is not of the form x+, x-y+, x+y-z+");
  int last = -1;
  for (size_t p = 0; p < name.size(); p += 2) {
    const int d = name[p] - 'x';
    const char s = name[p + 1];
    if (d < 0 || d >= max_dims || d <= last || (s != '+' && s != '-'))
      throw InputError("neighbour name '" + name + "' is not of the form x+, x-y+, x+y-z+");
    o[d] = s == '+' ? 1 : -1;
    last = d;
  }
  return o;
}

std::string offset_code(const Offset& o, int ndim) {
  std::string s;
  for (int d = 0; d < ndim; ++d) s += o[d] < 0 ? 'N' : (o[d] > 0 ? 'P' : 'M');
  return s;
}

}  // namespace haloex
