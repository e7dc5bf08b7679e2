// `haloex info`: what this build and this MPI library are.
#include <mpi.h>
#include <omp.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "haloex/build_info.hpp"
#include "haloex/core/threads.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/io/field_io.hpp"
#include "haloex/measure/record.hpp"
#include "registry.hpp"

namespace haloex::cli {

namespace {

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
  }
  return "unknown";
}

// Every fact `haloex info` shows, as `--json` prints them (rank 0's). Collective.
nlohmann::json info_facts(const ThreadChoice& threads, int provided) {
  nlohmann::json j = run_metadata(MPI_COMM_WORLD, "info");
  j.erase("benchmark");
  j["affinity_cpus"] = threads.cpus;
  j["threads_pinned"] = pin_team(threads, omp_get_max_threads());
  j["ranks_sharing_cpus"] = threads.ranks_sharing;
  j["thread_level_requested"] = "MPI_THREAD_FUNNELED";
  j["thread_level_provided"] = thread_level_name(provided);
  j["strategies"] = strategy_names();
  nlohmann::json families = nlohmann::json::object();
  for (const StrategyInfo& s : haloex::strategies()) families[s.name] = s.family;
  j["strategy_families"] = families;
  // The benchmarks and their problem-size options, as haloex-lab's campaigns use them.
  nlohmann::json benchmarks = nlohmann::json::object();
  for (const CommandInfo& c : cli::benchmarks()) benchmarks[c.name] = c.size_option;
  j["benchmarks"] = benchmarks;
  return j;
}

// The same facts as text, for a person.
void print_info(const nlohmann::json& j, const ThreadChoice& threads, int provided, int size) {
  std::cout << "haloex " << build::version << " (git " << build::git_commit << ")\n"
            << "MPI library:    " << mpi_library_version() << "\n"
            << "MPI standard:   " << j["mpi_standard"].get<std::string>() << "\n"
            << "Thread level:   requested MPI_THREAD_FUNNELED, provided " << thread_level_name(provided)
            << "\n"
            << "Ranks:          " << size << ", OpenMP threads per rank: " << omp_get_max_threads()
            << " (OpenMP " << build::openmp_version << ")\n"
            << "Thread count:   from "
            << (threads.source == "affinity" ? "the affinity masks" : threads.source) << " (rank 0 may use "
            << threads.cpus << " CPUs, shared by " << threads.ranks_sharing
            << (threads.ranks_sharing == 1 ? " rank)\n" : " ranks)\n")
            << "Build:          " << build::build_type << ", " << build::compiler << "\n"
            << "C++ flags:      " << build::cxx_flags << "\n"
            << "Host:           " << j["host"].get<std::string>() << "\n";
  const nlohmann::json& p = j["placement"];
  std::cout << "Placement:      launcher " << p["launcher"].get<std::string>() << "; ranks per host:";
  for (const auto& [host, n] : p["ranks_per_host"].items()) std::cout << " " << host << " " << n;
  std::cout << "\nRank CPUs:     ";
  for (const auto& c : p["cpus"]) std::cout << " [" << c.get<std::string>() << "]";
  std::cout << "\nMPI settings:  ";
  if (p["mpi_env"].empty()) std::cout << " (none of OMPI_MCA_, MPICH_, I_MPI_, FI_, UCX_ set)";
  for (const auto& [name, value] : p["mpi_env"].items())
    std::cout << " " << name << "=" << value.get<std::string>();
  std::cout << "\nStrategies:    ";
  for (const auto& s : strategies()) std::cout << " " << s.name;
  std::cout << "\nOutput formats: binary ascii"
            << (hdf5_available() ? " hdf5 (parallel HDF5)" : " (hdf5: not built in)") << std::endl;
}

}  // namespace

void add_info(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("info", "Print the MPI library and version, thread level and build options");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the same facts as one JSON object");
  cmd->callback([&run, json] {
    run = [json](const ThreadChoice& threads) {
      int provided = 0, rank = 0, size = 0;
      MPI_Query_thread(&provided);
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      const nlohmann::json j = info_facts(threads, provided);
      if (rank != 0) return 0;
      if (*json)
        std::cout << j.dump(2) << std::endl;
      else
        print_info(j, threads, provided, size);
      return 0;
    };
  });
}

}  // namespace haloex::cli
