#pragma once
// Subcommands of the `haloex` program. Each registers its options on the
// parser and sets `run` to what executes it after MPI is up.
#include <CLI/CLI.hpp>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace haloex::cli {

/// The non-empty entries of a comma-separated list ("staged,direct").
inline std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string w; std::getline(ss, w, ',');)
    if (!w.empty()) out.push_back(w);
  return out;
}

/// What the chosen subcommand runs; returns the exit code.
using Runner = std::function<int()>;

/// `haloex info`: MPI library, thread level, build options.
void add_info(CLI::App& app, Runner& run);

/// `haloex bench halo`: time every halo strategy.
void add_bench_halo(CLI::App& bench, Runner& run);

/// `haloex lb case.toml`: run a lattice Boltzmann case.
void add_lb(CLI::App& app, Runner& run);

/// `haloex bench lb`: LB kernels against the machine's memory bandwidth.
void add_bench_lb(CLI::App& bench, Runner& run);

}  // namespace haloex::cli
