#include "haloex/lb/files.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "haloex/core/durable.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/core/paths.hpp"
#include "haloex/io/blocks.hpp"
#include "haloex/io/xdmf.hpp"

namespace haloex {

namespace fs = std::filesystem;

namespace {

std::string stem_of(const std::string& dir, const std::string& name, long step) {
  char s[32];
  std::snprintf(s, sizeof s, "-%06ld", step);
  return (fs::path(dir) / (name + s)).string();
}

// The solid mask summed into one checksum: equal for equal geometries on any
// decomposition.
uint64_t geometry_checksum(const lb::Solver& solver) {
  const Decomposition& dec = solver.decomposition();
  const std::vector<uint8_t> mask = solver.local_solid_mask();
  IoMetadata m;
  m.element = {IoType::u8, 1, {}, "mask"};
  m.order = SiteOrder::x_slowest;  // the solver's site order (and the sum checkpoints have always recorded)
  for (int d = 0; d < 3; ++d) m.size[d] = dec.global_size(d);
  uint64_t sum = block_checksum(reinterpret_cast<const std::byte*>(mask.data()), subdomain_box(dec), m),
           all = 0;
  mpi_check(MPI_Allreduce(&sum, &all, 1, MPI_UINT64_T, MPI_SUM, dec.comm()), "MPI_Allreduce");
  return all;
}

}  // namespace

// ------------------------------------------------------------------ output

struct LbOutput::Quantity {
  std::string name;
  FieldIo io;
};

LbOutput::LbOutput(lb::Solver& solver, const lb::LbConfig& cfg) : solver_(solver), cfg_(cfg) {
  IoOptions opt{parse_io_format(cfg.output_format), cfg.output_io_grid};
  opt.hints = cfg.output_hints;
  const Decomposition& dec = solver.decomposition();
  for (const std::string& f : cfg.output_fields) {
    IoElement e;
    if (f == "density")
      e = {IoType::f64, 1, {"rho"}, f};
    else if (f == "velocity")
      e = {IoType::f64, 3, {"ux", "uy", "uz"}, f};
    else
      e = {IoType::u8, 1, {"solid"}, f};
    q_.push_back(std::unique_ptr<Quantity>(new Quantity{f, FieldIo(dec, e, opt)}));
  }
}

LbOutput::~LbOutput() = default;

void LbOutput::write() {
  if (pending_step_ >= 0) complete();
  const std::vector<double> f = solver_.local_populations();
  const lb::VelocitySet& vs = solver_.velocities();
  const std::vector<uint8_t> solid = solver_.local_solid_mask();
  const long step = solver_.steps_done();
  // The moments once per site: rho = sum_i f_i, u = (sum_i f_i c_i + F/2) / rho
  // (the velocity of Guo forcing); 0 at solid sites.
  const size_t sites = solid.size();
  std::vector<double> rho(sites, 0.0), u(3 * sites, 0.0);
  for (size_t s = 0; s < sites; ++s) {
    if (solid[s]) continue;
    const double* fs = &f[s * static_cast<size_t>(vs.q)];
    double r = 0, j[3] = {0, 0, 0};
    for (int i = 0; i < vs.q; ++i) {
      r += fs[i];
      for (int d = 0; d < 3; ++d) j[d] += vs.c[i][d] * fs[i];
    }
    rho[s] = r;
    for (int d = 0; d < 3; ++d) u[3 * s + static_cast<size_t>(d)] = (j[d] + 0.5 * cfg_.force[d]) / r;
  }
  for (auto& q : q_) {
    Aggregator& a = q->io.aggregator();
    if (q->name == "mask")
      a.assign_x_slowest<uint8_t>(solid);
    else if (q->name == "density")
      a.assign_x_slowest<double>(rho);
    else
      a.assign_x_slowest<double>(u);
    q->io.write_begin(stem_of(cfg_.output_dir, q->name, step), step,
                      {{"model", vs.name}, {"case", cfg_.source}});
  }
  pending_step_ = step;
  if (!cfg_.output_async) complete();
}

void LbOutput::complete() {
  std::vector<IoMetadata> written;
  for (auto& q : q_) {
    const IoEvent ev = q->io.write_end();
    events_.push_back({q->name, pending_step_, ev});
    // (XDMF describes HDF5 and raw binary files, not ASCII ones.)
    if (cfg_.output_format != "ascii") written.push_back(read_metadata(ev.metadata_path));
  }
  const Decomposition& dec = solver_.decomposition();
  std::string err;
  if (!written.empty() && dec.rank() == 0) {
    try {
      write_durable_text(stem_of(cfg_.output_dir, "fields", pending_step_) + ".xmf", xdmf_text(written));
    } catch (const InputError& e) {
      err = e.what();
    }
  }
  throw_if_any(dec.comm(), err);
  pending_step_ = -1;
}

void LbOutput::finish() {
  if (pending_step_ >= 0) complete();
}

std::vector<IoRecord> LbOutput::take_events() { return std::exchange(events_, {}); }

std::vector<std::string> remove_stale_parts(const lb::LbConfig& cfg) {
  std::vector<std::string> out =
      remove_stale_parts(cfg.output_dir, {"density-", "velocity-", "mask-", "fields-"});
  for (std::string& p : remove_stale_parts(cfg.checkpoint_dir, {"checkpoint-"})) out.push_back(std::move(p));
  std::error_code ec;
  if (!cfg.summary.empty() && fs::remove(part_name(cfg.summary), ec)) out.push_back(part_name(cfg.summary));
  return out;
}

// ------------------------------------------------------------- checkpoints

std::string checkpoint_stem(const std::string& dir, long step) { return stem_of(dir, "checkpoint", step); }

namespace {

// Complete checkpoints in a directory, oldest first: (step, metadata path).
std::vector<std::pair<long, std::string>> checkpoints_in(const std::string& dir) {
  std::vector<std::pair<long, std::string>> out;
  std::error_code ec;
  // At most 18 digits: every such step fits a long (a longer name is not a
  // checkpoint haloex wrote).
  const std::regex name("checkpoint-([0-9]{1,18})\\.json");
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string f = e.path().filename().string();
    if (std::regex_match(f, m, name)) out.emplace_back(std::stol(m[1]), e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

IoRecord write_checkpoint(lb::Solver& solver, const std::string& dir, std::array<int, 3> io_grid, int keep) {
  const Decomposition& dec = solver.decomposition();
  const lb::LbConfig& cfg = solver.config();
  const int q = solver.velocities().q;
  IoOptions opt{IoFormat::binary, io_grid};
  opt.hints = cfg.output_hints;
  FieldIo io(dec, {IoType::f64, q, {}, "checkpoint"}, opt);
  const std::vector<double> f = solver.local_populations();
  io.aggregator().assign_x_slowest<double>(f);
  const long step = solver.steps_done();
  nlohmann::json lb = {{"model", solver.velocities().name},
                       {"physics", lb::physics_json(cfg)},
                       {"geometry_checksum", checksum_text(geometry_checksum(solver))},
                       {"config", lb::config_json(cfg)},
                       {"input", cfg.text},
                       {"random_seeds", nlohmann::json::array()}};
  const IoEvent ev = io.write(checkpoint_stem(dir, step), step, {{"lb", lb}});
  kill_point("checkpoint-complete", step);
  // Prune: the metadata goes first, so a checkpoint half-deleted by a crash
  // is no longer taken for a complete one.
  std::string err;
  if (dec.rank() == 0) {
    auto all = checkpoints_in(dir);
    for (size_t i = 0; i + static_cast<size_t>(keep) < all.size(); ++i) {
      const std::string old_stem = checkpoint_stem(dir, all[i].first);
      if (std::remove(all[i].second.c_str()) != 0) {
        err = "cannot delete old checkpoint " + all[i].second;
        break;
      }
      kill_point("pruning", step);
      const std::string prefix = fs::path(old_stem).filename().string() + ".";
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().filename().string().rfind(prefix, 0) == 0) fs::remove(e.path(), ec);
    }
  }
  throw_if_any(dec.comm(), err);
  return {"checkpoint", step, ev};
}

std::string find_checkpoint(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec)) throw InputError("restart: '" + path + "' does not exist");
    return path;
  }
  const auto all = checkpoints_in(path);
  if (all.empty())
    throw InputError("restart: no complete checkpoint (checkpoint-NNNNNN.json) in '" + path + "'");
  return all.back().second;
}

