// shm: neighbours on the same node exchange through a shared-memory window
// instead of MPI messages. Each rank packs what a node neighbour needs into
// its own part of an MPI_Win_allocate_shared window and raises a generation
// counter; the neighbour unpacks straight from there into its halo. That is
// one copy each side and no MPI call on the node, against MPI's pack, copy
// through the transport (one or two copies) and unpack. Neighbours on other
// nodes go through MPI as in `direct`.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

#include "haloex/halo/strategy.hpp"
#include "stage_ops.hpp"

namespace haloex {

namespace {

using detail::PeerBlock;
using detail::PeerMessages;

constexpr size_t line = 64;  // a cache line: counters written by different ranks never share one
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/// A shared window over the ranks of one node, held in a passive-target
/// epoch (MPI_Win_lock_all) for its whole life so that plain loads and
/// stores into any rank's part are allowed at any time.
class NodeWindow {
 public:
  NodeWindow(MPI_Comm node, size_t bytes) {
    Info info;
    // Each rank's part on its own pages, placed on its own NUMA node by the
    // first touch of its owner.
    mpi_check(MPI_Info_set(info.get(), "alloc_shared_noncontig", "true"), "MPI_Info_set");
    void* base = nullptr;
    mpi_check(MPI_Win_allocate_shared(static_cast<MPI_Aint>(round_up(std::max(bytes, line), page_size())), 1,
                                      info.get(), node, &base, &win_),
              "MPI_Win_allocate_shared");
    int* model = nullptr;
    int found = 0;
    mpi_check(MPI_Win_get_attr(win_, MPI_WIN_MODEL, &model, &found), "MPI_Win_get_attr");
    if (!found || *model != MPI_WIN_UNIFIED) {
      MPI_Win_free(&win_);
      throw InputError("shm needs an MPI library whose shared windows use the unified memory model");
    }
    mpi_check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  }
  NodeWindow(const NodeWindow&) = delete;
  NodeWindow& operator=(const NodeWindow&) = delete;
  ~NodeWindow() {
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
  }
  /// Where the part of the rank `node_rank` (in the node communicator) starts
  /// in this process's address space.
  std::byte* part(int node_rank) const {
    MPI_Aint size = 0;
    int disp = 0;
    void* p = nullptr;
    mpi_check(MPI_Win_shared_query(win_, node_rank, &size, &disp, &p), "MPI_Win_shared_query");
    return static_cast<std::byte*>(p);
  }
  MPI_Win get() const { return win_; }

 private:
  struct Info {
    MPI_Info info = MPI_INFO_NULL;
    Info() { mpi_check(MPI_Info_create(&info), "MPI_Info_create"); }
    ~Info() { MPI_Info_free(&info); }
    MPI_Info get() const { return info; }
  };
  MPI_Win win_ = MPI_WIN_NULL;
};

// The window part of a rank: one header per node neighbour it sends to (two
// counters, each on its own cache line), then slot 0 and slot 1, each holding
// every block to node neighbours end to end (the PeerMessages layout).
//
// Synchronisation, for generation g = 1, 2, ... (one per exchange):
// - The writer packs generation g into slot g % 2, after waiting until the
//   reader's `consumed` counter reaches g - 2 (the last generation that used
//   that slot), then stores `posted` = g with release order.
// - The reader waits until `posted` >= g with acquire order, unpacks from
//   slot g % 2 and stores `consumed` = g with release order.
// Release/acquire pairs make the packed bytes visible before the counter that
// announces them, and the reader's loads of a slot complete before the writer
// may overwrite it. The writer can run one generation ahead (`posted` = g + 1
// while the reader still reads g) because g + 1 goes to the other slot. The
// counters are lock-free, address-free std::atomic_ref<uint64_t>, valid across
// processes that map the same memory; the unified window model (checked
// above) means MPI keeps no separate copy that would need MPI_Win_sync.
struct Header {
  alignas(line) std::uint64_t posted;
  alignas(line) std::uint64_t consumed;
};
static_assert(sizeof(Header) == 2 * line);
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);

std::uint64_t load(std::uint64_t& x) { return std::atomic_ref<std::uint64_t>(x).load(std::memory_order_acquire); }
void store(std::uint64_t& x, std::uint64_t v) {
  std::atomic_ref<std::uint64_t>(x).store(v, std::memory_order_release);
}

// Spin briefly, then give the core away: with more ranks than cores (tests
// oversubscribe) the rank being waited for needs it to make progress.
class Backoff {
 public:
  void pause() {
    if (++spins_ > 64) std::this_thread::yield();
  }

