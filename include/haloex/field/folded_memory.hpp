#pragma once
// Memory that every rank of a simulated run shares. A build for SMPI runs
// all ranks in one process, and the fields of thousands of ranks do not fit
// one machine: folded, every allocation maps the same 64 MiB block of memory
// again and again (as SimGrid's SMPI_SHARED_MALLOC does), and they take the
// memory of one. Every rank then reads and writes the same bytes, so the
// values are meaningless: for timing runs only.
#include <cstddef>

namespace haloex {

/// Memory that all ranks asking for folded memory share.
class FoldedMemory {
 public:
  /// `bytes` (rounded up to whole blocks) mapped onto the shared block.
  /// Throws InputError in a build that is not for SMPI.
  explicit FoldedMemory(size_t bytes);
  /// Unmaps it.
  ~FoldedMemory();  // NOLINT(performance-trivially-destructible): unmaps in a build for SMPI
  FoldedMemory(const FoldedMemory&) = delete;
  FoldedMemory& operator=(const FoldedMemory&) = delete;

  /// The first byte (page-aligned).
  std::byte* data() const { return data_; }

 private:
  std::byte* data_ = nullptr;
  size_t bytes_ = 0;  // mapped: whole blocks
};

}  // namespace haloex
