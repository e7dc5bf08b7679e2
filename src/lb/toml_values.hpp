#pragma once
// TOML values both ways for the case-file keys (internal header): a
// setting as TOML text (the reference's defaults, which thus come from
// LbConfig's initialisers alone and parse back to them), and a node read as
// a value of the expected type, with a message naming the key otherwise.
#include <toml++/toml.h>

#include <array>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "config_keys.hpp"
#include "haloex/core/mpi_hints.hpp"
#include "haloex/lb/config.hpp"

namespace haloex::lb::detail {

// A setting as TOML text, for the reference's defaults (which thus come
// from LbConfig's initialisers alone and parse back to them).
inline std::string toml_text(const std::string& s) { return "\"" + s + "\""; }
inline std::string toml_text(bool b) { return b ? "true" : "false"; }
inline std::string toml_text(long v) { return std::to_string(v); }
inline std::string toml_text(int v) { return std::to_string(v); }
inline std::string toml_text(double v) {
  std::ostringstream os;
  os << std::setprecision(17) << v;
  std::string t = os.str();
  // The shortest text that reads back to v (3/16 is 0.1875, not 0.18750000000000000).
  for (int p = 1; p <= 17; ++p) {
    std::ostringstream q;
    q << std::setprecision(p) << v;
    if (std::stod(q.str()) == v) return q.str();
  }
  return t;
}
inline std::string toml_text(Layout l) { return toml_text(to_string(l)); }
inline std::string toml_text(FieldMemory m) { return toml_text(to_string(m)); }
inline std::string toml_text(const IoHints& h) { return toml_text(io_hints_text(h)); }
template <Choice E>
inline std::string toml_text(E e) {
  return toml_text(to_string(e));
}
template <class T>
inline std::string toml_text(const std::vector<T>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + toml_text(v[i]);
  return s + "]";
}
template <class T, size_t N>
inline std::string toml_text(const std::array<T, N>& a) {
  return toml_text(std::vector<T>(a.begin(), a.end()));
}

// The `show` of a key that is one member of LbConfig.
template <class M>
std::function<std::string(const LbConfig&)> shown(M LbConfig::*member) {
  return [member](const LbConfig& c) { return toml_text(c.*member); };
}

inline double as_double(const toml::node& n, const std::string& where) {
  if (auto v = n.value<double>()) return *v;
  bad(where, "expected a number");
}

inline long as_long(const toml::node& n, const std::string& where) {
  if (n.is_integer()) return static_cast<long>(*n.value<int64_t>());
  bad(where, "expected an integer");
}

// An integer that fits an int (process and I/O grids, counts): a larger one
// is refused, not wrapped (4294967297 would otherwise read as 1).
inline int as_int(const toml::node& n, const std::string& where) {
  const long v = as_long(n, where);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    bad(where, "expected an integer of at most " + std::to_string(std::numeric_limits<int>::max()) +
                   ", got " + std::to_string(v));
  return static_cast<int>(v);
}

inline bool as_bool(const toml::node& n, const std::string& where) {
  if (n.is_boolean()) return *n.value<bool>();
  bad(where, "expected true or false");
}

inline std::string as_string(const toml::node& n, const std::string& where) {
  if (n.is_string()) return *n.value<std::string>();
  bad(where, "expected a string");
}

template <class T, class F>
std::array<T, 3> as_triple(const toml::node& n, const std::string& where, F element, T fill,
                           size_t min_len = 1) {
  const toml::array* a = n.as_array();
  if (!a || a->size() < min_len || a->size() > 3)
    bad(where, "expected an array of " + std::string(min_len == 3 ? "3" : "1 to 3") + " values");
  std::array<T, 3> out{fill, fill, fill};
  for (size_t i = 0; i < a->size(); ++i) out[i] = element(*a->get(i), where + "[" + std::to_string(i) + "]");
  return out;
}

inline std::vector<std::string> as_strings(const toml::node& n, const std::string& where) {
  const toml::array* a = n.as_array();
  if (!a) bad(where, "expected an array of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < a->size(); ++i)
    out.push_back(as_string(*a->get(i), where + "[" + std::to_string(i) + "]"));
  return out;
}

inline std::array<int, 3> as_grid(const toml::node& n, const std::string& where) {
  return as_triple<int>(
      n, where, [](const toml::node& e, const std::string& x) { return as_int(e, x); }, 1);
}

inline Obstacle read_obstacle(const toml::table& t, const std::string& where) {
  Obstacle o;
  for (auto&& [k, v] : t) {
    const std::string key(k.str()), w = where + "." + key;
    if (key == "shape")
      o.shape = as_string(v, w);
    else if (key == "center")
      o.center = as_triple<double>(v, w, as_double, 0.0, 2);
    else if (key == "radius")
      o.radius = as_double(v, w);
    else if (key == "axis") {
      const std::string a = as_string(v, w);
      if (a != "x" && a != "y" && a != "z") bad(w, "expected \"x\", \"y\" or \"z\", got \"" + a + "\"");
      o.axis = a[0] - 'x';
    } else if (key == "lo")
      o.lo = as_triple<long>(v, w, as_long, 0L, 2);
    else if (key == "hi")
      o.hi = as_triple<long>(v, w, as_long, 1L, 2);
    else
      bad(w, "unknown key (valid: shape, center, radius, axis, lo, hi)");
  }
  if (o.shape != "sphere" && o.shape != "cylinder" && o.shape != "box")
    bad(where + ".shape", "expected \"sphere\", \"cylinder\" or \"box\", got \"" + o.shape + "\"");
  if ((o.shape == "sphere" || o.shape == "cylinder") && !(o.radius > 0))
    bad(where + ".radius", "must be > 0");
  return o;
}

}  // namespace haloex::lb::detail
