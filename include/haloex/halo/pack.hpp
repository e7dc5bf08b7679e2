#pragma once
// Packing and unpacking of messages: the one piece of code every strategy
// uses to move halo data between fields and contiguous buffers.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "haloex/field/folded_memory.hpp"
#include "haloex/halo/plan.hpp"

namespace haloex {

/// Messages below this many bytes in total are packed by one thread: waking
/// a team costs more than copying a few kilobytes.
inline constexpr size_t pack_threading_threshold = 32 * 1024;

/// Whether packing `bytes` in one call runs on the OpenMP team.
bool packs_on_team(PackThreads mode, size_t bytes);

/// A message and the buffer it is packed into or unpacked from.
struct PackJob {
  const Message* message;  ///< what to pack or unpack
  std::byte* buffer;       ///< where: message->bytes bytes
};

/// Copy every part of each message from the fields into its buffer with the
/// kernels the plan chose. All messages are packed inside one OpenMP parallel
/// region when `threads` allows (no MPI calls inside, so
/// MPI_THREAD_FUNNELED suffices).
void pack(std::span<const PackJob> jobs, std::span<const FieldView> fields,
          PackThreads threads = PackThreads::automatic);

/// Copy every part of each message from its buffer into the fields.
void unpack(std::span<const PackJob> jobs, std::span<const FieldView> fields,
            PackThreads threads = PackThreads::automatic);

/// The local copies of a self link (a rank that is its own neighbour): its
/// send regions straight into its partner's receive regions.
void copy_local(const Link& link, std::span<const FieldView> fields,
                PackThreads threads = PackThreads::automatic);

/// Run these local copies, `bytes` in all (which decides the threading).
void copy_local(std::span<const FieldCopy> copies, size_t bytes, std::span<const FieldView> fields,
                PackThreads threads = PackThreads::automatic);

/// Copies from another rank's fields, mapped into this address space (node
/// memory): copy c reads from `from[c.field]` and writes into
/// `fields[c.field]`; `bytes` in all.
void copy_from(std::span<const FieldCopy> copies, std::span<const std::byte* const> from, size_t bytes,
               std::span<const FieldView> fields, PackThreads threads = PackThreads::automatic);

/// A page-aligned byte buffer: whole pages, so no message shares a page with
/// other data (MPI libraries register and pin memory by pages).
class Buffer {
 public:
  Buffer() = default;
  /// `bytes` in whole pages; never null, even for 0 bytes (some MPI libraries
  /// refuse null buffers). `folded`: in memory every rank shares (see
  /// folded_memory.hpp; a build for SMPI only).
  explicit Buffer(size_t bytes, bool folded = false);
  /// The first byte.
  std::byte* data() { return folded_ ? folded_->data() : data_.get(); }
  /// Bytes asked for (the allocation is rounded up to whole pages).
  size_t size() const { return size_; }

 private:
  std::unique_ptr<std::byte[], AlignedFree> data_;
  std::unique_ptr<FoldedMemory> folded_;
  size_t size_ = 0;
};

/// Send and receive buffers for every link of a stage (empty for self links).
struct StageBuffers {
  /// One buffer per link, in link order, sized for its send and its receive message.
  /// @{
  std::vector<Buffer> send, recv;
  /// @}
  /// Allocate the buffers of every link of `stage`.
  explicit StageBuffers(const Stage& stage);
};

}  // namespace haloex
