#pragma once
// Where a run ran: the facts that make two results comparable or not. Two
// measurements belong on one curve only when they ran on the same kind of
// placement, with the same MPI library and the same MPI settings.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace haloex {

/// The environment variables that change how MPI behaves, by prefix: Open
/// MPI's (4 and 5), MPICH's (its CVARs too), Intel MPI's, libfabric's, UCX's,
/// and a library preloaded into the ranks (the tests' yield shim for MPICH 4.0,
/// and its setting).
inline const std::vector<std::string> mpi_env_prefixes{"OMPI_MCA_",  "PRTE_MCA_",  "MPICH_",
                                                       "MPIR_CVAR_", "I_MPI_",     "FI_",
                                                       "UCX_",       "LD_PRELOAD", "HALOEX_MPICH_YIELD"};

/// The CPUs this process may run on (sched_getaffinity) as ranges, e.g.
/// "0-3,8"; "" where the system does not say.
std::string affinity_text();

/// The launcher that started this process: $HALOEX_LAUNCHER when set (the
/// campaign runner sets it), else what the environment shows: "srun"
/// (SLURM_STEP_ID with a process rank), "mpirun (Open MPI)"
/// (OMPI_COMM_WORLD_SIZE), "mpiexec (Hydra)" (PMI_RANK), or "none".
std::string launcher_name();

/// The variables of `environ` that start with one of mpi_env_prefixes,
/// as a JSON object, without the ones launchers set for their own wiring
/// (Open MPI's OMPI_MCA_orte_*, OMPI_MCA_ess*, OMPI_MCA_pmix, ..., Hydra's
/// MPIR_CVAR_CH3_INTERFACE_HOSTNAME), which differ from run to run and are
/// not settings.
nlohmann::json mpi_environment();

/// Collective over comm: {"hosts": host of each rank, "ranks_per_host":
/// {host: ranks}, "cpus": each rank's affinity_text, "launcher",
/// "mpi_env": mpi_environment() of rank 0}. The lists are complete on rank
/// 0 only (empty elsewhere).
nlohmann::json placement(MPI_Comm comm);

}  // namespace haloex
