// The table of commands: adding one is its file (with its add_ function,
// beside the code it runs), the function's name in the declaration below
// and a line in a table. The names of the commands live only here.
#include "registry.hpp"

namespace haloex::cli {

// The add_ functions, each defined in its command's file: declared here
// through one function type rather than in headers of their own.
Add add_info, add_lb, add_stencil, add_bench_halo, add_bench_pack, add_bench_lb, add_bench_pingpong,
    add_bench_stream, add_bench_stencil, add_bench_clock, add_bench_coll, add_bench_overlap,
    add_bench_monitor, add_bench_io;

namespace {

const CommandInfo top_level[] = {
    {"info", nullptr, add_info},        // src/cli/info.cpp
    {"lb", nullptr, add_lb},            // src/lb/command.cpp
    {"stencil", nullptr, add_stencil},  // src/stencil/command.cpp
};

const CommandInfo bench_commands[] = {
    {"halo", "-m", add_bench_halo},          // src/bench/halo_command.cpp
    {"pack", "-m", add_bench_pack},          // src/bench/pack_command.cpp
    {"lb", "-L", add_bench_lb},              // src/lb/bench_command.cpp
    {"pingpong", "-m", add_bench_pingpong},  // src/bench/pingpong_command.cpp
    {"stream", "-n", add_bench_stream},      // src/bench/stream_bench.cpp
    {"stencil", "--nz", add_bench_stencil},  // src/stencil/bench_command.cpp
    {"clock", "-n", add_bench_clock},        // src/bench/coll_command.cpp
    {"coll", "-m", add_bench_coll},          // src/bench/coll_command.cpp
    {"overlap", "-m", add_bench_overlap},    // src/bench/coll_command.cpp
    {"monitor", "-L", add_bench_monitor},    // src/bench/monitor_command.cpp
    {"io", "-L", add_bench_io},              // src/bench/io_command.cpp
};

}  // namespace

std::span<const CommandInfo> commands() { return top_level; }
std::span<const CommandInfo> benchmarks() { return bench_commands; }

}  // namespace haloex::cli
