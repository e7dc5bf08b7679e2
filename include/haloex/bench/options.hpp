#pragma once
// Options of the benchmarks that exchange halos: the plan and who packs.
#include <CLI/CLI.hpp>
#include <string>

namespace haloex::cli {

/// The halo plan options every command that exchanges halos takes: --plan
/// (full, faces, reduced) and --pack-threads (auto, on, off).
inline void add_plan_options(CLI::App& cmd, std::string& plan, std::string& pack_threads) {
  cmd.add_option("--plan", plan,
                 "full (every component to every halo site), faces (faces only: no edges or corners, what a "
                 "7-point stencil needs) or reduced (only the LB populations that cross)")
      ->check(CLI::IsMember({"full", "faces", "reduced"}))
      ->capture_default_str();
  cmd.add_option("--pack-threads", pack_threads,
                 "Pack and unpack on the OpenMP team: auto (messages of 32 KiB and more), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
}

}  // namespace haloex::cli
