#pragma once
// The commands of the `haloex` program as one table: each names its
// subcommand and the function that registers its options and its runner.
// main builds the parser and its help from it, and `haloex info --json`
// lists the benchmarks from it (for haloex-lab's campaigns). A command's
// code lives with what it runs: src/lb/command.cpp, src/bench/halo_command.cpp.
#include <CLI/CLI.hpp>
#include <span>

#include "haloex/measure/options.hpp"

namespace haloex::cli {

/// Registers a command's options on its parent (the program, or `bench`) and
/// sets `run` to what executes it when the command is the one chosen.
using Add = void(CLI::App& parent, Runner& run);

/// One command: `haloex NAME` or `haloex bench NAME`.
struct CommandInfo {
  const char* name;         ///< the subcommand
  const char* size_option;  ///< a benchmark's problem-size option (a campaign's `sizes`), or nullptr
  Add* add;                 ///< defined in the command's own file
};

/// The top-level commands, in the order of the help (`bench` follows them).
std::span<const CommandInfo> commands();

/// The benchmarks of `haloex bench`, in the order of the help.
std::span<const CommandInfo> benchmarks();

}  // namespace haloex::cli
