#pragma once
// Self-describing result records: JSON objects, one per line, each carrying
// the metadata of the run that produced it.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace haloex {

/// MPI library name and version as the library reports it (first line).
std::string mpi_library_version();

/// Metadata every record carries: tool version, git commit, MPI library and
/// standard version, host, UTC date, ranks, OpenMP threads and what chose
/// their number ("threads_source": "OMP_NUM_THREADS" or "affinity", see
/// threads_source), build type. Collective over comm (ranks may differ in
/// host names).
nlohmann::json run_metadata(MPI_Comm comm, const std::string& benchmark);

/// Put raw samples and their statistics under one quantity's name: `q`
/// (the samples), `median_q`, `mean_q`, `stddev_q`, `ci95_q` ([low, high]),
/// `min_q`, `max_q`. The name carries the unit, e.g. "latency_s".
void put_samples(nlohmann::json& record, const std::string& q, const std::vector<double>& samples);

/// Writes JSON lines to `path` all at once, under a temporary name renamed
/// into place when complete, so a crash never leaves a half-written file.
/// Throws Error when the file cannot be written.
void write_json_lines(const std::string& path, const std::vector<nlohmann::json>& records);

}  // namespace haloex
