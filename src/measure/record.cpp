#include "haloex/measure/record.hpp"

#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

#include "haloex/build_info.hpp"
#include "haloex/core/durable.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/core/threads.hpp"
#include "haloex/measure/placement.hpp"
#include "haloex/measure/stats.hpp"

namespace haloex {

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<size_t>(len));
  if (auto nl = s.find_first_of("\r\n"); nl != std::string::npos) s.resize(nl);
  while (!s.empty() && (s.back() == ' ' || s.back() == ',' || s.back() == '\0')) s.pop_back();
  return s;
}

namespace {

// One invocation's records share it, so that an analysis pairs samples of
// the same rounds only (date_utc has one-second resolution). Rank 0's
// random 64 bits, broadcast.
std::string run_id(MPI_Comm comm) {
  unsigned long long id = 0;
  if (comm_rank(comm) == 0)
    id = (static_cast<unsigned long long>(std::random_device{}()) << 32) ^ std::random_device{}();
  mpi_check(MPI_Bcast(&id, 1, MPI_UNSIGNED_LONG_LONG, 0, comm), "MPI_Bcast");
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", id);
  return text;
}

}  // namespace

nlohmann::json run_metadata(MPI_Comm comm, const std::string& benchmark) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  int threads = omp_get_max_threads();
  int max_threads = 0;
  MPI_Allreduce(&threads, &max_threads, 1, MPI_INT, MPI_MAX, comm);
  nlohmann::json j = build_facts();
  j.update(nlohmann::json{{"benchmark", benchmark},
                          {"mpi_standard", std::to_string(major) + "." + std::to_string(minor)},
                          {"host", host},
                          {"date_utc", date},
                          {"ranks", comm_size(comm)},
                          {"threads_per_rank", max_threads},
                          {"threads_source", threads_source()},
                          {"placement", placement(comm)},
                          {"run_id", run_id(comm)}});
  return j;
}

nlohmann::json build_facts() {
  return nlohmann::json{{"haloex_version", build::version},
                        {"git_commit", build::git_commit},
                        {"build_type", build::build_type},
                        {"compiler", build::compiler},
                        {"cxx_flags", build::cxx_flags},
                        {"openmp_version", build::openmp_version},
                        {"hdf5", build::hdf5},
                        {"mpi_library", mpi_library_version()}};
}

std::string version_text() {
  const nlohmann::json b = build_facts();
  auto s = [&](const char* k) { return b[k].get<std::string>(); };
  return "haloex " + s("haloex_version") + " (git " + s("git_commit") + ")\n" +
         "compiler:    " + s("compiler") + "\n" + "MPI library: " + s("mpi_library") + "\n" +
         "build:       " + s("build_type") + ", OpenMP " + s("openmp_version") + ", parallel HDF5 " +
         (b["hdf5"].get<bool>() ? "on" : "off") + "\n" +
         "C++ flags:  " + s("cxx_flags");  // (the flags start with a space)
}

void put_samples(nlohmann::json& j, const std::string& q, const std::vector<double>& samples) {
  const Summary s = summarize(samples);
  j[q] = samples;
  j["median_" + q] = s.median;
  j["mean_" + q] = s.mean;
  j["stddev_" + q] = s.stddev;
  j["median_ci95_" + q] = {s.median_low, s.median_high};
  j["min_" + q] = s.min;
  j["max_" + q] = s.max;
}

void put_rounds(nlohmann::json& j, double precision, double budget_s, const RoundsOutcome& rounds,
                bool shuffled) {
  j["rounds"] = rounds.rounds;
  j["round_order"] = shuffled ? "shuffled" : "fixed";
  j["rounds_stop"] = rounds.stop;
  if (precision <= 0) return;
  j["rounds_target_ci"] = precision;
  j["rounds_budget_s"] = budget_s;
  j["ranking_decided"] = rounds.ranking.decided;
  j["rounds_needed"] = rounds.ranking.rounds_needed;
  j["ranking_open"] = rounds.ranking.why;
}

void put_halo_phases(nlohmann::json& j, const std::vector<double>& pack_s, const std::vector<double>& mpi_s,
                     const std::vector<double>& unpack_s, double total_s, double halo_bytes) {
  put_samples(j, "pack_time_per_call_s", pack_s);
  put_samples(j, "mpi_time_per_call_s", mpi_s);
  put_samples(j, "unpack_time_per_call_s", unpack_s);
  const double pack = summarize(pack_s).median, unpack = summarize(unpack_s).median;
  j["pack_s"] = pack;
  j["mpi_s"] = summarize(mpi_s).median;
  j["unpack_s"] = unpack;
  j["total_s"] = total_s;
  if (pack > 0) j["pack_bytes_per_s"] = halo_bytes / pack;
  if (unpack > 0) j["unpack_bytes_per_s"] = halo_bytes / unpack;
}

void write_json_lines(const std::string& path, const std::vector<nlohmann::json>& records) {
  std::string text;
  for (const auto& r : records) text += r.dump() + '\n';
  write_durable_text(path, text);
}

}  // namespace haloex
