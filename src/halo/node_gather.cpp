// node-gather: one message per pair of nodes. The ranks of a node pack what
// their neighbours on other nodes need straight into one buffer in node
// memory, laid out per destination node; one rank of the node (its leader)
// sends each destination node its part as a single message and receives one
// message from each source node, from which every rank of the node unpacks
// its own halos. Neighbours on the same node exchange through MPI as in
// `direct` (shared memory in the MPI library).
//
// Layout. A node's outgoing block list is the set of (source rank,
// destination rank, tag, bytes) of every off-node block its ranks send; the
// receiving node's incoming list for that pair is the same set. Both sides
// sort it by (source, destination, tag), so each lays the aggregate out
// alike without a word exchanged between nodes.
//
// Synchronisation, for generation g (node_sync.hpp counters in the
// leader's part, one Header per node rank):
// - a rank packs generation g once the leader's `sent` counter says the
//   sends of g - 1 completed, then stores its `posted` = g;
// - the leader posts its receives once every rank stored `consumed` = g - 1,
//   sends once every rank posted g; in end() it waits for the receives and
//   stores `arrived` = g, then for the sends and stores `sent` = g;
// - a rank unpacks once `arrived` >= g and stores `consumed` = g.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>

#include "haloex/core/large_count.hpp"
#include "haloex/field/node_memory.hpp"
#include "haloex/halo/strategy.hpp"
#include "node_sync.hpp"
#include "stage_ops.hpp"

namespace haloex {

namespace {

using detail::cache_line;
using detail::Header;
using detail::PeerBlock;
using detail::PeerMessages;
using detail::round_up;
using detail::store;
using detail::wait_for;

// One off-node block as both nodes list it.
struct Entry {
  std::int64_t node = 0;  // the other node's leader (rank in the plan's communicator)
  std::int64_t src = 0, dst = 0, tag = 0, bytes = 0;
  bool operator<(const Entry& o) const {
    return std::tie(node, src, dst, tag) < std::tie(o.node, o.src, o.dst, o.tag);
  }
};
constexpr int entry_words = 5;

// The leader's counters, each on a cache line of its own.
struct LeaderState {
  alignas(cache_line) std::uint64_t sent;
  alignas(cache_line) std::uint64_t arrived;
};

// Every entry of the node's ranks, sorted: MPI_Allgatherv over the node.
std::vector<Entry> gather_entries(MPI_Comm node, const std::vector<Entry>& mine) {
  std::vector<std::int64_t> words;
  for (const Entry& e : mine) words.insert(words.end(), {e.node, e.src, e.dst, e.tag, e.bytes});
  const int n = comm_size(node);
  int count = static_cast<int>(words.size());
  std::vector<int> counts(static_cast<size_t>(n)), displs(static_cast<size_t>(n));
  mpi_check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, node), "MPI_Allgather");
  int total = 0;
  for (int r = 0; r < n; ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += counts[static_cast<size_t>(r)];
  }
  std::vector<std::int64_t> all(static_cast<size_t>(total));
  mpi_check(MPI_Allgatherv(words.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(),
                           MPI_INT64_T, node),
            "MPI_Allgatherv");
  std::vector<Entry> out;
  for (size_t i = 0; i < all.size(); i += entry_words)
    out.push_back(Entry{all[i], all[i + 1], all[i + 2], all[i + 3], all[i + 4]});
  std::sort(out.begin(), out.end());
  return out;
}

// Where the aggregates of one direction lie in the leader's buffer: one
// message per other node, and the offset of each entry.
struct Aggregates {
  std::vector<int> nodes;                             // the other nodes' leaders, in order
  std::vector<size_t> offset, bytes;                  // per message
  std::map<std::tuple<long, long, long>, size_t> at;  // (src, dst, tag) -> offset in the buffer
  size_t total = 0;

  explicit Aggregates(const std::vector<Entry>& sorted) {
    for (const Entry& e : sorted) {
      if (nodes.empty() || nodes.back() != e.node) {
        nodes.push_back(static_cast<int>(e.node));
        offset.push_back(total);
        bytes.push_back(0);
      }
      at[{e.src, e.dst, e.tag}] = total;
      total += static_cast<size_t>(e.bytes);
      bytes.back() += static_cast<size_t>(e.bytes);
    }
  }
};

