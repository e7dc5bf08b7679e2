#pragma once
// The command-line options every measurement shares, spelled the same in
// every command (-i/-r/-x, --ci/--budget, -o/-q; OSU's and IMB's names),
// the output-file check and how a benchmark ends: its table and records.
// Commands are CLI11 subcommands; each sets a Runner that runs after MPI
// is up.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "haloex/core/error.hpp"
#include "haloex/core/paths.hpp"
#include "haloex/core/threads.hpp"
#include "haloex/measure/record.hpp"

namespace haloex::cli {

/// What a subcommand runs once MPI is up, given the thread plan made at
/// start-up (the masks it holds predate any pinning).
using Runner = std::function<int(const ThreadChoice&)>;

/// The non-empty entries of a comma-separated list ("staged,direct").
inline std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string w; std::getline(ss, w, ',');)
    if (!w.empty()) out.push_back(w);
  return out;
}

/// CLI11 check of an output file (output_file_problem): a path that cannot
/// be written is an option error, found before any work starts.
inline CLI::Validator output_file() {
  return CLI::Validator([](std::string& path) { return output_file_problem(path); }, "FILE", "output file");
}

/// The options every benchmark ends with: -o/--json (JSON lines, checked
/// up front) and -q/--quiet.
inline void add_json_and_quiet(CLI::App& cmd, std::string& json, bool& quiet,
                               const std::string& what = "Write results as JSON lines to this file") {
  cmd.add_option("-o,--json", json, what + " (missing folders are created)")->check(output_file());
  cmd.add_flag("-q,--quiet", quiet, "No progress lines on stderr");
}

/// What one iteration, one sample and one warm-up run are in a benchmark's
/// help text ("Exchanges timed per sample", ...).
struct RepetitionHelp {
  std::string iterations;                           ///< help of -i: what one sample times
  std::string repeats;                              ///< help of -r: what the samples are
  std::string warmup;                               ///< help of -x: what runs untimed first
  std::string iteration_names = "-i,--iterations";  ///< -i's names (older spellings kept as aliases)
};

/// -i/--iterations, -r/--repeats and -x/--warmup: the same names and ranges
/// in every benchmark that repeats its candidates.
template <class I, class R, class W>
void add_repetition_options(CLI::App& cmd, I& iterations, R& repeats, W& warmup, const RepetitionHelp& help) {
  cmd.add_option(help.iteration_names, iterations, help.iterations)
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  cmd.add_option("-r,--repeats", repeats, help.repeats)->check(CLI::Range(1, 100000))->capture_default_str();
  cmd.add_option("-x,--warmup", warmup, help.warmup)->check(CLI::Range(0, 100000000))->capture_default_str();
}

/// --ci and --budget: rounds until the ranking is decided. `ci` is kept as
/// text ("5%" or "0.05") and read by parse_precision.
inline void add_precision_options(CLI::App& cmd, std::string& ci, double& budget_s) {
  cmd.add_option("--ci", ci,
                 "Repeat rounds (at least -r) until the fastest candidate's median is known to within this "
                 "(95% interval, e.g. 5%) and it is decidedly faster than, or within 2% of, every other "
                 "(paired per-round ratios), or until --budget is spent; 0: exactly -r rounds")
      ->capture_default_str();
  cmd.add_option("--budget", budget_s, "Seconds the rounds of one case may take with --ci")
      ->check(CLI::Range(1e-3, 1e7))
      ->capture_default_str();
}

/// "5%" -> 0.05, "0.05" -> 0.05; anything else, or outside [0, 100%), is an
/// InputError naming --ci.
inline double parse_precision(const std::string& text) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (t.empty() || used != t.size() || !(v >= 0))
    throw InputError("--ci must be a relative width such as 5% or 0.05, got '" + text + "'");
  v = percent ? v / 100 : v;
  if (!(v < 1)) throw InputError("--ci must be below 100%, got '" + text + "'");
  return v;
}

/// A benchmark's ending on rank 0: its table on stdout, then its records
/// written to `json_path` (when given) and a line saying so.
inline void print_results(const std::string& table, const std::vector<nlohmann::json>& records,
                          const std::string& json_path) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  std::cout << table << std::flush;
  if (json_path.empty()) return;
  write_json_lines(json_path, records);
  std::cout << "# wrote " << records.size() << " records to " << json_path << "\n";
}

}  // namespace haloex::cli
