#include "haloex/lb/config.hpp"

#include "config_keys.hpp"

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

using detail::bad;
using detail::Key;
using detail::keys;

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

// The checks that involve several keys: the initial state and the moving
// wall against the lattice.
void check_state_and_walls(const LbConfig& c) {
  const std::string& s = c.source;
  if (c.init == "shear_wave" && !c.periodic[1])
    bad(s, "init.type = \"shear_wave\" needs a periodic y dimension");
  if (c.moving_wall.empty()) return;
  Offset o{};
  try {
    o = offset_from_name(c.moving_wall);
  } catch (const InputError&) {
    bad(s, "boundary.moving_wall = \"" + c.moving_wall + "\" is not a face such as \"y+\"");
  }
  int dim = -1, n = 0;
  for (int d = 0; d < 3; ++d)
    if (o[d] != 0) dim = d, ++n;
  if (n != 1 || dim >= c.ndim())
    bad(s, "boundary.moving_wall = \"" + c.moving_wall + "\" is not a face of this lattice");
  if (c.periodic[dim])
    bad(s, "boundary.moving_wall = \"" + c.moving_wall +
               "\" lies on a periodic dimension; make it non-periodic");
  if (c.wall_velocity[dim] != 0)
    bad(s, "boundary.wall_velocity must be tangential to the wall (its normal component must be 0)");
}

void check_obstacles(const LbConfig& c) {
  for (size_t i = 0; i < c.obstacles.size(); ++i) {
    const Obstacle& o = c.obstacles[i];
    const std::string w = "geometry.obstacle[" + std::to_string(i) + "]";
    if (o.shape == "box")
      for (int d = 0; d < c.ndim(); ++d)
        if (o.lo[d] >= o.hi[d]) bad(c.source, w + ": the box has lo >= hi along " + std::string(1, "xyz"[d]));
    if (!covers_a_site(o, c))
      bad(c.source,
          w + ": the " + o.shape + " covers no site of the lattice (sites 0 .. size - 1 in each dimension)");
  }
}

// Memory and files: node memory with a full AA halo under overlap, and the
// places outputs and checkpoints go.
void check_memory_and_files(const LbConfig& c) {
  const std::string& s = c.source;
  // In node memory `shm` reads a neighbour's populations while they are in
  // place; during an overlapped AA step the kernel rewrites populations of
  // the boundary layer that a full halo sends (never ones a reduced halo does).
  if (c.field_memory == FieldMemory::folded)
    bad(s,
        "run.field_memory = \"folded\" puts every rank's populations in one block of memory, where the "
        "solver would compute nonsense (it is for bench halo's timing on a simulated machine); use heap or "
        "node");
  if (c.field_memory == FieldMemory::node && c.kernel == Kernel::aa && c.halo == HaloMode::full &&
      c.overlap != Overlap::none)
    bad(s, "run.field_memory = \"node\" with the aa kernel, halo = \"full\" and overlap = \"" +
               to_string(c.overlap) +
               "\" would let neighbours read populations while the kernel rewrites them; use halo = "
               "\"reduced\"");
  if (c.output_every > 0)
    if (const std::string e = output_dir_problem(c.output_dir); !e.empty()) bad(s, "output.dir: " + e);
  if (c.checkpoint_every > 0)
    if (const std::string e = output_dir_problem(c.checkpoint_dir); !e.empty())
      bad(s, "checkpoint.dir: " + e);
  if (!c.summary.empty())
    if (const std::string e = output_file_problem(c.summary); !e.empty()) bad(s, "output.summary: " + e);
  if (c.output_every > 0 && c.output_fields.empty()) bad(s, "output.fields is empty");
}

}  // namespace

// Each key's own check, section by section in the order of a case file,
// then the checks that involve several keys.
void validate(const LbConfig& c) {
  for (const char* section :
       {"lattice", "physics", "init", "boundary", "geometry", "run", "monitor", "output", "checkpoint"})
    for (const Key& k : keys().at(section))
      if (k.check)
        if (const std::string e = k.check(c); !e.empty()) bad(c.source, e);
  check_state_and_walls(c);
  check_obstacles(c);
  check_memory_and_files(c);
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
