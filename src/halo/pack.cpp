#include "haloex/halo/pack.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>

namespace haloex {

namespace {

// Each part's kernels share their loops among the team (omp for nowait), so
// one parallel region covers every part of every message.
template <bool ToBuffer>
void move_parts(std::span<const PackJob> jobs, std::span<const FieldView> fields) {
  for (const PackJob& j : jobs)
    for (const Part& p : j.message->parts) {
      std::byte* field = fields[p.field].data;
      std::byte* buf = j.buffer + p.offset;
      if constexpr (ToBuffer)
        for (const CopyKernel& k : p.pack) k.run(field, buf);
      else
        for (const CopyKernel& k : p.unpack) k.run(buf, field);
    }
}

// Outside a parallel region the kernels' worksharing loops run on this
// thread alone; entering a region even with if(false) costs about as much
// as copying a small face, so one thread skips it. Called from inside a
// region (an exchange from `omp single`), the loops would bind to the
// caller's team and this thread would copy only its share: a region of one
// thread keeps them whole.
bool alone(PackThreads mode, size_t bytes) { return !packs_on_team(mode, bytes) && !omp_in_parallel(); }

template <bool ToBuffer>
void move_all(std::span<const PackJob> jobs, std::span<const FieldView> fields, PackThreads mode) {
  size_t total = 0;
  for (const PackJob& j : jobs) total += j.message->bytes;
  if (alone(mode, total)) return move_parts<ToBuffer>(jobs, fields);
#pragma omp parallel if (packs_on_team(mode, total))
  move_parts<ToBuffer>(jobs, fields);
}

}  // namespace

bool packs_on_team(PackThreads mode, size_t bytes) {
  return mode == PackThreads::on || (mode == PackThreads::automatic && bytes >= pack_threading_threshold);
}

void pack(std::span<const PackJob> jobs, std::span<const FieldView> fields, PackThreads threads) {
  move_all<true>(jobs, fields, threads);
}

void unpack(std::span<const PackJob> jobs, std::span<const FieldView> fields, PackThreads threads) {
  move_all<false>(jobs, fields, threads);
}

void copy_local(const Link& link, std::span<const FieldView> fields, PackThreads threads) {
  copy_local(link.local, link.send.bytes, fields, threads);
}

void copy_local(std::span<const FieldCopy> copies, size_t bytes, std::span<const FieldView> fields,
                PackThreads threads) {
  if (copies.empty()) return;
  if (alone(threads, bytes)) {
    for (const FieldCopy& c : copies) c.kernel.run(fields[c.field].data, fields[c.field].data);
    return;
  }
  // One copy after another, as a single thread would: two copies may write
  // the same place (a transposed plan on a subdomain thinner than twice its
  // halo), and then the later one must win.
#pragma omp parallel if (packs_on_team(threads, bytes))
  for (const FieldCopy& c : copies) {
    c.kernel.run(fields[c.field].data, fields[c.field].data);
#pragma omp barrier
  }
}

void copy_from(std::span<const FieldCopy> copies, std::span<const std::byte* const> from, size_t bytes,
               std::span<const FieldView> fields, PackThreads threads) {
  if (alone(threads, bytes)) {
    for (const FieldCopy& c : copies) c.kernel.run(from[c.field], fields[c.field].data);
    return;
  }
  // As unpack: the copies of one message in order on each thread, no
  // barrier between them.
#pragma omp parallel if (packs_on_team(threads, bytes))
  for (const FieldCopy& c : copies) c.kernel.run(from[c.field], fields[c.field].data);
}

Buffer::Buffer(size_t bytes, bool folded) : size_(bytes) {
  // Never null, even when empty: some MPI libraries refuse a null buffer.
  const size_t rounded = whole_pages(bytes);
  if (folded) {
    folded_ = std::make_unique<FoldedMemory>(rounded);
    return;
  }
  void* p = std::aligned_alloc(page_size(), rounded);
  if (!p) throw Error("cannot allocate a halo buffer of " + std::to_string(rounded) + " bytes");
  data_.reset(static_cast<std::byte*>(p));
}

StageBuffers::StageBuffers(const Stage& stage) {
  for (const Link& l : stage.links) {
    send.emplace_back(l.self ? 0 : l.send.bytes, stage.folded_buffers);
    recv.emplace_back(l.self ? 0 : l.recv.bytes, stage.folded_buffers);
  }
}

}  // namespace haloex