long restart_from(lb::Solver& solver, const std::string& metadata_path) {
  const Decomposition& dec = solver.decomposition();
  const lb::LbConfig& cfg = solver.config();
  const lb::VelocitySet& vs = solver.velocities();
  std::string err;
  IoMetadata m;
  try {
    m = read_metadata(metadata_path);
    const nlohmann::json& lb = m.extra.contains("lb") ? m.extra["lb"] : nlohmann::json();
    if (!lb.is_object() || !lb.contains("model") || !lb.contains("physics") ||
        !lb.contains("geometry_checksum"))
      throw InputError(metadata_path +
                       " is not an LB checkpoint (no extra.lb with model, physics and geometry)");
    if (lb["model"] != vs.name)
      throw InputError("restart: the checkpoint is " +
                       (lb["model"].is_string() ? lb["model"].get<std::string>() : lb["model"].dump()) +
                       ", this run is " + vs.name);
    const nlohmann::json want = lb::physics_json(cfg);
    for (auto& [key, value] : want.items())
      if (!lb["physics"].contains(key) || lb["physics"][key] != value)
        throw InputError("restart: " + key + " differs: the checkpoint has " +
                         (lb["physics"].contains(key) ? lb["physics"][key].dump() : std::string("none")) +
                         ", this run has " + value.dump());
  } catch (const InputError& e) {
    err = e.what();
  }
  throw_if_any(dec.comm(), err);
  const uint64_t geo = geometry_checksum(solver);
  if (checksum_text(geo) != m.extra["lb"]["geometry_checksum"])
    throw InputError("restart: the geometry (obstacles, mask file, walls) differs from the checkpoint's");
  FieldIo io(dec, {IoType::f64, vs.q, {}, "checkpoint"}, {IoFormat::binary, {1, 1, 1}});
  io.read(metadata_path);
  solver.set_populations(io.aggregator().x_slowest<double>(), m.step);
  return m.step;
}

}  // namespace haloex