 private:
  int spins_ = 0;
};

class Shm final : public Strategy {
 public:
  Shm(const Plan& plan, std::string_view name, const ShmOptions& options) : Strategy(plan, name) {
    const Decomposition& dec = plan.decomposition();
    MPI_Comm comm = dec.comm();
    if (options.node_size < 0)
      throw InputError("shm: node_size must be 0 (the real nodes) or a positive group size, not " +
                       std::to_string(options.node_size));
    if (options.node_size > 0)
      mpi_check(MPI_Comm_split(comm, dec.rank() / options.node_size, dec.rank(), node_.out()), "MPI_Comm_split");
    else
      mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, dec.rank(), MPI_INFO_NULL, node_.out()),
                "MPI_Comm_split_type");
    const std::vector<int> node_rank = node_ranks(comm, node_.get());
    auto on_node = [&](int peer) { return node_rank[static_cast<size_t>(peer)] != MPI_UNDEFINED; };
    auto off_node = [&](int peer) { return !on_node(peer); };

    mpi_to_.emplace(plan.direct(), &Link::send, off_node);
    mpi_from_.emplace(plan.direct(), &Link::recv, off_node);
    shm_to_.emplace(plan.direct(), &Link::send, on_node, false);
    shm_from_.emplace(plan.direct(), &Link::recv, on_node, false);
    reqs_.resize(mpi_from_->blocks.size() + mpi_to_->blocks.size(), MPI_REQUEST_NULL);

