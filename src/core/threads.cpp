#include "haloex/core/threads.hpp"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <memory>

#include "haloex/core/mpi.hpp"

namespace haloex {

namespace {

void add_cpu(CpuMask& m, size_t cpu) {
  if (cpu / 8 >= m.size()) m.resize(cpu / 8 + 1, 0);
  m[cpu / 8] |= static_cast<std::uint8_t>(1u << (cpu % 8));
}

bool intersect(const CpuMask& a, const CpuMask& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] & b[i]) return true;
  return false;
}

// The calling thread's mask, in a set large enough for the machine: the
// fixed cpu_set_t holds 1024 CPUs, and sched_getaffinity fails with EINVAL
// when the kernel's mask is larger than the set it is given.
CpuMask thread_affinity_mask() {
  for (int ncpu = CPU_SETSIZE; ncpu <= (1 << 20); ncpu *= 2) {
    const std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> set(CPU_ALLOC(ncpu),
                                                               [](cpu_set_t* s) { CPU_FREE(s); });
    if (!set) break;
    const size_t bytes = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(bytes, set.get());
    if (sched_getaffinity(0, bytes, set.get()) != 0) {
      if (errno == EINVAL) continue;
      break;
    }
    CpuMask m;
    for (int c = 0; c < ncpu; ++c)
      if (CPU_ISSET_S(c, bytes, set.get())) add_cpu(m, static_cast<size_t>(c));
    return m;
  }
  // No mask to be had: count this as one CPU rather than fail the run.
  return cpu_mask_of({0});
}

// plan_threads on the communicator of this node's ranks.
ThreadChoice plan_on_node(MPI_Comm node) {
  const int me = comm_rank(node), n = comm_size(node);

  // Every rank's mask on this node, padded to the longest.
  CpuMask mine = affinity_mask();
  int len = static_cast<int>(mine.size()), max_len = 0;
  mpi_check(MPI_Allreduce(&len, &max_len, 1, MPI_INT, MPI_MAX, node), "MPI_Allreduce");
  mine.resize(static_cast<size_t>(max_len), 0);
  std::vector<std::uint8_t> all(static_cast<size_t>(max_len) * static_cast<size_t>(n));
  mpi_check(MPI_Allgather(mine.data(), max_len, MPI_BYTE, all.data(), max_len, MPI_BYTE, node),
            "MPI_Allgather");
  std::vector<CpuMask> masks(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r)
    masks[static_cast<size_t>(r)].assign(all.begin() + r * max_len, all.begin() + (r + 1) * max_len);

  ThreadChoice c;
  c.source = threads_source();
  c.threads = c.source == "affinity" ? threads_from_masks(masks, me) : omp_get_max_threads();
  c.cpus = cpu_count(mine);
  c.ranks_sharing = static_cast<int>(
      std::count_if(masks.begin(), masks.end(), [&](const CpuMask& m) { return intersect(m, mine); }));
  std::vector<int> threads(static_cast<size_t>(n));
  mpi_check(MPI_Allgather(&c.threads, 1, MPI_INT, threads.data(), 1, MPI_INT, node), "MPI_Allgather");
  c.node = node_load(masks, threads);
  c.node_masks = std::move(masks);
  c.node_rank = me;
  return c;
}

}  // namespace

CpuMask cpu_mask_of(const std::vector<int>& cpus) {
  CpuMask m;
  for (int c : cpus) add_cpu(m, static_cast<size_t>(c));
  return m;
}

int cpu_count(const CpuMask& mask) {
  int n = 0;
  for (std::uint8_t b : mask) n += std::popcount(b);
  return n;
}

CpuMask affinity_mask() {
  const int places = omp_get_num_places();
  if (places <= 0) return thread_affinity_mask();
  CpuMask m;
  for (int p = 0; p < places; ++p) {
    std::vector<int> ids(static_cast<size_t>(std::max(0, omp_get_place_num_procs(p))));
    if (!ids.empty()) omp_get_place_proc_ids(p, ids.data());
    for (int c : ids) add_cpu(m, static_cast<size_t>(c));
  }
  return cpu_count(m) > 0 ? m : thread_affinity_mask();
}

int threads_from_masks(const std::vector<CpuMask>& masks, int me) {
  const CpuMask& mine = masks.at(static_cast<size_t>(me));
  const int sharing = static_cast<int>(
      std::count_if(masks.begin(), masks.end(), [&](const CpuMask& m) { return intersect(m, mine); }));
  return std::max(1, cpu_count(mine) / std::max(1, sharing));
}

bool NodeLoad::oversubscribed() const { return threads > std::max(cpus, ranks); }

int NodeLoad::fitting_threads() const { return std::max(1, cpus / std::max(1, ranks)); }

NodeLoad node_load(const std::vector<CpuMask>& masks, const std::vector<int>& threads) {
  NodeLoad load;
  load.ranks = static_cast<int>(masks.size());
  CpuMask all;
  for (size_t i = 0; i < masks.size(); ++i) {
    if (masks[i].size() > all.size()) all.resize(masks[i].size(), 0);
    for (size_t b = 0; b < masks[i].size(); ++b) all[b] |= masks[i][b];
    load.threads += threads.at(i);
  }
  load.cpus = cpu_count(all);
  return load;
}

std::string oversubscription_warning(const NodeLoad& load, const std::string& host, int other_nodes) {
  std::string s = "haloex: warning: " + std::to_string(load.ranks) +
                  (load.ranks == 1 ? " rank runs " : " ranks run ") + std::to_string(load.threads) +
                  " OpenMP threads on the " + std::to_string(load.cpus) +
                  (load.cpus == 1 ? " CPU" : " CPUs") + " of host " + host;
  if (other_nodes > 0)
    s += " (and likewise on " + std::to_string(other_nodes) +
         (other_nodes == 1 ? " other node)" : " other nodes)");
  s += ", so threads compete for CPUs; set OMP_NUM_THREADS=" + std::to_string(load.fitting_threads()) +
       " (or unset it: haloex then divides each rank's CPUs among the ranks that share them)";
  return s;
}

