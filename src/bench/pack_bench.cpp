#include "haloex/bench/pack_bench.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "haloex/bench/halo_bench.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/halo/memory_bound.hpp"
#include "haloex/halo/pack.hpp"
#include "haloex/measure/record.hpp"

namespace haloex {

namespace {

// One representative halo region per box kind: the + face of every
// dimension, every edge, the corner.
std::vector<Offset> box_kinds(int ndim) {
  std::vector<Offset> out;
  for (const Offset& o : neighbour_offsets(ndim)) {
    bool positive = true;
    for (int d = 0; d < max_dims; ++d) positive = positive && o[d] >= 0;
    if (positive) out.push_back(o);
  }
  // Faces first, then edges, then the corner.
  std::stable_sort(out.begin(), out.end(), [](const Offset& a, const Offset& b) {
    auto nz = [](const Offset& o) { return (o[0] != 0) + (o[1] != 0) + (o[2] != 0); };
    return nz(a) < nz(b);
  });
  return out;
}

const char* kind_of(const Offset& o) {
  const int nz = (o[0] != 0) + (o[1] != 0) + (o[2] != 0);
  return nz == 1 ? "face" : nz == 2 ? "edge" : "corner";
}

// A plain copy of `bytes`, on the team when packing would be.
void plain_copy(const std::byte* src, std::byte* dst, size_t bytes, bool team) {
  if (!team) return void(std::memcpy(dst, src, bytes));  // as the library's packing skips the region
  constexpr size_t chunk = 64 * 1024;
  const long n = static_cast<long>((bytes + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
  for (long c = 0; c < n; ++c)
    std::memcpy(dst + c * chunk, src + c * chunk, std::min(chunk, bytes - static_cast<size_t>(c) * chunk));
}

template <class Body>
double slowest_per_call(MPI_Comm comm, long calls, Body&& body) {
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  const double t0 = MPI_Wtime();
  for (long i = 0; i < calls; ++i) body();
  const double t = (MPI_Wtime() - t0) / static_cast<double>(calls);
  double slowest = 0;
  mpi_check(MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  return slowest;
}

// What a box's result says before it is timed: the box, its kind, the copy
// kernels packing it, its bytes and the field lines they touch.
PackBenchResult describe_box(const Offset& o, const Message& send, const FieldShape& shape, long calls) {
  PackBenchResult r;
  r.box = offset_name(o);
  r.kind = kind_of(o);
  std::set<std::string> names;
  for (const Part& p : send.parts)
    for (const CopyKernel& k : p.pack) names.insert(k.name());
  for (const std::string& n : names) r.kernels += (r.kernels.empty() ? "" : "+") + n;
  r.bytes = static_cast<double>(send.bytes);
  r.touched_bytes = touched_bytes(send, shape);
  r.calls = calls;
  return r;
}

// The statistics of a timed box and its ratios against the plain copy, of
// the bytes and of the lines they touch.
void add_ratios(PackBenchResult& r) {
  r.pack = summarize(r.pack_s), r.unpack = summarize(r.unpack_s);
  r.local = summarize(r.local_s), r.copy = summarize(r.copy_s), r.lines = summarize(r.lines_s);
  r.pack_ratio_to_copy = r.copy.median / r.pack.median;
  r.unpack_ratio_to_copy = r.copy.median / r.unpack.median;
  r.local_ratio_to_copy = r.copy.median / r.local.median;
  r.pack_lines_ratio = r.lines.median / r.pack.median;
  r.unpack_lines_ratio = r.lines.median / r.unpack.median;
  r.local_lines_ratio = r.lines.median / r.local.median;
}

// The pack, unpack and local copy of the region of box o, a plain copy of
// the same bytes and one of as many bytes as the lines they touch, `opt.repeats` samples each (the slowest
// rank's); nothing when nothing travels to that region (the reduced plan's corners).
std::optional<PackBenchResult> measure_box(MPI_Comm comm, const PackBenchOptions& opt, const Plan& plan,
                                           const std::span<const FieldView> fields, const Offset& o) {
  const Stage& st = plan.direct();
  const Link* link = nullptr;
  for (const Link& l : st.links)
    if (l.offset == o) link = &l;
  if (!link || link->send.empty()) return std::nullopt;
  const Message& send = link->send;
  const Message& recv = st.links[link->partner].recv;
  const long calls = opt.iterations > 0
                         ? opt.iterations
                         : std::max<long>(10, static_cast<long>(8e6 / static_cast<double>(send.bytes)));
  PackBenchResult r = describe_box(o, send, fields.front().shape, calls);
  Buffer buf(send.bytes), a(send.bytes), b(send.bytes);
  std::memset(a.data(), 1, send.bytes);
  const auto touched = static_cast<size_t>(r.touched_bytes);
  Buffer ta(touched), tb(touched);
  std::memset(ta.data(), 1, touched);
  const PackJob pj{&send, buf.data()}, uj{&recv, buf.data()};
  const bool team = packs_on_team(opt.pack_threads, send.bytes);
  auto do_pack = [&] { pack({&pj, 1}, fields, opt.pack_threads); };
  auto do_unpack = [&] { unpack({&uj, 1}, fields, opt.pack_threads); };
  auto do_local = [&] { copy_local(*link, fields, opt.pack_threads); };
  auto do_copy = [&] { plain_copy(a.data(), b.data(), send.bytes, team); };
  auto do_lines = [&] { plain_copy(ta.data(), tb.data(), touched, team); };
  for (int w = 0; w < opt.warmup; ++w) do_pack(), do_unpack(), do_local(), do_copy(), do_lines();

  for (int rep = 0; rep < opt.repeats; ++rep) {
    // Interleaved, so a drift in machine load touches all five alike.
    r.copy_s.push_back(slowest_per_call(comm, calls, do_copy));
    r.lines_s.push_back(slowest_per_call(comm, calls, do_lines));
    r.pack_s.push_back(slowest_per_call(comm, calls, do_pack));
    r.unpack_s.push_back(slowest_per_call(comm, calls, do_unpack));
    r.local_s.push_back(slowest_per_call(comm, calls, do_local));
  }
  return r;
}

// Every box kind of an L^d subdomain in one layout, the results on rank 0.
void measure_layout(MPI_Comm comm, const PackBenchOptions& opt, const ComponentPredicate& travels, long L,
                    Layout layout, std::vector<PackBenchResult>& results, std::ostream& log) {
  const int rank = comm_rank(comm);
  // This rank's own periodic lattice: every neighbour is itself, so the
  // plan holds a message and a local copy for every box, and no MPI.
  DecompositionSpec spec;
  spec.ndim = opt.ndim;
  for (int d = 0; d < opt.ndim; ++d) spec.global[d] = L;
  Decomposition dec(MPI_COMM_SELF, spec);
  const FieldShape shape = FieldShape::make(dec, opt.type, opt.ncomp, opt.halo, layout);
  auto storage = allocate_aligned<std::byte>(static_cast<size_t>(shape.elements()) * element_size(opt.type));
  for (size_t i = 0; i < static_cast<size_t>(shape.elements()) * element_size(opt.type); ++i)
    storage[i] = static_cast<std::byte>(i * 7);
  const FieldView view{shape, storage.get()};
  const std::span<const FieldView> fields(&view, 1);
  PlanOptions po;
  po.regions = opt.plan == "faces" ? Regions::faces : Regions::all;
  po.pack_threads = opt.pack_threads;
  const Plan plan(dec, {FieldSpec{shape, travels}}, po);

  for (const Offset& o : box_kinds(opt.ndim)) {
    std::optional<PackBenchResult> r = measure_box(comm, opt, plan, fields, o);
    if (!r) continue;
    r->size = L;
    r->layout = layout;
    add_ratios(*r);
    if (opt.progress && rank == 0)
      log << "[bench pack] L=" << L << " " << to_string(layout) << " " << r->box << " done\n" << std::flush;
    if (rank == 0) results.push_back(std::move(*r));
  }
}

}  // namespace

std::vector<PackBenchResult> run_pack_bench(MPI_Comm comm, const PackBenchOptions& opt, std::ostream& log) {
  if (opt.repeats < 1) throw InputError("--repeats must be at least 1");
  if (opt.iterations < 0) throw InputError("--iterations must not be negative");
  if (opt.sizes.empty()) throw InputError("give at least one subdomain size");
  const ComponentPredicate travels = travels_for_plan(opt.plan, opt.velocity_set, opt.ncomp, opt.ndim);
  std::vector<PackBenchResult> results;
  for (long L : opt.sizes) {
    if (L < 2 * opt.halo)
      throw InputError("subdomain size " + std::to_string(L) + " is thinner than two halos");
    for (Layout layout : opt.layouts) measure_layout(comm, opt, travels, L, layout, results, log);
  }
  return results;
}

namespace {

// The summary: the region, of those of at least 64 KiB, whose pack, unpack or
// local copy comes least close to the copy of its touched lines.
std::string worst_line(const std::vector<PackBenchResult>& results) {
  const PackBenchResult* worst = nullptr;
  double ratio = 0;
  const char* op = "";
  for (const PackBenchResult& r : results) {
    if (r.bytes < 64 * 1024) continue;
    const std::pair<double, const char*> ops[] = {
        {r.pack_lines_ratio, "pack"}, {r.unpack_lines_ratio, "unpack"}, {r.local_lines_ratio, "local"}};
    for (const auto& [v, name] : ops)
      if (!worst || v < ratio) worst = &r, ratio = v, op = name;
  }
  std::ostringstream out;
  if (!worst) return "# worst of the regions of at least 64 KiB against their lines: none that large\n";
  out << "# worst of the regions of at least 64 KiB against their lines: " << std::fixed
      << std::setprecision(2) << ratio << " (" << op << ", L=" << worst->size << " "
      << to_string(worst->layout) << " " << worst->box << ", " << worst->kernels << ")\n";
  return out.str();
}

}  // namespace

std::string format_pack_table(const PackBenchOptions& opt, const std::vector<PackBenchResult>& results) {
  std::ostringstream out;
  out << "# " << opt.ncomp << " x " << to_string(opt.type) << " per site, " << opt.plan << " plan, halo "
      << opt.halo << ", pack threads " << to_string(opt.pack_threads) << " (" << omp_get_max_threads()
      << " threads); times per call (median), ratio = plain copy of the same bytes / time;\n"
      << "# lines = the lowest of the three ratios against a plain copy of as many bytes as the lines "
         "touched\n";
  out << std::left << std::setw(6) << "L" << std::setw(8) << "layout" << std::setw(9) << "box" << std::setw(8)
      << "kind" << std::setw(12) << "kernel" << std::right << std::setw(11) << "bytes" << std::setw(11)
      << "touched" << std::setw(11) << "copy_us" << std::setw(11) << "lines_us" << std::setw(11) << "pack_us"
      << std::setw(11) << "unpack_us" << std::setw(11) << "local_us" << std::setw(11) << "pack_GB/s"
      << std::setw(8) << "pack" << std::setw(8) << "unpack" << std::setw(8) << "local" << std::setw(8)
      << "lines"
      << "\n";
  for (const PackBenchResult& r : results) {
    out << std::left << std::setw(6) << r.size << std::setw(8) << to_string(r.layout) << std::setw(9) << r.box
        << std::setw(8) << r.kind << std::setw(12) << r.kernels << std::right << std::setw(11)
        << static_cast<long>(r.bytes) << std::setw(11) << static_cast<long>(r.touched_bytes) << std::fixed
        << std::setprecision(2) << std::setw(11) << r.copy.median * 1e6 << std::setw(11)
        << r.lines.median * 1e6 << std::setw(11) << r.pack.median * 1e6 << std::setw(11)
        << r.unpack.median * 1e6 << std::setw(11) << r.local.median * 1e6 << std::setw(11)
        << r.bytes / r.pack.median / 1e9 << std::setw(8) << r.pack_ratio_to_copy << std::setw(8)
        << r.unpack_ratio_to_copy << std::setw(8) << r.local_ratio_to_copy << std::setw(8)
        << std::min({r.pack_lines_ratio, r.unpack_lines_ratio, r.local_lines_ratio}) << "\n";
  }
  out << worst_line(results);
  return out.str();
}

std::vector<nlohmann::json> pack_bench_records(MPI_Comm comm, const PackBenchOptions& opt,
                                               const std::vector<PackBenchResult>& results) {
  const nlohmann::json meta = run_metadata(comm, "pack");
  std::vector<nlohmann::json> out;
  for (const PackBenchResult& r : results) {
    nlohmann::json j = meta;
    j["ndim"] = opt.ndim;
    j["local_size"] = r.size;
    j["ncomp"] = opt.ncomp;
    j["halo_width"] = opt.halo;
    j["halo_plan"] = opt.plan;
    j["dtype"] = to_string(opt.type);
    j["layout"] = to_string(r.layout);
    j["pack_threads"] = to_string(opt.pack_threads);
    j["box"] = r.box;
    j["box_kind"] = r.kind;
    j["kernels"] = r.kernels;
    j["bytes"] = r.bytes;
    j["touched_bytes"] = r.touched_bytes;
    j["calls_per_sample"] = r.calls;
    put_samples(j, "pack_s", r.pack_s);
    put_samples(j, "unpack_s", r.unpack_s);
    put_samples(j, "local_copy_s", r.local_s);
    put_samples(j, "plain_copy_s", r.copy_s);
    put_samples(j, "lines_copy_s", r.lines_s);
    j["pack_bytes_per_s"] = r.bytes / r.pack.median;
    j["unpack_bytes_per_s"] = r.bytes / r.unpack.median;
    j["ratio_to_copy"] = r.pack_ratio_to_copy;
    j["unpack_ratio_to_copy"] = r.unpack_ratio_to_copy;
    j["local_ratio_to_copy"] = r.local_ratio_to_copy;
    j["lines_ratio_to_copy"] = r.pack_lines_ratio;
    j["unpack_lines_ratio_to_copy"] = r.unpack_lines_ratio;
    j["local_lines_ratio_to_copy"] = r.local_lines_ratio;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
