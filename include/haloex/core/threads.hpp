#pragma once
// How many OpenMP threads each rank runs. Left to itself, the OpenMP runtime
// starts one thread per CPU in every rank, so ranks that share a node's CPUs
// oversubscribe them (2 ranks x 2 threads on 2 cores ran an LB case 66 times
// slower than 2 x 1). Without OMP_NUM_THREADS, haloex divides each rank's
// CPUs among the ranks that share them; with it, haloex keeps the user's
// number and says so once when it oversubscribes.
//
// The arithmetic is pure (masks in, numbers out) so that it is tested
// without MPI; plan_threads and choose_threads gather the masks.
#include <mpi.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace haloex {

/// A set of CPUs as a bitset: bit c % 8 of byte c / 8 stands for CPU c.
/// Masks of different lengths compare as if padded with zero bytes.
using CpuMask = std::vector<std::uint8_t>;

/// The mask holding exactly the listed CPU numbers (each >= 0).
CpuMask cpu_mask_of(const std::vector<int>& cpus);

/// How many CPUs a mask holds.
int cpu_count(const CpuMask& mask);

/// The CPUs this process's threads may run on: the union of the OpenMP
/// places when the runtime has places (it then binds the calling thread to
/// the first place, so the thread's own mask says too little), else the
/// calling thread's affinity mask (sched_getaffinity).
CpuMask affinity_mask();

/// The affinity rule for rank `me` of a node whose ranks have `masks`: the
/// CPUs of its mask divided among the ranks whose masks intersect it (itself
/// included), rounded down, at least 1. Disjoint masks (mpirun --bind-to
/// core) give each rank its own mask's count. The counts of all ranks never
/// sum to more than the CPUs of the union unless there are more ranks than
/// CPUs: the ranks holding a CPU all intersect, so each gets at most
/// 1/(their number) of it.
int threads_from_masks(const std::vector<CpuMask>& masks, int me);

/// The ranks of one node, their OpenMP threads and the CPUs they may use.
struct NodeLoad {
  int ranks = 0;    ///< ranks on the node
  int threads = 0;  ///< OpenMP threads summed over those ranks
  int cpus = 0;     ///< distinct CPUs in the union of their masks

  /// True when the threads, not the ranks, put more than one thread on a
  /// CPU: more threads than both CPUs and ranks (8 ranks x 1 thread on 2
  /// CPUs is the user's choice of ranks, which OMP_NUM_THREADS cannot mend).
  bool oversubscribed() const;
  /// The per-rank thread count that fits: CPUs / ranks, at least 1.
  int fitting_threads() const;
};

/// The load of a node whose ranks have `masks` and run `threads` each
/// (threads[i] for masks[i]).
NodeLoad node_load(const std::vector<CpuMask>& masks, const std::vector<int>& threads);

/// The one-line warning for an oversubscribed node `host`; `other_nodes`
/// counts further oversubscribed nodes, which the line mentions but does
/// not name.
std::string oversubscription_warning(const NodeLoad& load, const std::string& host, int other_nodes);

/// What decides the thread count: "OMP_NUM_THREADS" when that variable is
/// set and not empty, else "affinity" (the rule of threads_from_masks, as
/// applied by choose_threads at start-up).
std::string threads_source();

/// How one rank's OpenMP thread count is chosen.
struct ThreadChoice {
  int threads = 1;                  ///< OpenMP threads of this rank
  std::string source;               ///< "OMP_NUM_THREADS" or "affinity"
  int cpus = 0;                     ///< CPUs in this rank's mask
  int ranks_sharing = 1;            ///< ranks on this node whose masks intersect this rank's, itself included
  NodeLoad node;                    ///< this rank's node, with every rank's thread count
  std::vector<CpuMask> node_masks;  ///< every rank's mask on this node, before any pinning
  int node_rank = 0;                ///< this rank's index in node_masks
};

/// The pinning rule for rank `me` of a node whose ranks have `masks` and run
/// `threads` threads each: the ranks whose masks intersect `me`'s take
/// consecutive slices of its CPUs in rank order (mpirun --bind-to none: rank
/// 0 gets CPUs 0..t-1, rank 1 the next t), a rank with a mask of its own
/// takes the first CPUs of it. Thread t runs on element t. Empty when the
/// sharing ranks' slices do not all fit (more threads than CPUs), so that
/// either all of them pin or none: pinning would stack threads that the
/// kernel could otherwise spread.
std::vector<int> pin_cpus(const std::vector<CpuMask>& masks, int threads, int me);

/// Pin a team of `threads` OpenMP threads of this rank (a parallel region of
/// that size, so call it whenever the team size changes: threads that the
/// runtime starts later inherit the master's single CPU) and say how, in one
/// line for reports. Left to the OpenMP runtime when the user set
/// OMP_PROC_BIND or OMP_PLACES (OMP_PROC_BIND=false turns pinning off).
/// Collective over nothing: every rank decides from `choice` alone.
std::string pin_team(const ThreadChoice& choice, int threads);

/// Collective over comm: this rank's thread count and the facts behind it,
/// without changing anything. With OMP_NUM_THREADS set the count is the
/// runtime's (omp_get_max_threads), else threads_from_masks over the ranks
/// of comm on this node (MPI_COMM_TYPE_SHARED).
ThreadChoice plan_threads(MPI_Comm comm);

/// Collective over comm, once at start-up: plan_threads, then apply the
/// affinity rule (omp_set_num_threads) when OMP_NUM_THREADS is not set.
/// When the user's setting oversubscribes a node, rank 0 of comm writes one
/// warning line to `warn` for the whole run.
ThreadChoice choose_threads(MPI_Comm comm, std::ostream& warn);

}  // namespace haloex
