#pragma once
// Self-describing result records: JSON objects, one per line, each carrying
// the metadata of the run that produced it.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "haloex/measure/sweep.hpp"

namespace haloex {

/// MPI library name and version as the library reports it (first line).
std::string mpi_library_version();

/// What this build is: version, git commit, build type, compiler, C++
/// flags, OpenMP version, parallel HDF5 (true/false) and the MPI library.
/// Every record carries these (run_metadata) and `--version` prints them.
nlohmann::json build_facts();

/// build_facts as the lines `haloex --version` prints.
std::string version_text();

/// Metadata every record carries: tool version, git commit, MPI library and
/// standard version, host, UTC date, a random id shared by one invocation's
/// records ("run_id"), ranks, OpenMP threads and what chose
/// their number ("threads_source": "OMP_NUM_THREADS" or "affinity", see
/// threads_source), build type, and where every rank ran ("placement": see
/// placement()). Collective over comm.
nlohmann::json run_metadata(MPI_Comm comm, const std::string& benchmark);

/// Put raw samples and their statistics under one quantity's name: `q`
/// (the samples), `median_q`, `median_ci95_q` (the median's 95% interval,
/// [low, high]), `mean_q`, `stddev_q`, `min_q`, `max_q`. The name carries the unit, e.g. "latency_s".
void put_samples(nlohmann::json& record, const std::string& q, const std::vector<double>& samples);

/// How the rounds of a case ran: "rounds" (rounds run; sample i of every
/// candidate is from round i, so two candidates' samples pair; one that left
/// the race has fewer), "round_order" ("shuffled": each round in its own
/// order, round_order(); "fixed"), "rounds_stop" ("fixed", "decided", "budget",
/// "max-repeats"); with --ci also "rounds_target_ci", "rounds_budget_s",
/// "ranking_decided", "rounds_needed" and "ranking_open" (what was still
/// undecided).
void put_rounds(nlohmann::json& record, double precision, double budget_s, const RoundsOutcome& rounds,
                bool shuffled);

/// Where the time of a halo exchange went, per call, each sample the slowest
/// rank's: packing (local copies included), MPI (posting to completion,
/// waiting included) and unpacking. Puts the samples
/// (`pack_time_per_call_s`, ...), their medians `pack_s`, `mpi_s`,
/// `unpack_s`, the whole call's median `total_s` (the phases, each the
/// slowest rank's, need not add up to it), and the copy bandwidths of
/// packing and unpacking for `halo_bytes` per call.
void put_halo_phases(nlohmann::json& record, const std::vector<double>& pack_s,
                     const std::vector<double>& mpi_s, const std::vector<double>& unpack_s, double total_s,
                     double halo_bytes);

/// Writes JSON lines to `path` all at once (write_durable_text: a crash
/// never leaves a half-written file, a failure no temporary one). Throws
/// InputError when the file cannot be written.
void write_json_lines(const std::string& path, const std::vector<nlohmann::json>& records);

}  // namespace haloex