    const size_t headers = shm_to_->blocks.size() * sizeof(Header);
    slot_bytes_ = round_up(shm_to_->bytes, line);
    window_.emplace(node_.get(), headers + 2 * slot_bytes_);
    std::byte* mine = window_->part(comm_rank(node_.get()));
    headers_ = reinterpret_cast<Header*>(mine);
    for (size_t k = 0; k < shm_to_->blocks.size(); ++k) headers_[k] = Header{0, 0};
    for (int s = 0; s < 2; ++s) send_jobs_[s] = shm_to_->jobs_at(mine + headers + s * slot_bytes_);
    connect(comm, node_rank);
  }

 private:
  // Each sender tells each node neighbour where its block sits in the
  // sender's part: which header, how many headers precede the slots, the
  // slot size, the block's offset in a slot and its bytes. One message per
  // block, along the same peer and tag as the data would travel; the
  // receiver checks that the sizes agree.
  void connect(MPI_Comm comm, const std::vector<int>& node_rank) {
    constexpr int words = 5;
    const size_t ns = shm_to_->blocks.size(), nr = shm_from_->blocks.size();
    std::vector<std::uint64_t> out(words * ns), in(words * nr);
    std::vector<MPI_Request> reqs(ns + nr, MPI_REQUEST_NULL);
    for (size_t k = 0; k < nr; ++k) {
      const PeerBlock& b = shm_from_->blocks[k];
      mpi_check(MPI_Irecv(&in[words * k], words, MPI_UINT64_T, b.peer, b.tag, comm, &reqs[k]), "MPI_Irecv");
    }
    for (size_t k = 0; k < ns; ++k) {
      const PeerBlock& b = shm_to_->blocks[k];
      const std::uint64_t where[words] = {k, ns, slot_bytes_, b.offset, b.bytes};
      std::copy(where, where + words, &out[words * k]);
      mpi_check(MPI_Isend(&out[words * k], words, MPI_UINT64_T, b.peer, b.tag, comm, &reqs[nr + k]), "MPI_Isend");
    }
    mpi_check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    std::string mismatch;
    for (size_t k = 0; k < nr; ++k) {
      const PeerBlock& b = shm_from_->blocks[k];
      const std::uint64_t* w = &in[words * k];
      if (w[4] != b.bytes) {
        mismatch = "shm: rank " + std::to_string(b.peer) + " sends " + std::to_string(w[4]) + " bytes where " +
                   std::to_string(b.bytes) + " are expected";
        continue;
      }
      std::byte* part = window_->part(node_rank[static_cast<size_t>(b.peer)]);
      Source src;
      src.header = reinterpret_cast<Header*>(part) + w[0];
      std::byte* slots = part + w[1] * sizeof(Header);
      // The block's jobs, placed at its offset inside each of the sender's slots.
      const PeerBlock at_start{b.peer, b.tag, 0, b.bytes, b.jobs};
      for (int s = 0; s < 2; ++s) src.jobs[s] = PeerMessages::block_jobs_at(at_start, slots + s * w[2] + w[3]);
      sources_.push_back(std::move(src));
    }
    // Every rank agrees before any throws (a rank alone would leave the
    // others waiting in a collective).
    throw_if_any(comm, mismatch);
    // Every rank has zeroed its counters before anyone reads them: the
    // standard's pattern for a shared window (sync, barrier, sync).
    mpi_check(MPI_Win_sync(window_->get()), "MPI_Win_sync");
    mpi_check(MPI_Barrier(node_.get()), "MPI_Barrier");
    mpi_check(MPI_Win_sync(window_->get()), "MPI_Win_sync");
  }

  // For each rank of the plan's communicator, its rank in the node
  // communicator, or MPI_UNDEFINED when it is on another node.
  static std::vector<int> node_ranks(MPI_Comm comm, MPI_Comm node) {
    const int n = comm_size(comm);
    MPI_Group all = MPI_GROUP_NULL, here = MPI_GROUP_NULL;
    mpi_check(MPI_Comm_group(comm, &all), "MPI_Comm_group");
    mpi_check(MPI_Comm_group(node, &here), "MPI_Comm_group");
    std::vector<int> ranks(static_cast<size_t>(n)), out(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) ranks[static_cast<size_t>(i)] = i;
    const int rc = MPI_Group_translate_ranks(all, n, ranks.data(), here, out.data());
    MPI_Group_free(&all);
    MPI_Group_free(&here);
    mpi_check(rc, "MPI_Group_translate_ranks");
    return out;
  }

  void do_begin(std::span<const FieldView> fields) override {
    ++generation_;
    MPI_Comm comm = plan_.decomposition().comm();
    const size_t nr = mpi_from_->blocks.size(), ns = mpi_to_->blocks.size();
    for (size_t k = 0; k < nr; ++k) {
      const PeerBlock& b = mpi_from_->blocks[k];
      mpi_check(MPI_Irecv(mpi_from_->data(b), count(b), MPI_BYTE, b.peer, b.tag, comm, &reqs_[k]), "MPI_Irecv");
    }
    pack(mpi_to_->jobs, fields);
    for (size_t k = 0; k < ns; ++k) {
      const PeerBlock& b = mpi_to_->blocks[k];
      mpi_check(MPI_Isend(mpi_to_->data(b), count(b), MPI_BYTE, b.peer, b.tag, comm, &reqs_[nr + k]), "MPI_Isend");
    }
    // The slot this generation fills was last read two generations ago.
    const size_t n_shm = shm_to_->blocks.size();
    for (size_t k = 0; k < n_shm; ++k) {
      Backoff wait;
      while (load(headers_[k].consumed) + 2 < generation_) wait.pause();
    }
    pack(send_jobs_[generation_ % 2], fields);
    for (size_t k = 0; k < n_shm; ++k) store(headers_[k].posted, generation_);
    copy_self(plan_.direct(), fields);
  }

  void do_end(std::span<const FieldView> fields) override {
    // Unpack each node neighbour's block as soon as it is posted.
    done_.assign(sources_.size(), false);
    size_t left = sources_.size();
    Backoff wait;
    while (left > 0) {
      bool progressed = false;
      for (size_t k = 0; k < sources_.size(); ++k) {
        if (done_[k] || load(sources_[k].header->posted) < generation_) continue;
        unpack(sources_[k].jobs[generation_ % 2], fields);
        store(sources_[k].header->consumed, generation_);
        done_[k] = true;
        --left;
        progressed = true;
      }
      if (!progressed) wait.pause();
    }
    const size_t nr = mpi_from_->blocks.size(), ns = mpi_to_->blocks.size();
    mpi_check(MPI_Waitall(static_cast<int>(nr), reqs_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    unpack(mpi_from_->jobs, fields);
    mpi_check(MPI_Waitall(static_cast<int>(ns), reqs_.data() + nr, MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

  static int count(const PeerBlock& b) { return mpi_count(b.bytes, "an shm halo message between nodes"); }

  // A node neighbour's block in its part of the window.
  struct Source {
    Header* header = nullptr;
    std::vector<PackJob> jobs[2];  // unpack jobs reading slot 0 and slot 1
  };

  Comm node_;
  std::optional<PeerMessages> mpi_to_, mpi_from_, shm_to_, shm_from_;
  std::vector<MPI_Request> reqs_;
  std::optional<NodeWindow> window_;
  size_t slot_bytes_ = 0;
  Header* headers_ = nullptr;
  std::vector<PackJob> send_jobs_[2];
  std::vector<Source> sources_;
  std::vector<bool> done_;  // per source, this end(); kept to avoid an allocation per call
  std::uint64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_shm(const Plan& plan, ShmOptions options) {
  return std::make_unique<Shm>(plan, "shm", options);
}
std::unique_ptr<Strategy> make_shm_default(const Plan& plan, std::string_view name) {
  return std::make_unique<Shm>(plan, name, ShmOptions{});
}

}  // namespace haloex
