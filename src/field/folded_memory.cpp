// See folded_memory.hpp.
#include "haloex/field/folded_memory.hpp"

#include <string>

#include "haloex/core/error.hpp"

#ifdef HALOEX_SMPI
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#endif

namespace haloex {

#ifdef HALOEX_SMPI
namespace {

// Every allocation maps this many bytes of one memory file again and again.
constexpr size_t block_bytes = size_t(64) << 20;

[[noreturn]] void fail(const std::string& what) {
  throw Error("cannot fold memory: " + what + ": " + std::strerror(errno));
}

// The memory file every folded allocation maps: one per process, which under
// SMPI holds every simulated rank. (SMPI_SHARED_MALLOC does the same with a
// file in /tmp; on a disk the kernel wrote its block back again and again,
// visiting each of its thousands of mappings, and 4096 ranks of 64^3 sites
// spent minutes in the kernel. A memfd is memory: nothing to write back.)
int block_file() {
  static const int fd = [] {
    const int f = memfd_create("haloex-folded", MFD_CLOEXEC);
    if (f < 0) fail("memfd_create");
    if (ftruncate(f, static_cast<off_t>(block_bytes)) != 0) fail("ftruncate");
    return f;
  }();
  return fd;
}

size_t whole_blocks(size_t bytes) { return (bytes + block_bytes - 1) / block_bytes * block_bytes; }

}  // namespace

FoldedMemory::FoldedMemory(size_t bytes) : bytes_(whole_blocks(bytes ? bytes : 1)) {
  // Reserve the address range, then map the block over it piece by piece.
  void* base = mmap(nullptr, bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) fail("mmap of " + std::to_string(bytes_) + " bytes");
  data_ = static_cast<std::byte*>(base);
  for (size_t at = 0; at < bytes_; at += block_bytes)
    if (mmap(data_ + at, block_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, block_file(), 0) ==
        MAP_FAILED) {
      const int e = errno;  // the cause, which munmap may overwrite
      munmap(data_, bytes_);
      errno = e;
      fail("mmap of the block (each takes one of the process's vm.max_map_count mappings)");
    }
}

FoldedMemory::~FoldedMemory() { munmap(data_, bytes_); }
#else
FoldedMemory::FoldedMemory(size_t) {
  throw InputError(
      "folded memory (every rank's field in one block, for timing on a simulated machine) exists only in a "
      "build for SimGrid's SMPI (make smpi)");
}
FoldedMemory::~FoldedMemory() = default;
#endif

}  // namespace haloex
