#pragma once
// Subcommands of the `haloex` program. Each registers its options on the
// parser and sets `run` to what executes it after MPI is up.
#include <CLI/CLI.hpp>
#include <functional>

namespace haloex::cli {

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
