#pragma once
// What the strategies that share memory on a node use to agree with each
// other without MPI calls (internal header): counters on cache lines of
// their own, read and written with acquire/release order, a polite spin,
// and which ranks of a communicator share a node.
#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "haloex/core/mpi.hpp"

namespace haloex::detail {

constexpr size_t cache_line = 64;  // counters written by different ranks never share one
inline size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/// Two counters a writer and its readers hand a generation number with.
struct Header {
  alignas(cache_line) std::uint64_t posted;
  alignas(cache_line) std::uint64_t consumed;
};
static_assert(sizeof(Header) == 2 * cache_line);
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);

/// Lock-free, address-free atomics: valid across processes that map the
/// same memory (the unified window model keeps no separate copy).
inline std::uint64_t load(std::uint64_t& x) {
  return std::atomic_ref<std::uint64_t>(x).load(std::memory_order_acquire);
}
inline void store(std::uint64_t& x, std::uint64_t v) {
  std::atomic_ref<std::uint64_t>(x).store(v, std::memory_order_release);
}

/// Spin briefly, then give the core away: with more ranks than cores (tests
/// oversubscribe) the rank being waited for needs it to make progress.
class Backoff {
 public:
  void pause() {
    if (++spins_ > 64) std::this_thread::yield();
  }

 private:
  int spins_ = 0;
};

/// Wait until `x` holds at least `g`.
inline void wait_for(std::uint64_t& x, std::uint64_t g) {
  Backoff b;
  while (load(x) < g) b.pause();
}

/// For each rank of `comm`, its rank in `node` (a communicator of some of
/// comm's ranks), or MPI_UNDEFINED when it is not in it.
inline std::vector<int> node_ranks(MPI_Comm comm, MPI_Comm node) {
  const int n = comm_size(comm);
  MPI_Group all = MPI_GROUP_NULL, here = MPI_GROUP_NULL;
  mpi_check(MPI_Comm_group(comm, &all), "MPI_Comm_group");
  mpi_check(MPI_Comm_group(node, &here), "MPI_Comm_group");
  std::vector<int> ranks(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<size_t>(i)] = i;
  const int rc = MPI_Group_translate_ranks(all, n, ranks.data(), here, out.data());
  MPI_Group_free(&all);
  MPI_Group_free(&here);
  mpi_check(rc, "MPI_Group_translate_ranks");
  return out;
}

/// The ranks a strategy treats as one node: the real node's, or groups of
/// `group_size` consecutive ranks cut out of it (memory is shared only
/// there, so a group never spans two hosts). Collective over `comm`.
inline Comm node_group(MPI_Comm comm, int group_size) {
  Comm node = node_comm(comm);
  if (group_size <= 0) return node;
  Comm group;
  mpi_check(MPI_Comm_split(node.get(), comm_rank(comm) / group_size, comm_rank(comm), group.out()),
            "MPI_Comm_split");
  return group;
}

}  // namespace haloex::detail
