#pragma once
// Memory that the other ranks of a node can read and write with plain loads
// and stores: each rank's part of an MPI shared-memory window. A field placed
// here lets `shm` copy halos straight out of a neighbour's field.
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "haloex/core/mpi.hpp"

namespace haloex {

/// Where a field's elements live: this process's heap, its part of a
/// shared-memory window over the ranks of its node, or (in a build for SMPI,
/// for timing only) one block that every rank shares (folded_memory.hpp).
enum class FieldMemory { heap, node, folded };

/// Parse "heap"/"node"/"folded" (throws InputError otherwise).
FieldMemory parse_field_memory(const std::string& s);
/// The name of a memory kind ("heap", "node", "folded").
std::string to_string(FieldMemory m);

/// A shared window over a group of ranks that share memory, held in a
/// passive-target epoch (MPI_Win_lock_all) for its whole life so that plain
/// loads and stores into any rank's part are allowed at any time. Each rank's
/// part is zeroed by its owner and starts on a page boundary.
class NodeMemory {
 public:
  /// Collective over `comm`: gives this rank `bytes` in a window shared with
  /// the ranks of `comm` on its node (MPI_COMM_TYPE_SHARED).
  static std::unique_ptr<NodeMemory> per_node(MPI_Comm comm, size_t bytes);
  /// Collective over `group`, whose ranks must all share memory (one node);
  /// the window keeps the communicator.
  NodeMemory(Comm group, size_t bytes);
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;
  ~NodeMemory();

  /// This rank's part.
  std::byte* data() const { return parts_[static_cast<size_t>(rank_)]; }
  /// Bytes of this rank's part, as asked for.
  size_t size() const { return bytes_; }
  /// Where the part of rank `group_rank` starts in this address space.
  std::byte* part(int group_rank) const { return parts_.at(static_cast<size_t>(group_rank)); }
  /// This rank's rank in the group.
  int rank() const { return rank_; }
  /// The same on every rank of the group, and different from every other
  /// NodeMemory alive on the node: lets a reader check that it maps the
  /// window a writer means.
  const std::array<std::uint64_t, 2>& id() const { return id_; }

 private:
  Comm group_;
  MPI_Win win_ = MPI_WIN_NULL;
  int rank_ = 0;
  size_t bytes_ = 0;
  std::vector<std::byte*> parts_;
  std::array<std::uint64_t, 2> id_{};
};

}  // namespace haloex