class NodeGather final : public Strategy {
 public:
  NodeGather(const Plan& plan, std::string_view name, int node_size) : Strategy(plan, name) {
    MPI_Comm comm = plan.decomposition().comm();
    const int me = comm_rank(comm);
    Comm node = detail::node_group(comm, node_size);
    const int node_rank = comm_rank(node.get()), node_n = comm_size(node.get());
    leader_ = node_rank == 0;
    // Each rank's node leader, on every rank.
    int my_leader = me;
    mpi_check(MPI_Bcast(&my_leader, 1, MPI_INT, 0, node.get()), "MPI_Bcast");
    std::vector<int> leader_of(static_cast<size_t>(comm_size(comm)));
    mpi_check(MPI_Allgather(&my_leader, 1, MPI_INT, leader_of.data(), 1, MPI_INT, comm), "MPI_Allgather");
    auto on_node = [&](int peer) { return leader_of[static_cast<size_t>(peer)] == my_leader; };
    auto off_node = [&](int peer) { return !on_node(peer); };

    to_.emplace(plan.direct(), &Link::send, on_node);
    from_.emplace(plan.direct(), &Link::recv, on_node);
    const PeerMessages off_to(plan.direct(), &Link::send, off_node, false);
    const PeerMessages off_from(plan.direct(), &Link::recv, off_node, false);
    std::vector<Entry> sends, recvs;
    for (const PeerBlock& b : off_to.blocks)
      sends.push_back(Entry{leader_of[static_cast<size_t>(b.peer)], me, b.peer, b.tag,
                            static_cast<std::int64_t>(b.bytes)});
    for (const PeerBlock& b : off_from.blocks)
      recvs.push_back(Entry{leader_of[static_cast<size_t>(b.peer)], b.peer, me, b.tag,
                            static_cast<std::int64_t>(b.bytes)});
    out_.emplace(gather_entries(node.get(), sends));
    in_.emplace(gather_entries(node.get(), recvs));

    // The leader's part: its counters, one Header per node rank, the
    // outgoing aggregates, then the incoming ones.
    const size_t heads = round_up(sizeof(LeaderState) + node_n * sizeof(Header), cache_line);
    const size_t out_at = heads, in_at = heads + round_up(out_->total, cache_line);
    window_.emplace(std::move(node), leader_ ? in_at + in_->total : 0);
    std::byte* base = window_->part(0);
    state_ = reinterpret_cast<LeaderState*>(base);
    headers_ = reinterpret_cast<Header*>(base + sizeof(LeaderState));
    mine_ = &headers_[node_rank];
    out_base_ = base + out_at;
    in_base_ = base + in_at;
    node_n_ = node_n;
    for (const PeerBlock& b : off_to.blocks) {
      PeerBlock at = b;
      at.offset = 0;
      for (const PackJob& j : PeerMessages::block_jobs_at(at, out_base_ + out_->at.at({me, b.peer, b.tag})))
        pack_jobs_.push_back(j);
    }
    for (const PeerBlock& b : off_from.blocks) {
      PeerBlock at = b;
      at.offset = 0;
      for (const PackJob& j : PeerMessages::block_jobs_at(at, in_base_ + in_->at.at({b.peer, me, b.tag})))
        unpack_jobs_.push_back(j);
    }
    setup_mpi(comm);
  }

 private:
  void setup_mpi(MPI_Comm comm) {
    mpi_check(MPI_Comm_dup(comm, between_.out()), "MPI_Comm_dup");  // the aggregates' own tag space
    const size_t limit = plan_.options().mpi_count_limit;
    for (const PeerBlock& b : from_->blocks) recv_counts_.emplace_back(b.bytes, MPI_BYTE, limit);
    for (const PeerBlock& b : to_->blocks) send_counts_.emplace_back(b.bytes, MPI_BYTE, limit);
    if (leader_) {
      for (size_t bytes : in_->bytes) agg_recv_counts_.emplace_back(bytes, MPI_BYTE, limit);
      for (size_t bytes : out_->bytes) agg_send_counts_.emplace_back(bytes, MPI_BYTE, limit);
    }
    reqs_.assign(from_->blocks.size() + to_->blocks.size(), MPI_REQUEST_NULL);
    agg_reqs_.assign(agg_recv_counts_.size() + agg_send_counts_.size(), MPI_REQUEST_NULL);
  }

