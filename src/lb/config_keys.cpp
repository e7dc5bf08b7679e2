// See config_keys.hpp.
#include "config_keys.hpp"

#include "toml_values.hpp"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <sstream>

#include "haloex/core/mpi_hints.hpp"
#include "haloex/lb/velocity_set.hpp"

namespace haloex::lb::detail {

namespace {

// A check that fails with `message` unless ok(c).
template <class Ok>
std::function<std::string(const LbConfig&)> need(Ok ok, std::string message) {
  return [ok, message = std::move(message)](const LbConfig& c) { return ok(c) ? std::string() : message; };
}

// A check that a text setting is one of `names`: `key must be "a", "b" or
// "c", got "x"`.
std::function<std::string(const LbConfig&)> one_of(std::string LbConfig::*member, std::string key,
                                                   std::vector<std::string> names) {
  return [member, key = std::move(key), names = std::move(names)](const LbConfig& c) {
    const std::string& v = c.*member;
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) {
      if (v == names[i]) return std::string();
      list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("\"" + names[i] + "\"");
    }
    return key + " must be " + list + ", got \"" + v + "\"";
  };
}

std::vector<Key> lattice_keys() {
  return {
      {"velocity_set", "D2Q9, D3Q15, D3Q19 or D3Q27",
       [](auto& n, auto& c, auto& w) { c.velocity_set = as_string(n, w); }, shown(&LbConfig::velocity_set),
       [](const LbConfig& c) {
         try {
           velocity_set(c.velocity_set);
         } catch (const InputError& e) {
           return "lattice.velocity_set: " + std::string(e.what());
         }
         return std::string();
       }},
      {"size", "global lattice sites per dimension, e.g. [64, 64, 64] (2 values for D2Q9)",
       [](auto& n, auto& c, auto& w) { c.size = as_triple<long>(n, w, as_long, 1L); }, shown(&LbConfig::size),
       [](const LbConfig& c) {
         for (int d = 0; d < c.ndim(); ++d)
           if (c.size[d] < 1) return std::string("lattice.size must be >= 1 in every dimension");
         if (c.ndim() == 2 && c.size[2] != 1)
           return "lattice.size has 3 values but " + c.velocity_set + " is 2-D";
         return std::string();
       }},
      {"periodic", "periodicity per dimension; faces of non-periodic ones are bounce-back walls",
       [](auto& n, auto& c, auto& w) { c.periodic = as_triple<bool>(n, w, as_bool, true); },
       shown(&LbConfig::periodic)},
      {"procs", "process grid, 0 = chosen by MPI_Dims_create",
       [](auto& n, auto& c, auto& w) {
         c.procs = as_triple<int>(
             n, w, [](const toml::node& e, const std::string& x) { return as_int(e, x); }, 0);
       },
       shown(&LbConfig::procs)}};
}

std::vector<Key> physics_keys() {
  return {{"collision", "bgk or trt",
           [](auto& n, auto& c, auto& w) { c.collision = parse_choice<Collision>(as_string(n, w), w); },
           shown(&LbConfig::collision)},
          {"tau", "relaxation time (> 1/2); viscosity = (tau - 1/2) / 3",
           [](auto& n, auto& c, auto& w) { c.tau = as_double(n, w); }, shown(&LbConfig::tau),
           [](const LbConfig& c) {
             return c.tau > 0.5 ? std::string()
                                : "physics.tau = " + std::to_string(c.tau) +
                                      " must be > 1/2 (the viscosity (tau - 1/2)/3 must be positive)";
           }},
          {"magic", "TRT magic parameter Lambda (3/16: exact half-way walls)",
           [](auto& n, auto& c, auto& w) { c.magic = as_double(n, w); }, shown(&LbConfig::magic),
           need([](const LbConfig& c) { return c.magic > 0; }, "physics.magic must be > 0")},
          {"force", "body force per unit volume (Guo forcing), e.g. [1e-6, 0, 0]",
           [](auto& n, auto& c, auto& w) { c.force = as_triple<double>(n, w, as_double, 0.0); },
           shown(&LbConfig::force)},
          {"rho0", "reference density", [](auto& n, auto& c, auto& w) { c.rho0 = as_double(n, w); },
           shown(&LbConfig::rho0),
           need([](const LbConfig& c) { return c.rho0 > 0; }, "physics.rho0 must be > 0")}};
}

std::vector<Key> init_keys() {
  return {{"type", "uniform or shear_wave", [](auto& n, auto& c, auto& w) { c.init = as_string(n, w); },
           shown(&LbConfig::init), one_of(&LbConfig::init, "init.type", {"uniform", "shear_wave"})},
          {"velocity", "initial uniform velocity",
           [](auto& n, auto& c, auto& w) { c.velocity = as_triple<double>(n, w, as_double, 0.0); },
           shown(&LbConfig::velocity)},
          {"amplitude", "shear_wave: u_x = amplitude * sin(2 pi y / ny)",
           [](auto& n, auto& c, auto& w) { c.amplitude = as_double(n, w); }, shown(&LbConfig::amplitude)}};
}

std::vector<Key> boundary_keys() {
  return {{"moving_wall", "the face that moves, e.g. \"y+\" (a face of a non-periodic dimension)",
           [](auto& n, auto& c, auto& w) { c.moving_wall = as_string(n, w); }, shown(&LbConfig::moving_wall)},
          {"wall_velocity", "velocity of the moving wall, tangential to it",
           [](auto& n, auto& c, auto& w) { c.wall_velocity = as_triple<double>(n, w, as_double, 0.0); },
           shown(&LbConfig::wall_velocity)}};
}

std::vector<Key> geometry_keys() {
  return {{"obstacle",
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
           [](auto& n, auto& c, auto& w) { c.mask_file = as_string(n, w); }, shown(&LbConfig::mask_file)}};
}

// [run]: what runs and how the halo travels.
std::vector<Key> run_keys() {
  return {
      {"steps", "time steps", [](auto& n, auto& c, auto& w) { c.steps = as_long(n, w); },
       shown(&LbConfig::steps),
       need([](const LbConfig& c) { return c.steps >= 0; }, "run.steps must be >= 0")},
      {"kernel", "aa (in place) or pull (two grids)",
       [](auto& n, auto& c, auto& w) { c.kernel = parse_choice<Kernel>(as_string(n, w), w); },
       shown(&LbConfig::kernel)},
      {"layout", "soa or aos",
       [](auto& n, auto& c, auto& w) { c.layout = keyed(w, [&] { return parse_layout(as_string(n, w)); }); },
       shown(&LbConfig::layout)},
      {"strategy", "halo strategy by name (see `haloex info`); auto times them all and runs the fastest",
       [](auto& n, auto& c, auto& w) { c.strategy = as_string(n, w); }, shown(&LbConfig::strategy)},
      {"auto_recheck",
       "with strategy = auto: every this many steps compare the exchange's time with that of the first "
       "such stretch, and when two stretches in a row have drifted the same way by more than 10% and more "
       "than the noise, race the strategies again and run the new winner (docs/lb.md); 0: never",
       [](auto& n, auto& c, auto& w) { c.auto_recheck = as_long(n, w); }, shown(&LbConfig::auto_recheck),
       need([](const LbConfig& c) { return c.auto_recheck >= 0; },
            "run.auto_recheck must be >= 0 (0: never)")}};
}

// [run]: how the sweeps and exchanges are carried out.
std::vector<Key> run_detail_keys() {
  return {
      {"overlap", "none, interior or map",
       [](auto& n, auto& c, auto& w) { c.overlap = parse_choice<Overlap>(as_string(n, w), w); },
       shown(&LbConfig::overlap)},
      {"mpi_progress_rows",
       "with overlap = interior: while the interior is updated, the main thread drives MPI's progress "
       "engine (Strategy::progress, one MPI_Iprobe) after every this many of its rows, so that halo "
       "messages "
       "move before the exchange ends; 0: off",
       [](auto& n, auto& c, auto& w) { c.mpi_progress_rows = as_long(n, w); },
       shown(&LbConfig::mpi_progress_rows),
       need([](const LbConfig& c) { return c.mpi_progress_rows >= 0; },
            "run.mpi_progress_rows must be >= 0 (0: off)")},
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
       [](auto& n, auto& c, auto& w) { c.progress_s = as_double(n, w); }, shown(&LbConfig::progress_s),
       need([](const LbConfig& c) { return c.progress_s >= 0; }, "run.progress must be >= 0")}};
}