std::vector<int> pin_cpus(const std::vector<CpuMask>& masks, int threads, int me) {
  const CpuMask& mine = masks.at(static_cast<size_t>(me));
  // This rank's place among the ranks sharing its CPUs, and their number
  // (itself included): all of them must fit, or none pins.
  int slot = 0, sharing = 0;
  for (int r = 0; r < static_cast<int>(masks.size()); ++r)
    if (r == me || intersect(masks[static_cast<size_t>(r)], mine)) {
      slot += r < me ? 1 : 0;
      ++sharing;
    }
  std::vector<int> cpus;
  for (size_t b = 0; b < mine.size(); ++b)
    for (int bit = 0; bit < 8; ++bit)
      if (mine[b] & (1u << bit)) cpus.push_back(static_cast<int>(8 * b) + bit);
  const size_t first = static_cast<size_t>(slot) * static_cast<size_t>(threads);
  if (threads < 1 || static_cast<size_t>(sharing) * static_cast<size_t>(threads) > cpus.size()) return {};
  return {cpus.begin() + static_cast<long>(first), cpus.begin() + static_cast<long>(first) + threads};
}

namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// Bind the calling thread to one CPU (false when the kernel refuses).
bool bind_to(int cpu) {
  const std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> set(CPU_ALLOC(cpu + 1),
                                                             [](cpu_set_t* s) { CPU_FREE(s); });
  if (!set) return false;
  const size_t bytes = CPU_ALLOC_SIZE(cpu + 1);
  CPU_ZERO_S(bytes, set.get());
  CPU_SET_S(static_cast<size_t>(cpu), bytes, set.get());
  return sched_setaffinity(0, bytes, set.get()) == 0;
}

}  // namespace

std::string pin_team(const ThreadChoice& choice, int threads) {
  const std::string bind = env_or_empty("OMP_PROC_BIND"), places = env_or_empty("OMP_PLACES");
  if (!bind.empty() || !places.empty()) {
    std::string s = "by the OpenMP runtime (";
    if (!bind.empty()) s += "OMP_PROC_BIND=" + bind + (places.empty() ? "" : ", ");
    if (!places.empty()) s += "OMP_PLACES=" + places;
    return s + ")";
  }
  if (choice.node_masks.empty()) return "none (no affinity masks)";
  const std::vector<int> cpus = pin_cpus(choice.node_masks, threads, choice.node_rank);
  if (cpus.empty())
    return "none (" + std::to_string(threads) + " threads per rank do not fit this rank's share of its " +
           std::to_string(choice.cpus) + " CPUs)";
  int failed = 0;
#pragma omp parallel num_threads(threads) reduction(+ : failed)
  failed += bind_to(cpus[static_cast<size_t>(omp_get_thread_num())]) ? 0 : 1;
  if (failed > 0) return "none (sched_setaffinity refused)";
  std::string s = "CPU";
  s += cpus.size() > 1 ? "s " : " ";
  for (size_t t = 0; t < cpus.size(); ++t) {
    if (t > 0) s += ",";
    s += std::to_string(cpus[t]);
  }
  return s + " (haloex; set OMP_PROC_BIND=false to leave threads unpinned)";
}

std::string threads_source() {
  const char* v = std::getenv("OMP_NUM_THREADS");
  return v != nullptr && *v != '\0' ? "OMP_NUM_THREADS" : "affinity";
}

ThreadChoice plan_threads(MPI_Comm comm) { return plan_on_node(node_comm(comm).get()); }

ThreadChoice choose_threads(MPI_Comm comm, std::ostream& warn) {
  const Comm node = node_comm(comm);
  ThreadChoice c = plan_on_node(node.get());  // not const: returned by move
  if (c.source == "affinity") omp_set_num_threads(c.threads);

  // One warning for the run, however many nodes: rank 0 names the
  // oversubscribed node with the lowest rank and counts the others.
  const int rank = comm_rank(comm);
  const bool reporter = c.node.oversubscribed() && comm_rank(node.get()) == 0;  // one per node
  const int candidate = reporter ? rank : INT_MAX, one = reporter ? 1 : 0;
  int first = INT_MAX, nodes = 0;
  mpi_check(MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(&one, &nodes, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  if (nodes == 0) return c;

  // The first reporter sends its node's numbers and host name to rank 0.
  struct Report {
    int ranks, threads, cpus;
    char host[MPI_MAX_PROCESSOR_NAME];
  } report{};
  if (rank == first) {
    report.ranks = c.node.ranks;
    report.threads = c.node.threads;
    report.cpus = c.node.cpus;
    int len = 0;
    mpi_check(MPI_Get_processor_name(report.host, &len), "MPI_Get_processor_name");
  }
  if (first != 0) {
    if (rank == first)
      mpi_check(MPI_Send(&report, static_cast<int>(sizeof report), MPI_BYTE, 0, 0, comm), "MPI_Send");
    if (rank == 0)
      mpi_check(
          MPI_Recv(&report, static_cast<int>(sizeof report), MPI_BYTE, first, 0, comm, MPI_STATUS_IGNORE),
          "MPI_Recv");
  }
  if (rank == 0) {
    report.host[sizeof report.host - 1] = '\0';
    const NodeLoad load{report.ranks, report.threads, report.cpus};
    // (Line and newline in one write, so that no other rank's output lands between them.)
    warn << oversubscription_warning(load, report.host, nodes - 1) + "\n" << std::flush;
  }
  return c;
}

}  // namespace haloex