  void do_begin(std::span<const FieldView> fields) override {
    ++generation_;
    MPI_Comm comm = plan_.decomposition().comm();
    const size_t nr = from_->blocks.size(), ns = to_->blocks.size();
    for (size_t k = 0; k < nr; ++k) {
      const PeerBlock& b = from_->blocks[k];
      mpi_check(large_irecv(from_->data(b), recv_counts_[k], b.peer, b.tag, comm, &reqs_[k]), "MPI_Irecv");
    }
    if (leader_) post_receives();
    pack(to_->jobs, fields);
    for (size_t k = 0; k < ns; ++k) {
      const PeerBlock& b = to_->blocks[k];
      mpi_check(large_isend(to_->data(b), send_counts_[k], b.peer, b.tag, comm, &reqs_[nr + k]), "MPI_Isend");
    }
    // Into the node's outgoing buffer, once its last sends have left.
    wait_for(state_->sent, generation_ - 1);
    pack(pack_jobs_, fields);
    store(mine_->posted, generation_);
    if (leader_) send_aggregates();
    copy_self(plan_.direct(), fields);
  }

  void post_receives() {
    for (int r = 0; r < node_n_; ++r) wait_for(headers_[r].consumed, generation_ - 1);
    for (size_t k = 0; k < in_->nodes.size(); ++k)
      mpi_check(large_irecv(in_base_ + in_->offset[k], agg_recv_counts_[k], in_->nodes[k], 0, between_.get(),
                            &agg_reqs_[k]),
                "MPI_Irecv");
  }

  void send_aggregates() {
    for (int r = 0; r < node_n_; ++r) wait_for(headers_[r].posted, generation_);
    const size_t nr = in_->nodes.size();
    for (size_t k = 0; k < out_->nodes.size(); ++k)
      mpi_check(large_isend(out_base_ + out_->offset[k], agg_send_counts_[k], out_->nodes[k], 0,
                            between_.get(), &agg_reqs_[nr + k]),
                "MPI_Isend");
  }

  void do_end(std::span<const FieldView> fields) override {
    const size_t nr = from_->blocks.size(), ns = to_->blocks.size();
    if (leader_) {
      const size_t anr = in_->nodes.size(), ans = out_->nodes.size();
      mpi_check(MPI_Waitall(static_cast<int>(anr), agg_reqs_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      store(state_->arrived, generation_);
      mpi_check(MPI_Waitall(static_cast<int>(ans), agg_reqs_.data() + anr, MPI_STATUSES_IGNORE),
                "MPI_Waitall");
      store(state_->sent, generation_);
    }
    mpi_check(MPI_Waitall(static_cast<int>(nr), reqs_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    unpack(from_->jobs, fields);
    wait_for(state_->arrived, generation_);
    unpack(unpack_jobs_, fields);
    store(mine_->consumed, generation_);
    mpi_check(MPI_Waitall(static_cast<int>(ns), reqs_.data() + nr, MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

  bool leader_ = false;
  int node_n_ = 1;
  std::optional<PeerMessages> to_, from_;         // on-node blocks, through MPI
  std::optional<Aggregates> out_, in_;            // off-node, per other node
  std::vector<PackJob> pack_jobs_, unpack_jobs_;  // this rank's off-node blocks in the leader's buffers
  std::vector<LargeCount> send_counts_, recv_counts_, agg_send_counts_, agg_recv_counts_;
  std::vector<MPI_Request> reqs_, agg_reqs_;
  Comm between_;
  std::optional<NodeMemory> window_;
  LeaderState* state_ = nullptr;
  Header* headers_ = nullptr;
  Header* mine_ = nullptr;
  std::byte *out_base_ = nullptr, *in_base_ = nullptr;
  std::uint64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_node_gather(const Plan& plan, NodeGatherOptions options) {
  if (options.node_size < 0)
    throw InputError("node-gather: node_size must be 0 (the real nodes) or a positive group size, not " +
                     std::to_string(options.node_size));
  return std::make_unique<NodeGather>(plan, "node-gather", options.node_size);
}
std::unique_ptr<Strategy> make_node_gather_default(const Plan& plan, std::string_view name) {
  return std::make_unique<NodeGather>(plan, name, 0);
}

}  // namespace haloex