std::vector<Key> monitor_keys() {
  return {
      {"every", "steps between monitoring reductions",
       [](auto& n, auto& c, auto& w) { c.monitor_every = as_long(n, w); }, shown(&LbConfig::monitor_every),
       need([](const LbConfig& c) { return c.monitor_every >= 1; }, "monitor.every must be >= 1")},
      {"mode", "nonblocking (MPI_Iallreduce), blocking (MPI_Allreduce) or off",
       [](auto& n, auto& c, auto& w) { c.monitor_mode = as_string(n, w); }, shown(&LbConfig::monitor_mode),
       one_of(&LbConfig::monitor_mode, "monitor.mode", {"nonblocking", "blocking", "off"})},
      {"mach_limit", "stop when max |u| / c_s exceeds this",
       [](auto& n, auto& c, auto& w) { c.mach_limit = as_double(n, w); }, shown(&LbConfig::mach_limit),
       need([](const LbConfig& c) { return c.mach_limit > 0; }, "monitor.mach_limit must be > 0")}};
}

std::vector<Key> output_keys() {
  return {
      {"summary", "path of a JSON summary written at the end",
       [](auto& n, auto& c, auto& w) { c.summary = as_string(n, w); }, shown(&LbConfig::summary)},
      {"every", "steps between field outputs (density, velocity, mask); 0 = none",
       [](auto& n, auto& c, auto& w) { c.output_every = as_long(n, w); }, shown(&LbConfig::output_every),
       need([](const LbConfig& c) { return c.output_every >= 0; }, "output.every must be >= 0")},
      {"dir", "directory of the field outputs",
       [](auto& n, auto& c, auto& w) { c.output_dir = as_string(n, w); }, shown(&LbConfig::output_dir)},
      {"format",
       "binary (raw native, MPI-IO) or hdf5, each with an XDMF file (fields-NNNNNN.xmf) for ParaView, "
       "or "
       "ascii (no XDMF)",
       [](auto& n, auto& c, auto& w) { c.output_format = as_string(n, w); }, shown(&LbConfig::output_format),
       one_of(&LbConfig::output_format, "output.format", {"binary", "ascii", "hdf5"})},
      {"fields", "which fields of density, velocity and mask",
       [](auto& n, auto& c, auto& w) { c.output_fields = as_strings(n, w); }, shown(&LbConfig::output_fields),
       [](const LbConfig& c) {
         for (const std::string& f : c.output_fields)
           if (f != "density" && f != "velocity" && f != "mask")
             return "output.fields: unknown field \"" + f + "\" (valid: density, velocity, mask)";
         return std::string();
       }},
      {"io_grid", "files per dimension, dividing the process grid ([1, 1, 1]: one file)",
       [](auto& n, auto& c, auto& w) { c.output_io_grid = as_grid(n, w); }, shown(&LbConfig::output_io_grid),
       need([](const LbConfig& c) { return std::ranges::min(c.output_io_grid) >= 1; },
            "io_grid entries must be >= 1")},
      {"hints",
       "MPI-IO hints for the outputs and checkpoints, \"key=value,...\" (e.g. \"striping_factor=4,"
       "striping_unit=1048576,cb_nodes=2,romio_cb_write=enable\"), or \"none\"; recorded in each file's "
       "metadata with what the file system made of them",
       [](auto& n, auto& c, auto& w) { c.output_hints = parse_io_hints(as_string(n, w), w); },
       shown(&LbConfig::output_hints)},
      {"async", "true: a write goes on while the next steps run; false: wait for it",
       [](auto& n, auto& c, auto& w) { c.output_async = as_bool(n, w); }, shown(&LbConfig::output_async)}};
}

