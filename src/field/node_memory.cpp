#include "haloex/field/node_memory.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "haloex/field/field.hpp"

namespace haloex {

namespace {

struct Info {
  MPI_Info info = MPI_INFO_NULL;
  Info() { mpi_check(MPI_Info_create(&info), "MPI_Info_create"); }
  ~Info() { MPI_Info_free(&info); }
};

}  // namespace

FieldMemory parse_field_memory(const std::string& s) {
  if (s == "heap") return FieldMemory::heap;
  if (s == "node") return FieldMemory::node;
  if (s == "folded") return FieldMemory::folded;
  throw InputError("field memory '" + s + "' is not one of: heap, node, folded");
}

std::string to_string(FieldMemory m) {
  switch (m) {
    case FieldMemory::heap: return "heap";
    case FieldMemory::node: return "node";
    case FieldMemory::folded: return "folded";
  }
  return "?";
}

std::unique_ptr<NodeMemory> NodeMemory::per_node(MPI_Comm comm, size_t bytes) {
  return std::make_unique<NodeMemory>(node_comm(comm), bytes);
}

NodeMemory::NodeMemory(Comm group, size_t bytes) : group_(std::move(group)), bytes_(bytes) {
#ifdef HALOEX_SMPI
  // SMPI 3.32 answers MPI_Win_shared_query with wrong addresses for most
  // ranks of a node, and MPI_Win_get_attr(MPI_WIN_MODEL) with an error.
  throw InputError("node memory (shared-memory windows) is not available in a build for SimGrid's SMPI");
#endif
  rank_ = comm_rank(group_.get());
  Info info;
  // Each rank's part on its own pages, placed on its own NUMA node by the
  // first touch of its owner (the memset below).
  mpi_check(MPI_Info_set(info.info, "alloc_shared_noncontig", "true"), "MPI_Info_set");
  void* base = nullptr;
  // MPI does not promise page (or even cache-line) alignment of a part
  // (UBSan saw Open MPI return parts 0x108 bytes into a page): ask for one
  // page more and start each part at the next page boundary. The segment is
  // mapped page-aligned in every process, so every rank rounds a part to the
  // same place.
  const size_t page = page_size();
  mpi_check(MPI_Win_allocate_shared(static_cast<MPI_Aint>(whole_pages(bytes) + page), 1, info.info,
                                    group_.get(), &base, &win_),
            "MPI_Win_allocate_shared");
  int* model = nullptr;
  int found = 0;
  mpi_check(MPI_Win_get_attr(win_, MPI_WIN_MODEL, &model, &found), "MPI_Win_get_attr");
  if (!found || *model != MPI_WIN_UNIFIED) {
    MPI_Win_free(&win_);
    throw InputError("node memory needs an MPI library whose shared windows use the unified memory model");
  }
  mpi_check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  const int n = comm_size(group_.get());
  for (int r = 0; r < n; ++r) {
    MPI_Aint size = 0;
    int disp = 0;
    void* p = nullptr;
    mpi_check(MPI_Win_shared_query(win_, r, &size, &disp, &p), "MPI_Win_shared_query");
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    parts_.push_back(static_cast<std::byte*>(p) + (page - at % page) % page);
  }
  std::memset(data(), 0, whole_pages(bytes));
  // The owner's process id and address of rank 0's part: no two windows
  // alive on one node share both.
  id_ = {static_cast<std::uint64_t>(getpid()), reinterpret_cast<std::uint64_t>(data())};
  mpi_check(MPI_Bcast(id_.data(), 2, MPI_UINT64_T, 0, group_.get()), "MPI_Bcast");
  // Every part zeroed before any rank reads another's (sync, barrier, sync:
  // the standard's pattern for a shared window).
  mpi_check(MPI_Win_sync(win_), "MPI_Win_sync");
  mpi_check(MPI_Barrier(group_.get()), "MPI_Barrier");
  mpi_check(MPI_Win_sync(win_), "MPI_Win_sync");
}

NodeMemory::~NodeMemory() {
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
}

}  // namespace haloex
