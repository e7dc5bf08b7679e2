#pragma once
// The input of an LB run: every key of the TOML case file, with its default,
// checked on reading so that a bad case fails before any work.
#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi_hints.hpp"
#include "haloex/field/field.hpp"

namespace haloex::lb {

// The settings that name one of a few choices, as types: the case file's
// strings become these once, when it is read, and nothing compares a string
// per step or per site.
/// The streaming kernel: `aa` in place on one grid, or `pull` on two grids.
enum class Kernel { aa, pull };
/// The collision: one relaxation time (BGK) or two (TRT).
enum class Collision { bgk, trt };
/// What the update does while halos travel: nothing, the sites that touch no halo
/// filled by another process, or rebuilding the site map (the 2016 paper's experiment).
enum class Overlap { none, interior, map };
/// The populations a halo exchange carries: those that cross into the subdomain,
/// or all of them.
enum class HaloMode { reduced, full };
/// How threads share a sweep: `omp for` over its rows, or `omp taskloop`.
enum class Schedule { worksharing, taskloop };
/// How a sweep calls the kernels: once per run of a row, or once per stretch
/// of consecutive rows across the halo sites between them (`flat`: the RRZE
/// kernels' one loop over the lattice with ghost layers; the row dimension's
/// periodic halo is then copied rather than wrapped in the kernels).
enum class Sweep { rows, flat };

/// The names of a choice's values, in enumerator order.
/// @{
constexpr std::array<std::string_view, 2> choice_names(Kernel) { return {"aa", "pull"}; }
constexpr std::array<std::string_view, 2> choice_names(Collision) { return {"bgk", "trt"}; }
constexpr std::array<std::string_view, 3> choice_names(Overlap) { return {"none", "interior", "map"}; }
constexpr std::array<std::string_view, 2> choice_names(HaloMode) { return {"reduced", "full"}; }
constexpr std::array<std::string_view, 2> choice_names(Schedule) { return {"worksharing", "taskloop"}; }
constexpr std::array<std::string_view, 2> choice_names(Sweep) { return {"rows", "flat"}; }
/// @}

/// A setting that names one of a few choices: an enum with choice_names().
template <class E>
concept Choice = requires(E e) {
  choice_names(e);
};

/// The name of a choice.
template <Choice E>
std::string to_string(E e) {
  return std::string(choice_names(e).at(static_cast<size_t>(e)));
}

/// The valid names of a choice as a phrase: "a", "b" or "c".
template <Choice E>
std::string choice_list() {
  constexpr auto n = choice_names(E{});
  std::string s;
  for (size_t i = 0; i < n.size(); ++i) {
    s.append(i == 0 ? "" : i + 1 == n.size() ? " or " : ", ").append("\"").append(n[i]).append("\"");
  }
  return s;
}

/// The choice named `name`; throws InputError `<what> must be "a" or "b", got "x"`
/// (`what` names the setting, such as "case.toml: run.kernel").
template <Choice E>
E parse_choice(const std::string& name, const std::string& what) {
  constexpr auto n = choice_names(E{});
  for (size_t i = 0; i < n.size(); ++i)
    if (name == n[i]) return static_cast<E>(i);
  throw InputError(what + " must be " + choice_list<E>() + ", got \"" + name + "\"");
}

/// A solid obstacle described by a shape (coordinates are global lattice
/// sites, site centres at integers).
struct Obstacle {
  std::string shape;               ///< sphere, cylinder or box
  std::array<double, 3> center{};  ///< sphere, cylinder (the axis coordinate is ignored)
  double radius = 0;               ///< sphere, cylinder
  int axis = 2;                    ///< cylinder: 0, 1 or 2 (x, y, z)
  /// Box: the sites lo <= x < hi are solid.
  /// @{
  std::array<long, 3> lo{}, hi{};
  /// @}
};

/// Every setting of an LB run.
struct LbConfig {
  // [lattice]
  std::string velocity_set = "D3Q19";              ///< D2Q9, D3Q15, D3Q19 or D3Q27
  std::array<long, 3> size{32, 32, 32};            ///< global lattice sites per dimension
  std::array<bool, 3> periodic{true, true, true};  ///< per dimension; other faces are bounce-back walls
  std::array<int, 3> procs{0, 0, 0};               ///< process grid; 0: let MPI_Dims_create choose
  // [physics]
  Collision collision = Collision::bgk;  ///< BGK or TRT
  double tau = 0.8;                      ///< relaxation time (> 1/2); viscosity = (tau - 1/2) / 3
  double magic = 3.0 / 16.0;             ///< TRT: Lambda = (tau+ - 1/2)(tau- - 1/2)
  std::array<double, 3> force{0, 0, 0};  ///< body force per unit volume (Guo forcing)
  double rho0 = 1.0;                     ///< reference density
  // [init]
  std::string init = "uniform";             ///< uniform or shear_wave
  std::array<double, 3> velocity{0, 0, 0};  ///< initial uniform velocity
  double amplitude = 0.01;                  ///< shear_wave: u_x = amplitude * sin(2 pi y / ny)
  // [boundary]
  std::string moving_wall;                       ///< a face such as "y+", or empty
  std::array<double, 3> wall_velocity{0, 0, 0};  ///< velocity of the moving wall, tangential to it
  // [geometry]
  std::vector<Obstacle> obstacles;  ///< solid shapes
  std::string mask_file;            ///< solid sites from a file: raw uint8, x fastest, nonzero = solid
  // [run]
  long steps = 100;                 ///< time steps to run
  Kernel kernel = Kernel::aa;       ///< streaming kernel
  Layout layout = Layout::soa;      ///< storage order of the populations
  std::string strategy = "auto";    ///< halo strategy by name
  long auto_recheck = 0;            ///< strategy = auto: re-check its choice every this many steps (0: never)
  Overlap overlap = Overlap::none;  ///< what the update does while halos travel
  long mpi_progress_rows = 0;       ///< overlap = interior: drive MPI progress every this many rows (0: off)
  HaloMode halo = HaloMode::reduced;          ///< the populations the exchange carries
  Schedule schedule = Schedule::worksharing;  ///< how threads share a sweep
  Sweep sweep = Sweep::flat;                  ///< how a sweep calls the kernels
  bool periodic_wrap = true;  ///< kernels read across periodic boundaries a rank holds whole (no halo copy)
  bool wall_tables = true;    ///< SoA: bounce-back on resting walls through the neighbour tables
  FieldMemory field_memory = FieldMemory::heap;  ///< node: `shm` reads halos straight from a neighbour
  double progress_s = 2.0;                       ///< seconds between progress lines; 0: none
  // [monitor]
  long monitor_every = 1;                    ///< steps between monitoring reductions
  std::string monitor_mode = "nonblocking";  ///< nonblocking, blocking or off
  double mach_limit = 0.3;                   ///< stop the run when max |u| / c_s exceeds this
  // [output]
  std::string summary;                   ///< JSON summary path, or empty
  long output_every = 0;                 ///< steps between field outputs; 0: none
  std::string output_dir = "output";     ///< folder of the field outputs
  std::string output_format = "binary";  ///< binary, ascii or hdf5
  std::vector<std::string> output_fields{"density", "velocity", "mask"};  ///< the fields written
  std::array<int, 3> output_io_grid{1, 1, 1};  ///< output files per dimension (the I/O grid)
  IoHints output_hints;                        ///< MPI-IO hints for outputs and checkpoints (empty: none)
  bool output_async = true;  ///< write_begin after the step, write_end before the next output
  // [checkpoint]
  long checkpoint_every = 0;                       ///< steps between checkpoints; 0: none
  std::string checkpoint_dir = "checkpoints";      ///< folder of the checkpoints
  int checkpoint_keep = 2;                         ///< the newest K complete checkpoints are kept
  std::array<int, 3> checkpoint_io_grid{1, 1, 1};  ///< checkpoint files per dimension

