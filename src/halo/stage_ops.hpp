#pragma once
// Helpers the strategies share for one stage of a plan (internal header).
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

/// Fill the halos this rank sends to itself (periodic dimension with one rank).
inline void copy_self(const Stage& stage, std::span<const FieldView> fields) {
  for (const Link& l : stage.links)
    if (l.self && !l.send.empty()) copy_local(l.send, stage.links[l.partner].recv, fields);
}

}  // namespace haloex::detail
