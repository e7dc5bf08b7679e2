#pragma once
// Helpers the strategies share for one stage of a plan (internal header).
#include <algorithm>
#include <functional>
#include <vector>

#include "haloex/halo/pack.hpp"
#include "haloex/halo/plan.hpp"

namespace haloex::detail {

/// Pack jobs for the non-empty messages to or from other ranks: `which` is
/// &Link::send with bufs.send, or &Link::recv with bufs.recv.
inline std::vector<PackJob> remote_jobs(const Stage& stage, std::vector<Buffer>& bufs, Message Link::*which) {
  std::vector<PackJob> jobs;
  for (size_t i = 0; i < stage.links.size(); ++i) {
    const Link& l = stage.links[i];
    if (!l.self && !(l.*which).empty()) jobs.push_back({&(l.*which), bufs[i].data()});
  }
  return jobs;
}

/// One peer's messages of a stage laid end to end: what travels between this
/// rank and that peer as one MPI message.
struct PeerBlock {
  int peer = MPI_PROC_NULL;
  int tag = 0;  // the smallest tag of its messages: the same number on both sides
  size_t offset = 0, bytes = 0;
  std::vector<PackJob> jobs;  // its messages, in tag order, inside the block
};

/// The messages of a stage to other ranks (`which` = &Link::send) or from
/// them (&Link::recv), one block per distinct peer, laid end to end. Inside a
/// block messages go in tag order; a message's tag names the direction its
/// data travels, so sender and receiver order the same messages alike and
/// several directions to one rank (2 ranks along a periodic dimension) make
/// one message, not one per direction. `keep` selects peers (all if empty).
/// With `own_buffer` the blocks live in a buffer of its own and `jobs` point
/// into it; otherwise jobs_at() places them in memory the caller provides.
struct PeerMessages {
  std::vector<PeerBlock> blocks;
  Buffer buffer;
  std::vector<PackJob> jobs;  // every message of every block, in `buffer`
  size_t bytes = 0;           // of all blocks together

  PeerMessages(const Stage& stage, Message Link::*which, const std::function<bool(int peer)>& keep = {},
               bool own_buffer = true) {
    for (const Link& l : stage.links) {
      const Message& m = l.*which;
      if (l.self || m.empty() || (keep && !keep(l.peer))) continue;
      size_t b = 0;
      while (b < blocks.size() && blocks[b].peer != l.peer) ++b;
      if (b == blocks.size()) blocks.push_back(PeerBlock{l.peer, 0, 0, 0, {}});
      blocks[b].jobs.push_back({&m, nullptr});
    }
    for (PeerBlock& b : blocks) {
      std::sort(b.jobs.begin(), b.jobs.end(),
                [](const PackJob& x, const PackJob& y) { return x.message->tag < y.message->tag; });
      b.tag = b.jobs.front().message->tag;
      b.offset = bytes;
      for (const PackJob& j : b.jobs) bytes += j.message->bytes;
      b.bytes = bytes - b.offset;
    }
    if (!own_buffer) return;
    buffer = Buffer(bytes, stage.folded_buffers);
    jobs = jobs_at(buffer.data());
    for (PeerBlock& b : blocks) b.jobs = block_jobs_at(b, buffer.data());
  }

  std::byte* data(const PeerBlock& b) { return buffer.data() + b.offset; }

  /// The jobs of one block when the blocks start at `base`.
  static std::vector<PackJob> block_jobs_at(const PeerBlock& b, std::byte* base) {
    std::vector<PackJob> out;
    size_t at = b.offset;
    for (const PackJob& j : b.jobs) {
      out.push_back({j.message, base + at});
      at += j.message->bytes;
    }
    return out;
  }
  /// The jobs of every block when the blocks start at `base`.
  std::vector<PackJob> jobs_at(std::byte* base) const {
    std::vector<PackJob> out;
    for (const PeerBlock& b : blocks)
      for (const PackJob& j : block_jobs_at(b, base)) out.push_back(j);
    return out;
  }
};

/// Fill the halos this rank sends to itself (periodic dimension with one
/// rank), opposite directions fused where the plan could (Stage::local).
inline void copy_self(const Stage& stage, std::span<const FieldView> fields, PackThreads threads) {
  copy_local(stage.local, stage.local_bytes, fields, threads);
}

}  // namespace haloex::detail
