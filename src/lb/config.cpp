#include "haloex/lb/config.hpp"

#include "haloex/core/mpi_hints.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include "haloex/core/paths.hpp"
#include "haloex/grid/box.hpp"
#include "haloex/lb/velocity_set.hpp"

namespace haloex::lb {

namespace {

// A setting as TOML text, for the reference's defaults (which thus come
// from LbConfig's initialisers alone and parse back to them).
std::string toml_text(const std::string& s) { return "\"" + s + "\""; }
std::string toml_text(bool b) { return b ? "true" : "false"; }
std::string toml_text(long v) { return std::to_string(v); }
std::string toml_text(int v) { return std::to_string(v); }
std::string toml_text(double v) {
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
std::string toml_text(Layout l) { return toml_text(to_string(l)); }
std::string toml_text(FieldMemory m) { return toml_text(to_string(m)); }
std::string toml_text(const IoHints& h) { return toml_text(io_hints_text(h)); }
template <Choice E>
std::string toml_text(E e) {
  return toml_text(to_string(e));
}
template <class T>
std::string toml_text(const std::vector<T>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + toml_text(v[i]);
  return s + "]";
}
template <class T, size_t N>
std::string toml_text(const std::array<T, N>& a) {
  return toml_text(std::vector<T>(a.begin(), a.end()));
}

// One documented key: how to read it into the config and how to show its
// value (empty for keys without a single default, such as obstacles).
struct Key {
  const char* name;
  const char* doc;
  std::function<void(const toml::node&, LbConfig&, const std::string& where)> read;
  std::function<std::string(const LbConfig&)> show{};
};

// The `show` of a key that is one member of LbConfig.
template <class M>
std::function<std::string(const LbConfig&)> shown(M LbConfig::*member) {
  return [member](const LbConfig& c) { return toml_text(c.*member); };
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

// The result of a parser from another layer, whose message names the value
// but not the key it came from.
template <class F>
auto keyed(const std::string& where, F parse) {
  try {
    return parse();
  } catch (const InputError& e) {
    bad(where, e.what());
  }
}

double as_double(const toml::node& n, const std::string& where) {
  if (auto v = n.value<double>()) return *v;
  bad(where, "expected a number");
}

long as_long(const toml::node& n, const std::string& where) {
  if (n.is_integer()) return static_cast<long>(*n.value<int64_t>());
  bad(where, "expected an integer");
}

// An integer that fits an int (process and I/O grids, counts): a larger one
// is refused, not wrapped (4294967297 would otherwise read as 1).
int as_int(const toml::node& n, const std::string& where) {
  const long v = as_long(n, where);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    bad(where, "expected an integer of at most " + std::to_string(std::numeric_limits<int>::max()) +
                   ", got " + std::to_string(v));
  return static_cast<int>(v);
}

bool as_bool(const toml::node& n, const std::string& where) {
  if (n.is_boolean()) return *n.value<bool>();
  bad(where, "expected true or false");
}

std::string as_string(const toml::node& n, const std::string& where) {
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

std::vector<std::string> as_strings(const toml::node& n, const std::string& where) {
  const toml::array* a = n.as_array();
  if (!a) bad(where, "expected an array of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < a->size(); ++i)
    out.push_back(as_string(*a->get(i), where + "[" + std::to_string(i) + "]"));
  return out;
}

std::array<int, 3> as_grid(const toml::node& n, const std::string& where) {
  return as_triple<int>(
      n, where, [](const toml::node& e, const std::string& x) { return as_int(e, x); }, 1);
}

Obstacle read_obstacle(const toml::table& t, const std::string& where) {
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

const std::map<std::string, std::vector<Key>>& keys() {
  static const std::map<std::string, std::vector<Key>> k = {
      {"lattice",
       {{"velocity_set", "D2Q9, D3Q15, D3Q19 or D3Q27",
         [](auto& n, auto& c, auto& w) { c.velocity_set = as_string(n, w); }, shown(&LbConfig::velocity_set)},
        {"size", "global lattice sites per dimension, e.g. [64, 64, 64] (2 values for D2Q9)",
         [](auto& n, auto& c, auto& w) { c.size = as_triple<long>(n, w, as_long, 1L); },
         shown(&LbConfig::size)},
        {"periodic", "periodicity per dimension; faces of non-periodic ones are bounce-back walls",
         [](auto& n, auto& c, auto& w) { c.periodic = as_triple<bool>(n, w, as_bool, true); },
         shown(&LbConfig::periodic)},
        {"procs", "process grid, 0 = chosen by MPI_Dims_create",
         [](auto& n, auto& c, auto& w) {
           c.procs = as_triple<int>(
               n, w, [](const toml::node& e, const std::string& x) { return as_int(e, x); }, 0);
         },
         shown(&LbConfig::procs)}}},
      {"physics",
       {{"collision", "bgk or trt",
         [](auto& n, auto& c, auto& w) { c.collision = parse_choice<Collision>(as_string(n, w), w); },
         shown(&LbConfig::collision)},
        {"tau", "relaxation time (> 1/2); viscosity = (tau - 1/2) / 3",
         [](auto& n, auto& c, auto& w) { c.tau = as_double(n, w); }, shown(&LbConfig::tau)},
        {"magic", "TRT magic parameter Lambda (3/16: exact half-way walls)",
         [](auto& n, auto& c, auto& w) { c.magic = as_double(n, w); }, shown(&LbConfig::magic)},
        {"force", "body force per unit volume (Guo forcing), e.g. [1e-6, 0, 0]",
         [](auto& n, auto& c, auto& w) { c.force = as_triple<double>(n, w, as_double, 0.0); },
         shown(&LbConfig::force)},
        {"rho0", "reference density", [](auto& n, auto& c, auto& w) { c.rho0 = as_double(n, w); },
         shown(&LbConfig::rho0)}}},
      {"init",
       {{"type", "uniform or shear_wave", [](auto& n, auto& c, auto& w) { c.init = as_string(n, w); },
         shown(&LbConfig::init)},
        {"velocity", "initial uniform velocity",
         [](auto& n, auto& c, auto& w) { c.velocity = as_triple<double>(n, w, as_double, 0.0); },
         shown(&LbConfig::velocity)},
        {"amplitude", "shear_wave: u_x = amplitude * sin(2 pi y / ny)",
         [](auto& n, auto& c, auto& w) { c.amplitude = as_double(n, w); }, shown(&LbConfig::amplitude)}}},
      {"boundary",
       {{"moving_wall", "the face that moves, e.g. \"y+\" (a face of a non-periodic dimension)",
         [](auto& n, auto& c, auto& w) { c.moving_wall = as_string(n, w); }, shown(&LbConfig::moving_wall)},
        {"wall_velocity", "velocity of the moving wall, tangential to it",
         [](auto& n, auto& c, auto& w) { c.wall_velocity = as_triple<double>(n, w, as_double, 0.0); },
         shown(&LbConfig::wall_velocity)}}},
      {"geometry",
       {{"obstacle",
         "array of tables [[geometry.obstacle]]: shape = sphere|cylinder|box, center, radius, axis, lo, hi",
         [](auto& n, auto& c, auto& w) {
           const toml::array* a = n.as_array();
           if (!a) bad(w, "expected [[geometry.obstacle]] tables");
           for (size_t i = 0; i < a->size(); ++i) {
             const toml::table* t = a->get(i)->as_table();
             if (!t) bad(w + "[" + std::to_string(i) + "]", "expected a table");
             c.obstacles.push_back(read_obstacle(*t, w + "[" + std::to_string(i) + "]"));
           }
         }},
        {"mask_file", "raw file of nx*ny*nz bytes, x fastest, nonzero = solid (relative to the case file)",
         [](auto& n, auto& c, auto& w) { c.mask_file = as_string(n, w); }, shown(&LbConfig::mask_file)}}},
      {"run",
       {{"steps", "time steps", [](auto& n, auto& c, auto& w) { c.steps = as_long(n, w); },
         shown(&LbConfig::steps)},
        {"kernel", "aa (in place) or pull (two grids)",
         [](auto& n, auto& c, auto& w) { c.kernel = parse_choice<Kernel>(as_string(n, w), w); },
         shown(&LbConfig::kernel)},
        {"layout", "soa or aos",
         [](auto& n, auto& c, auto& w) {
           c.layout = keyed(w, [&] { return parse_layout(as_string(n, w)); });
         },
         shown(&LbConfig::layout)},
        {"strategy", "halo strategy by name (see `haloex info`); auto times them all and runs the fastest",
         [](auto& n, auto& c, auto& w) { c.strategy = as_string(n, w); }, shown(&LbConfig::strategy)},
        {"auto_recheck",
         "with strategy = auto: every this many steps compare the exchange's time with that of the first "
         "such stretch, and when two stretches in a row have drifted the same way by more than 10% and more "
         "than the noise, race the strategies again and run the new winner (docs/lb.md); 0: never",
         [](auto& n, auto& c, auto& w) { c.auto_recheck = as_long(n, w); }, shown(&LbConfig::auto_recheck)},
        {"overlap", "none, interior or map",
         [](auto& n, auto& c, auto& w) { c.overlap = parse_choice<Overlap>(as_string(n, w), w); },
         shown(&LbConfig::overlap)},
        {"mpi_progress_rows",
         "with overlap = interior: while the interior is updated, the main thread drives MPI's progress "
         "engine (Strategy::progress, one MPI_Iprobe) after every this many of its rows, so that halo "
         "messages "
         "move before the exchange ends; 0: off",
         [](auto& n, auto& c, auto& w) { c.mpi_progress_rows = as_long(n, w); },
         shown(&LbConfig::mpi_progress_rows)},
        {"halo", "reduced (only the populations that cross, exact for every kernel) or full",
         [](auto& n, auto& c, auto& w) {
           const std::string h = as_string(n, w);
           if (h == "auto")
             bad(w,
                 "\"auto\" is now called \"reduced\" (only the populations that cross, exact for every "
                 "kernel); \"auto\" names the halo strategy that times the others (run.strategy)");
           c.halo = parse_choice<HaloMode>(h, w);
         },
         shown(&LbConfig::halo)},
        {"schedule",
         "worksharing (omp for over the rows of a sweep) or taskloop (omp taskloop, one task per thread)",
         [](auto& n, auto& c, auto& w) { c.schedule = parse_choice<Schedule>(as_string(n, w), w); },
         shown(&LbConfig::schedule)},
        {"sweep",
         "rows (one kernel call per run of a row) or flat (one call per stretch of consecutive rows, "
         "across the halo sites between them; the row dimension's periodic halo is then copied, not "
         "wrapped); bit-identical either way",
         [](auto& n, auto& c, auto& w) { c.sweep = parse_choice<Sweep>(as_string(n, w), w); },
         shown(&LbConfig::sweep)},
        {"periodic_wrap",
         "true: on a periodic dimension one rank holds whole, the kernels read across the boundary; false: "
         "copy that halo every step",
         [](auto& n, auto& c, auto& w) { c.periodic_wrap = as_bool(n, w); }, shown(&LbConfig::periodic_wrap)},
        {"wall_tables",
         "true: with SoA, sites next to resting walls on the lattice faces stay on the vectorised path "
         "(bounce-back as entries of the neighbour tables); false: they take the one-site bounce-back path",
         [](auto& n, auto& c, auto& w) { c.wall_tables = as_bool(n, w); }, shown(&LbConfig::wall_tables)},
        {"field_memory",
         "heap or node (populations in a window shared with the node's ranks, so the shm strategy copies "
         "halos straight from a neighbour)",
         [](auto& n, auto& c, auto& w) {
           c.field_memory = keyed(w, [&] { return parse_field_memory(as_string(n, w)); });
         },
         shown(&LbConfig::field_memory)},
        {"progress", "seconds between progress lines on rank 0, 0 = none",
         [](auto& n, auto& c, auto& w) { c.progress_s = as_double(n, w); }, shown(&LbConfig::progress_s)}}},
      {"monitor",
       {{"every", "steps between monitoring reductions",
         [](auto& n, auto& c, auto& w) { c.monitor_every = as_long(n, w); }, shown(&LbConfig::monitor_every)},
        {"mode", "nonblocking (MPI_Iallreduce), blocking (MPI_Allreduce) or off",
         [](auto& n, auto& c, auto& w) { c.monitor_mode = as_string(n, w); }, shown(&LbConfig::monitor_mode)},
        {"mach_limit", "stop when max |u| / c_s exceeds this",
         [](auto& n, auto& c, auto& w) { c.mach_limit = as_double(n, w); }, shown(&LbConfig::mach_limit)}}},
      {"output",
       {{"summary", "path of a JSON summary written at the end",
         [](auto& n, auto& c, auto& w) { c.summary = as_string(n, w); }, shown(&LbConfig::summary)},
        {"every", "steps between field outputs (density, velocity, mask); 0 = none",
         [](auto& n, auto& c, auto& w) { c.output_every = as_long(n, w); }, shown(&LbConfig::output_every)},
        {"dir", "directory of the field outputs",
         [](auto& n, auto& c, auto& w) { c.output_dir = as_string(n, w); }, shown(&LbConfig::output_dir)},
        {"format",
         "binary (raw native, MPI-IO) or hdf5, each with an XDMF file (fields-NNNNNN.xmf) for ParaView, or "
         "ascii (no XDMF)",
         [](auto& n, auto& c, auto& w) { c.output_format = as_string(n, w); },
         shown(&LbConfig::output_format)},
        {"fields", "which fields of density, velocity and mask",
         [](auto& n, auto& c, auto& w) { c.output_fields = as_strings(n, w); },
         shown(&LbConfig::output_fields)},
        {"io_grid", "files per dimension, dividing the process grid ([1, 1, 1]: one file)",
         [](auto& n, auto& c, auto& w) { c.output_io_grid = as_grid(n, w); },
         shown(&LbConfig::output_io_grid)},
        {"hints",
         "MPI-IO hints for the outputs and checkpoints, \"key=value,...\" (e.g. \"striping_factor=4,"
         "striping_unit=1048576,cb_nodes=2,romio_cb_write=enable\"), or \"none\"; recorded in each file's "
         "metadata with what the file system made of them",
         [](auto& n, auto& c, auto& w) { c.output_hints = parse_io_hints(as_string(n, w), w); },
         shown(&LbConfig::output_hints)},
        {"async", "true: a write goes on while the next steps run; false: wait for it",
         [](auto& n, auto& c, auto& w) { c.output_async = as_bool(n, w); }, shown(&LbConfig::output_async)}}},
      {"checkpoint",
       {{"every", "steps between checkpoints; 0 = none",
         [](auto& n, auto& c, auto& w) { c.checkpoint_every = as_long(n, w); },
         shown(&LbConfig::checkpoint_every)},
        {"dir", "directory of the checkpoints",
         [](auto& n, auto& c, auto& w) { c.checkpoint_dir = as_string(n, w); },
         shown(&LbConfig::checkpoint_dir)},
        {"keep", "how many of the newest complete checkpoints to keep",
         [](auto& n, auto& c, auto& w) { c.checkpoint_keep = as_int(n, w); },
         shown(&LbConfig::checkpoint_keep)},
        {"io_grid", "files per dimension, dividing the process grid",
         [](auto& n, auto& c, auto& w) { c.checkpoint_io_grid = as_grid(n, w); },
         shown(&LbConfig::checkpoint_io_grid)}}},
  };
  return k;
}

std::string valid_keys(const std::vector<Key>& ks) {
  std::string s;
  for (const Key& k : ks) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

// Put one "a.b=value" override into the parsed document.
void apply_override(toml::table& root, const std::string& item, const std::string& source) {
  const auto eq = item.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set " + item + ": expected key=value, e.g. run.steps=200");
  const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
  std::vector<std::string> path;
  std::stringstream ss(key);
  for (std::string p; std::getline(ss, p, '.');) path.push_back(p);
  if (path.size() != 2)
    throw InputError("--set " + item + ": keys are section.key, e.g. run.steps (in " + source + ")");
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    parsed = toml::table{{"v", value}};  // a bare word is a string
  }
  if (!root.contains(path[0])) root.insert(path[0], toml::table{});
  toml::table* t = root.get(path[0])->as_table();
  if (!t) throw InputError("--set " + item + ": '" + path[0] + "' is not a section");
  t->insert_or_assign(path[1], std::move(*parsed.get("v")));
}

}  // namespace

int LbConfig::ndim() const { return velocity_set == "D2Q9" ? 2 : 3; }

long LbConfig::sites() const { return size[0] * size[1] * (ndim() == 3 ? size[2] : 1); }

LbConfig parse_lb_config(const std::string& text, const std::string& source,
                         const std::vector<std::string>& overrides) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << source << ":" << e.source().begin.line << ":" << e.source().begin.column << ": " << e.description();
    throw InputError(os.str());
  }
  for (const std::string& o : overrides) apply_override(root, o, source);

  LbConfig c;
  c.source = source;
  c.text = text;
  for (const std::string& o : overrides) c.text.append("\n# --set ").append(o);
  if (root.empty())
    bad(source, "the case has no settings (an empty file?); start from one of examples/*.toml");
  for (auto&& [sk, sv] : root) {
    const std::string section(sk.str());
    auto it = keys().find(section);
    if (it == keys().end()) {
      std::string valid;
      for (auto& [name, _] : keys()) valid += (valid.empty() ? "" : ", ") + name;
      bad(source, "unknown section [" + section + "] (valid sections: " + valid + ")");
    }
    const toml::table* t = sv.as_table();
    if (!t) bad(source, "'" + section + "' must be a section [" + section + "]");
    for (auto&& [k, v] : *t) {
      const std::string key(k.str()), where = source + ": " + section + "." + key;
      const Key* found = nullptr;
      for (const Key& cand : it->second)
        if (key == cand.name) found = &cand;
      if (!found)
        throw InputError(where + ": unknown key (valid keys in [" + section + "]: " + valid_keys(it->second) +
                         ")");
      found->read(v, c, where);
    }
  }
  // A mask file is relative to the case file.
  if (!c.mask_file.empty() && c.mask_file[0] != '/') {
    const auto slash = source.find_last_of('/');
    if (slash != std::string::npos) c.mask_file = source.substr(0, slash + 1) + c.mask_file;
  }
  validate(c);
  return c;
}

LbConfig read_lb_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot open case file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_lb_config(ss.str(), path, overrides);
}

namespace {

// Whether an obstacle holds at least one lattice site (the rule of
// geometry.cpp: a box's sites lo <= x < hi; a sphere's or cylinder's sites
// within the radius of the centre, the cylinder's axis ignored). The site
// nearest the centre is the centre clamped and rounded per dimension.
bool covers_a_site(const Obstacle& o, const LbConfig& c) {
  const int nd = c.ndim();
  double r2 = 0;
  for (int d = 0; d < nd; ++d) {
    const long n = c.size[d];
    if (o.shape == "box") {
      if (o.hi[d] <= 0 || o.lo[d] >= n) return false;
      continue;
    }
    if (o.shape == "cylinder" && d == o.axis) continue;
    const double x = std::clamp(std::round(o.center[d]), 0.0, static_cast<double>(n - 1)) - o.center[d];
    r2 += x * x;
  }
  return o.shape == "box" || r2 <= o.radius * o.radius;
}

}  // namespace

void validate(const LbConfig& c) {
  const std::string& s = c.source;
  keyed(s + ": lattice.velocity_set",
        [&] { return velocity_set(c.velocity_set); });  // throws for an unknown name
  const int nd = c.ndim();
  for (int d = 0; d < nd; ++d)
    if (c.size[d] < 1) bad(s, "lattice.size must be >= 1 in every dimension");
  if (nd == 2 && c.size[2] != 1) bad(s, "lattice.size has 3 values but " + c.velocity_set + " is 2-D");
  if (!(c.tau > 0.5))
    bad(s, "physics.tau = " + std::to_string(c.tau) +
               " must be > 1/2 (the viscosity (tau - 1/2)/3 must be positive)");
  if (!(c.magic > 0)) bad(s, "physics.magic must be > 0");
  if (!(c.rho0 > 0)) bad(s, "physics.rho0 must be > 0");
  if (c.init != "uniform" && c.init != "shear_wave")
    bad(s, "init.type must be \"uniform\" or \"shear_wave\", got \"" + c.init + "\"");
  if (c.init == "shear_wave" && !c.periodic[1])
    bad(s, "init.type = \"shear_wave\" needs a periodic y dimension");
  if (!c.moving_wall.empty()) {
    Offset o{};
    try {
      o = offset_from_name(c.moving_wall);
    } catch (const InputError&) {
      bad(s, "boundary.moving_wall = \"" + c.moving_wall + "\" is not a face such as \"y+\"");
    }
    int dim = -1, n = 0;
    for (int d = 0; d < 3; ++d)
      if (o[d] != 0) dim = d, ++n;
    if (n != 1 || dim >= nd)
      bad(s, "boundary.moving_wall = \"" + c.moving_wall + "\" is not a face of this lattice");
    if (c.periodic[dim])
      bad(s, "boundary.moving_wall = \"" + c.moving_wall +
                 "\" lies on a periodic dimension; make it non-periodic");
    if (c.wall_velocity[dim] != 0)
      bad(s, "boundary.wall_velocity must be tangential to the wall (its normal component must be 0)");
  }
  for (size_t i = 0; i < c.obstacles.size(); ++i) {
    const Obstacle& o = c.obstacles[i];
    const std::string w = "geometry.obstacle[" + std::to_string(i) + "]";
    if (o.shape == "box")
      for (int d = 0; d < nd; ++d)
        if (o.lo[d] >= o.hi[d]) bad(s, w + ": the box has lo >= hi along " + std::string(1, "xyz"[d]));
    if (!covers_a_site(o, c))
      bad(s,
          w + ": the " + o.shape + " covers no site of the lattice (sites 0 .. size - 1 in each dimension)");
  }
  if (c.steps < 0) bad(s, "run.steps must be >= 0");
  if (c.mpi_progress_rows < 0) bad(s, "run.mpi_progress_rows must be >= 0 (0: off)");
  if (c.auto_recheck < 0) bad(s, "run.auto_recheck must be >= 0 (0: never)");
  // In node memory `shm` reads a neighbour's populations while they are in
  // place; during an overlapped AA step the kernel rewrites populations of
  // the boundary layer that a full halo sends (never ones a reduced halo does).
  if (c.field_memory == FieldMemory::node && c.kernel == Kernel::aa && c.halo == HaloMode::full &&
      c.overlap != Overlap::none)
    bad(s, "run.field_memory = \"node\" with the aa kernel, halo = \"full\" and overlap = \"" +
               to_string(c.overlap) +
               "\" would let neighbours read populations while the kernel rewrites them; use halo = "
               "\"reduced\"");
  if (c.progress_s < 0) bad(s, "run.progress must be >= 0");
  if (c.monitor_every < 1) bad(s, "monitor.every must be >= 1");
  if (c.monitor_mode != "nonblocking" && c.monitor_mode != "blocking" && c.monitor_mode != "off")
    bad(s, "monitor.mode must be \"nonblocking\", \"blocking\" or \"off\", got \"" + c.monitor_mode + "\"");
  if (!(c.mach_limit > 0)) bad(s, "monitor.mach_limit must be > 0");
  if (c.output_every < 0) bad(s, "output.every must be >= 0");
  if (c.output_every > 0)
    if (const std::string e = output_dir_problem(c.output_dir); !e.empty()) bad(s, "output.dir: " + e);
  if (c.checkpoint_every > 0)
    if (const std::string e = output_dir_problem(c.checkpoint_dir); !e.empty())
      bad(s, "checkpoint.dir: " + e);
  if (!c.summary.empty())
    if (const std::string e = output_file_problem(c.summary); !e.empty()) bad(s, "output.summary: " + e);
  if (c.output_format != "binary" && c.output_format != "ascii" && c.output_format != "hdf5")
    bad(s, "output.format must be \"binary\", \"ascii\" or \"hdf5\", got \"" + c.output_format + "\"");
  for (const std::string& f : c.output_fields)
    if (f != "density" && f != "velocity" && f != "mask")
      bad(s, "output.fields: unknown field \"" + f + "\" (valid: density, velocity, mask)");
  if (c.output_every > 0 && c.output_fields.empty()) bad(s, "output.fields is empty");
  if (c.checkpoint_every < 0) bad(s, "checkpoint.every must be >= 0");
  if (c.checkpoint_keep < 1) bad(s, "checkpoint.keep must be >= 1");
  for (int d = 0; d < 3; ++d)
    if (c.output_io_grid[d] < 1 || c.checkpoint_io_grid[d] < 1) bad(s, "io_grid entries must be >= 1");
}

nlohmann::json physics_json(const LbConfig& c) {
  nlohmann::json j;
  j["velocity_set"] = c.velocity_set;
  j["size"] = c.size;
  j["periodic"] = c.periodic;
  j["collision"] = to_string(c.collision);
  j["tau"] = c.tau;
  j["magic"] = c.magic;
  j["force"] = c.force;
  j["rho0"] = c.rho0;
  j["moving_wall"] = c.moving_wall;
  j["wall_velocity"] = c.wall_velocity;
  return j;
}

nlohmann::json config_json(const LbConfig& c) {
  nlohmann::json j = physics_json(c);
  j["procs"] = c.procs;
  j["init"] = c.init;
  j["velocity"] = c.velocity;
  j["amplitude"] = c.amplitude;
  j["obstacles"] = c.obstacles.size();
  j["mask_file"] = c.mask_file;
  j["steps"] = c.steps;
  j["kernel"] = to_string(c.kernel);
  j["layout"] = to_string(c.layout);
  j["strategy"] = c.strategy;
  j["auto_recheck"] = c.auto_recheck;
  j["overlap"] = to_string(c.overlap);
  j["mpi_progress_rows"] = c.mpi_progress_rows;
  j["halo"] = to_string(c.halo);
  j["schedule"] = to_string(c.schedule);
  j["sweep"] = to_string(c.sweep);
  j["periodic_wrap"] = c.periodic_wrap;
  j["wall_tables"] = c.wall_tables;
  j["field_memory"] = to_string(c.field_memory);
  j["monitor_every"] = c.monitor_every;
  j["monitor_mode"] = c.monitor_mode;
  j["mach_limit"] = c.mach_limit;
  j["progress_s"] = c.progress_s;
  j["summary"] = c.summary;
  j["output"] = {{"every", c.output_every},
                 {"dir", c.output_dir},
                 {"format", c.output_format},
                 {"fields", c.output_fields},
                 {"io_grid", c.output_io_grid},
                 {"async", c.output_async},
                 {"hints", io_hints_text(c.output_hints)}};
  j["checkpoint"] = {{"every", c.checkpoint_every},
                     {"dir", c.checkpoint_dir},
                     {"keep", c.checkpoint_keep},
                     {"io_grid", c.checkpoint_io_grid}};
  return j;
}

std::string lb_config_reference() {
  const LbConfig defaults;  // its initialisers are the one place the defaults are written
  std::ostringstream os;
  size_t width = 0;  // the longest key and two spaces
  for (auto& [section, ks] : keys())
    for (const Key& k : ks) width = std::max(width, std::string_view(k.name).size() + 2);
  for (auto& [section, ks] : keys()) {
    os << "[" << section << "]\n";
    for (const Key& k : ks) {
      os << "  " << std::left << std::setw(static_cast<int>(width)) << k.name << k.doc;
      if (k.show) os << " (default: " << k.show(defaults) << ")";
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace haloex::lb
