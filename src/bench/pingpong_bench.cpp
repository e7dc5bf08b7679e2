#include "haloex/bench/pingpong_bench.hpp"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/measure/record.hpp"

namespace haloex {

namespace {

size_t parse_bytes(const std::string& item, const std::string& text) {
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(item, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (item.empty() || used == 0 || item[0] == '-')
    throw InputError("-m/--sizes: '" + text + "' is not MIN:MAX or a list of byte counts (suffixes K, M, G)");
  const std::string suffix = item.substr(used);
  size_t scale = 1;
  if (suffix == "K" || suffix == "k")
    scale = size_t(1) << 10;
  else if (suffix == "M" || suffix == "m")
    scale = size_t(1) << 20;
  else if (suffix == "G" || suffix == "g")
    scale = size_t(1) << 30;
  else if (!suffix.empty())
    throw InputError("-m/--sizes: unknown suffix '" + suffix + "' in '" + text + "' (valid: K, M, G)");
  const size_t bytes = static_cast<size_t>(v) * scale;
  if (bytes > (size_t(1) << 30)) throw InputError("-m/--sizes: " + item + " is more than the 1 GiB limit");
  return bytes;
}

}  // namespace

PingPongBuffers::PingPongBuffers(const std::string& mode, size_t bytes, int rank) {
  if (mode != "osu" && mode != "one")
    throw InputError("--buffers must be 'osu' or 'one', got '" + mode + "'");
  one_ = mode == "one";
  // Filled, as osu_latency fills its buffers: every page is touched before
  // the first message.
  send_ = Buffer(bytes);
  for (size_t i = 0; i < bytes; ++i) send_.data()[i] = pingpong_pattern(rank, i);
  if (!one_) {
    recv_ = Buffer(bytes);
    std::memset(recv_.data(), 0, bytes);
  }
}

void pingpong_round_trips(MPI_Comm comm, PingPongBuffers& buffers, size_t bytes, int trips) {
  const int rank = comm_rank(comm), n = static_cast<int>(bytes);
  if (rank <= 1 && bytes > buffers.size()) throw Error("pingpong: a message larger than its buffers");
  for (int i = 0; i < trips; ++i) {
    if (rank == 0) {
      mpi_check(MPI_Send(buffers.send(), n, MPI_BYTE, 1, 0, comm), "MPI_Send");
      mpi_check(MPI_Recv(buffers.recv(), n, MPI_BYTE, 1, 0, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    } else if (rank == 1) {
      mpi_check(MPI_Recv(buffers.recv(), n, MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE), "MPI_Recv");
      mpi_check(MPI_Send(buffers.send(), n, MPI_BYTE, 0, 0, comm), "MPI_Send");
    }
  }
}

std::vector<size_t> parse_message_sizes(const std::string& text) {
  std::vector<size_t> out;
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    const size_t lo = parse_bytes(text.substr(0, colon), text),
                 hi = parse_bytes(text.substr(colon + 1), text);
    if (hi < lo) throw InputError("-m/--sizes: '" + text + "' has MAX below MIN");
    out.push_back(lo);
    for (size_t b = lo == 0 ? 1 : lo * 2; b <= hi; b *= 2) out.push_back(b);
  } else {
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(parse_bytes(item, text));
  }
  if (out.empty()) throw InputError("-m/--sizes: empty list");
  return out;
}

std::vector<PingPongResult> run_pingpong_bench(MPI_Comm comm, const PingPongOptions& opt, std::ostream& log) {
  if (comm_size(comm) < 2) throw InputError("pingpong needs at least 2 ranks (run it under mpirun -np 2)");
  if (opt.repeats < 1 || opt.iterations < 1 || opt.iterations_large < 1)
    throw InputError("--repeats and --iterations must be at least 1");
  std::vector<size_t> sizes = opt.sizes;
  if (sizes.empty()) sizes = parse_message_sizes("1:16M");
  const int rank = comm_rank(comm);
  const size_t biggest = *std::max_element(sizes.begin(), sizes.end());
  // Ranks 0 and 1 bounce messages; the others only wait (and need no memory).
  PingPongBuffers buffers(opt.buffers, rank <= 1 ? biggest : 0, rank);
  auto bounce = [&](size_t bytes, int trips) { pingpong_round_trips(comm, buffers, bytes, trips); };
  auto trips_for = [&](size_t b) { return b >= opt.large_bytes ? opt.iterations_large : opt.iterations; };

  std::vector<std::vector<double>> samples(sizes.size());
  Repetition rep{1, opt.repeats, 0, opt.precision, opt.budget_s};
  check_repetition(rep);
  RoundsRule rule(rep, comm, sizes.size());
  std::vector<std::string> names;
  names.reserve(sizes.size());
  for (size_t b : sizes) names.push_back(std::to_string(b) + " B");
  const auto rank_now = [&] { return all_within(samples, names, opt.precision); };
  for (int r = 0; rule.another(r, rank_now); ++r) {
    if (opt.progress && rank == 0)
      log << "[bench pingpong] round " << rule.round_text(r) << "\n" << std::flush;
    // Sizes interleaved: a slow spell of the machine spreads over all sizes.
    for (size_t s = 0; s < sizes.size(); ++s) {
      const size_t b = sizes[s];
      if (r == 0) bounce(b, b >= opt.large_bytes ? opt.warmup_large : opt.warmup);
      mpi_check(MPI_Barrier(comm), "MPI_Barrier");
      const double t0 = MPI_Wtime();
      bounce(b, trips_for(b));
      const double t = MPI_Wtime() - t0;
      samples[s].push_back(t / (2.0 * trips_for(b)));  // rank 0's clock: it saw every round trip
    }
  }
  std::vector<PingPongResult> out;
  if (rank != 0) return out;
  for (size_t s = 0; s < sizes.size(); ++s) {
    PingPongResult r;
    r.bytes = sizes[s];
    r.round_trips = trips_for(sizes[s]);
    r.latency_s = samples[s];
    r.summary = summarize(samples[s]);
    r.bandwidth_bytes_per_s = static_cast<double>(r.bytes) / r.summary.median;
    r.rounds = rule.outcome();
    out.push_back(std::move(r));
  }
  return out;
}

std::string format_pingpong_table(const std::vector<PingPongResult>& results) {
  std::ostringstream out;
  out << std::right << std::setw(12) << "bytes" << std::setw(8) << "trips" << std::setw(14) << "median_us"
      << std::setw(12) << "mean_us" << std::setw(10) << "std_us" << std::setw(12) << "min_us" << std::setw(14)
      << "MB/s"
      << "\n";
  for (const PingPongResult& r : results) {
    const Summary& s = r.summary;
    out << std::setw(12) << r.bytes << std::setw(8) << r.round_trips << std::fixed << std::setprecision(3)
        << std::setw(14) << s.median * 1e6 << std::setw(12) << s.mean * 1e6 << std::setw(10) << s.stddev * 1e6
        << std::setw(12) << s.min * 1e6 << std::setw(14) << std::setprecision(2)
        << r.bandwidth_bytes_per_s / 1e6 << "\n";
  }
  return out.str();
}

std::vector<nlohmann::json> pingpong_records(MPI_Comm comm, const PingPongOptions& opt,
                                             const std::vector<PingPongResult>& results) {
  const nlohmann::json meta = run_metadata(comm, "pingpong");
  std::vector<nlohmann::json> out;
  for (const PingPongResult& r : results) {
    nlohmann::json j = meta;
    j["pair"] = {0, 1};
    j["buffers"] = opt.buffers;
    j["message_bytes"] = r.bytes;
    j["round_trips_per_sample"] = r.round_trips;
    j["warmup_round_trips"] = r.bytes >= opt.large_bytes ? opt.warmup_large : opt.warmup;
    put_rounds(j, opt.precision, opt.budget_s, r.rounds, false);
    put_samples(j, "latency_s", r.latency_s);
    j["bandwidth_bytes_per_s"] = r.bandwidth_bytes_per_s;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