  /// Where the case came from, for messages.
  std::string source = "<defaults>";
  /// The input as given: the case file's text and the --set overrides (kept
  /// in checkpoints).
  std::string text;

  /// Number of dimensions of the velocity set.
  int ndim() const;
  /// Global number of lattice sites.
  long sites() const;
};

/// Read a case file and apply "key=value" overrides (dotted keys such as
/// run.steps=200; values in TOML syntax, bare words taken as strings).
/// Throws InputError naming the file, key and problem.
LbConfig read_lb_config(const std::string& path, const std::vector<std::string>& overrides = {});

/// Parse a case from TOML text (`source` names it in messages).
LbConfig parse_lb_config(const std::string& text, const std::string& source,
                         const std::vector<std::string>& overrides = {});

/// Check ranges and combinations; throws InputError.
void validate(const LbConfig& c);

/// Every setting as JSON (for summaries and checkpoints).
nlohmann::json config_json(const LbConfig& c);
/// The settings that determine the evolution of the populations (lattice,
/// physics, boundaries, geometry), which a restart must share with the run
/// that wrote the checkpoint.
nlohmann::json physics_json(const LbConfig& c);

/// The documented keys, one line each, for `haloex lb --help-keys`.
std::string lb_config_reference();

}  // namespace haloex::lb