std::vector<Key> checkpoint_keys() {
  return {
      {"every", "steps between checkpoints; 0 = none",
       [](auto& n, auto& c, auto& w) { c.checkpoint_every = as_long(n, w); },
       shown(&LbConfig::checkpoint_every),
       need([](const LbConfig& c) { return c.checkpoint_every >= 0; }, "checkpoint.every must be >= 0")},
      {"dir", "directory of the checkpoints",
       [](auto& n, auto& c, auto& w) { c.checkpoint_dir = as_string(n, w); },
       shown(&LbConfig::checkpoint_dir)},
      {"keep", "how many of the newest complete checkpoints to keep",
       [](auto& n, auto& c, auto& w) { c.checkpoint_keep = as_int(n, w); }, shown(&LbConfig::checkpoint_keep),
       need([](const LbConfig& c) { return c.checkpoint_keep >= 1; }, "checkpoint.keep must be >= 1")},
      {"io_grid", "files per dimension, dividing the process grid",
       [](auto& n, auto& c, auto& w) { c.checkpoint_io_grid = as_grid(n, w); },
       shown(&LbConfig::checkpoint_io_grid),
       need([](const LbConfig& c) { return std::ranges::min(c.checkpoint_io_grid) >= 1; },
            "io_grid entries must be >= 1")}};
}

}  // namespace

const std::map<std::string, std::vector<Key>>& keys() {
  static const std::map<std::string, std::vector<Key>> k = [] {
    std::vector<Key> run = run_keys();
    for (Key& key : run_detail_keys()) run.push_back(std::move(key));
    return std::map<std::string, std::vector<Key>>{
        {"lattice", lattice_keys()},   {"physics", physics_keys()},   {"init", init_keys()},
        {"boundary", boundary_keys()}, {"geometry", geometry_keys()}, {"run", run},
        {"monitor", monitor_keys()},   {"output", output_keys()},     {"checkpoint", checkpoint_keys()}};
  }();
  return k;
}

}  // namespace haloex::lb::detail
