#include "haloex/measure/placement.hpp"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

#include "haloex/core/mpi.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace haloex {

std::string affinity_text() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ",";
    out += std::to_string(c);
    if (last > c)
      out.append("-").append(std::to_string(last));  // (append: GCC 12's false -Wrestrict on "-" + s)
    c = last;
  }
  return out;
}

std::string launcher_name() {
  const auto has = [](const char* v) { return std::getenv(v) != nullptr; };
  if (const char* l = std::getenv("HALOEX_LAUNCHER"); l != nullptr && *l != '\0') return l;
  if (has("SLURM_STEP_ID") && (has("SLURM_PROCID") || has("PMI_RANK") || has("PMIX_RANK"))) return "srun";
  if (has("OMPI_COMM_WORLD_SIZE")) return "mpirun (Open MPI)";
  if (has("PMI_RANK")) return "mpiexec (Hydra)";
  return "none";
}

nlohmann::json mpi_environment() {
  // Open MPI's launcher passes its own wiring through OMPI_MCA_ variables
  // (URIs, job ids, session folders); they are not settings. (Open MPI 5's
  // launcher adds OMPI_MCA_PREFIXES and the two after it, MPICH's Hydra the
  // host name, Intel MPI's Hydra a job id that differs per launch and some
  // 25 I_MPI_INFO_ variables describing the CPU, which the record has.)
  static const char* const wiring[] = {"OMPI_MCA_orte_",
                                       "OMPI_MCA_ess",
                                       "OMPI_MCA_pmix",
                                       "OMPI_MCA_initial_wdir",
                                       "OMPI_MCA_shmem_RUNTIME_QUERY_hint",
                                       "OMPI_MCA_PREFIXES",
                                       "OMPI_MCA_num_procs",
                                       "OMPI_MCA_cpu_type",
                                       "MPIR_CVAR_CH3_INTERFACE_HOSTNAME",
                                       "I_MPI_HYDRA_UUID",
                                       "I_MPI_INFO_"};
  nlohmann::json out = nlohmann::json::object();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string kv(*e);
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = kv.substr(0, eq);
    bool wanted = false;
    for (const std::string& p : mpi_env_prefixes) wanted = wanted || name.rfind(p, 0) == 0;
    for (const char* w : wiring) wanted = wanted && name.rfind(w, 0) != 0;
    if (wanted) out[name] = kv.substr(eq + 1);
  }
  return out;
}

namespace {

// Every rank's text, in rank order, on rank 0 (empty elsewhere: only rank 0
// writes records, and an allgather would hold size^2 x 256 bytes over the
// ranks, which under SMPI all live in one process: 50 GB at 8192 ranks).
std::vector<std::string> gather_text(MPI_Comm comm, const std::string& mine) {
  constexpr int width = 256;
  char buf[width] = {0};
  std::strncpy(buf, mine.c_str(), width - 1);
  const bool root = comm_rank(comm) == 0;
  // (a receive buffer on every rank: SMPI refuses a null one even where the
  // standard says it is not significant)
  std::vector<char> all(root ? static_cast<size_t>(comm_size(comm)) * width : width);
  mpi_check(MPI_Gather(buf, width, MPI_CHAR, all.data(), width, MPI_CHAR, 0, comm), "MPI_Gather");
  if (!root) return {};
  std::vector<std::string> out;
  for (size_t r = 0; r < all.size() / width; ++r) out.emplace_back(&all[r * width]);
  return out;
}

// The running kernel's boot id: hosts that share it are one machine (the
// emulated nodes of `haloex-lab cluster` share its CPUs and memory).
std::string kernel_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

}  // namespace

nlohmann::json placement(MPI_Comm comm) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  const std::vector<std::string> hosts = gather_text(comm, host);
  std::map<std::string, int> per_host;
  for (const std::string& h : hosts) ++per_host[h];
  return {{"hosts", hosts},
          {"ranks_per_host", per_host},
          {"cpus", gather_text(comm, affinity_text())},
          {"kernels", gather_text(comm, kernel_id())},
          {"launcher", launcher_name()},
          {"mpi_env", mpi_environment()}};
}

}  // namespace haloex
