#pragma once
// Helpers the strategies share for one stage of a plan (internal header).
#include <algorithm>
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
/// them (&Link::recv), one block per distinct peer, in one buffer. Inside a
/// block messages go in tag order; a message's tag names the direction its
/// data travels, so sender and receiver order the same messages alike and
/// several directions to one rank (2 ranks along a periodic dimension) make
/// one message, not one per direction.
struct PeerMessages {
  std::vector<PeerBlock> blocks;
  Buffer buffer;
  std::vector<PackJob> jobs;  // every message of every block

  PeerMessages(const Stage& stage, Message Link::*which) {
    std::vector<std::vector<const Message*>> grouped;
    for (const Link& l : stage.links) {
      const Message& m = l.*which;
      if (l.self || m.empty()) continue;
      size_t b = 0;
      while (b < blocks.size() && blocks[b].peer != l.peer) ++b;
      if (b == blocks.size()) {
        blocks.push_back(PeerBlock{l.peer, 0, 0, 0, {}});
        grouped.emplace_back();
      }
      grouped[b].push_back(&m);
    }
    size_t at = 0;
    for (size_t b = 0; b < blocks.size(); ++b) {
      std::sort(grouped[b].begin(), grouped[b].end(), [](const Message* x, const Message* y) { return x->tag < y->tag; });
      blocks[b].tag = grouped[b].front()->tag;
      blocks[b].offset = at;
      for (const Message* m : grouped[b]) at += m->bytes;
      blocks[b].bytes = at - blocks[b].offset;
    }
    buffer = Buffer(at);
    for (size_t b = 0; b < blocks.size(); ++b) {
      size_t in = blocks[b].offset;
      for (const Message* m : grouped[b]) {
        blocks[b].jobs.push_back({m, buffer.data() + in});
        in += m->bytes;
      }
      jobs.insert(jobs.end(), blocks[b].jobs.begin(), blocks[b].jobs.end());
    }
  }
  std::byte* data(const PeerBlock& b) { return buffer.data() + b.offset; }
};

/// Fill the halos this rank sends to itself (periodic dimension with one rank).
inline void copy_self(const Stage& stage, std::span<const FieldView> fields, PackThreads threads) {
  for (const Link& l : stage.links)
    if (l.self && !l.send.empty()) copy_local(l, fields, threads);
}

}  // namespace haloex::detail
