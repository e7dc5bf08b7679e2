// The thread-count rule against hand-worked nodes: shared and disjoint
// affinity masks, one rank, more ranks than CPUs; the oversubscription test
// and its warning; and the collective plan on the ranks of this run.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>
#include <sched.h>

#include <cstdlib>

#include <string>
#include <vector>

#include "haloex/core/threads.hpp"
#include "world.hpp"

namespace haloex::test {
namespace {

// Every rank's count under the affinity rule.
std::vector<int> all_threads(const std::vector<CpuMask>& masks) {
  std::vector<int> out;
  for (size_t i = 0; i < masks.size(); ++i) out.push_back(threads_from_masks(masks, static_cast<int>(i)));
  return out;
}

TEST(CpuMasks, CountAndBits) {
  EXPECT_EQ(cpu_mask_of({0, 1}), (CpuMask{0x03}));
  EXPECT_EQ(cpu_mask_of({9}), (CpuMask{0x00, 0x02}));
  EXPECT_EQ(cpu_count(cpu_mask_of({0, 3, 8, 63, 64})), 5);
  EXPECT_EQ(cpu_count(CpuMask{}), 0);
  EXPECT_EQ(cpu_count(cpu_mask_of({2, 2})), 1);
}

TEST(ThreadRule, SharedMaskIsDivided) {
  // mpirun --bind-to none: every rank may use every CPU.
  const CpuMask two = cpu_mask_of({0, 1}), eight = cpu_mask_of({0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(all_threads({two, two}), (std::vector<int>{1, 1}));
  EXPECT_EQ(all_threads({eight, eight}), (std::vector<int>{4, 4}));
  EXPECT_EQ(all_threads({eight, eight, eight}), (std::vector<int>{2, 2, 2}));  // 8/3 rounds down
}

TEST(ThreadRule, DisjointMasksKeepTheirOwnCount) {
  // --bind-to core: one CPU each; --bind-to socket: two 4-CPU sockets, two ranks on each.
  EXPECT_EQ(all_threads({cpu_mask_of({0}), cpu_mask_of({1})}), (std::vector<int>{1, 1}));
  const CpuMask s0 = cpu_mask_of({0, 1, 2, 3}), s1 = cpu_mask_of({4, 5, 6, 7});
  EXPECT_EQ(all_threads({s0, s1}), (std::vector<int>{4, 4}));
  EXPECT_EQ(all_threads({s0, s0, s1, s1}), (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(all_threads({s0, s1, s1}), (std::vector<int>{4, 2, 2}));
}

TEST(ThreadRule, PartlyOverlappingMasks) {
  // {0-3} meets {3-6}, which also meets {6}: each divides by the ranks it meets.
  const std::vector<CpuMask> m = {cpu_mask_of({0, 1, 2, 3}), cpu_mask_of({3, 4, 5, 6}), cpu_mask_of({6})};
  EXPECT_EQ(all_threads(m), (std::vector<int>{2, 1, 1}));
  // Masks of different lengths compare as if padded.
  EXPECT_EQ(all_threads({cpu_mask_of({0, 1}), cpu_mask_of({0, 1, 12, 13})}), (std::vector<int>{1, 2}));
}

TEST(ThreadRule, OneRankTakesItsWholeMask) {
  EXPECT_EQ(threads_from_masks({cpu_mask_of({0, 1, 2, 3, 4, 5})}, 0), 6);
  EXPECT_EQ(threads_from_masks({cpu_mask_of({5})}, 0), 1);
}

TEST(ThreadRule, MoreRanksThanCpusGetOneEach) {
  const CpuMask two = cpu_mask_of({0, 1});
  EXPECT_EQ(all_threads({two, two, two, two}), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(threads_from_masks({CpuMask{}}, 0), 1);  // no mask at all still runs
}

TEST(ThreadRule, NeverOversubscribesWhenCpusSuffice) {
  // The sum of the rule's counts never exceeds the CPUs of the union.
  const std::vector<std::vector<CpuMask>> nodes = {
      {cpu_mask_of({0, 1}), cpu_mask_of({0, 1})},
      {cpu_mask_of({0, 1, 2, 3}), cpu_mask_of({3, 4, 5, 6}), cpu_mask_of({6})},
      {cpu_mask_of({0, 1, 2, 3, 4, 5, 6, 7}), cpu_mask_of({0}), cpu_mask_of({1}), cpu_mask_of({2, 3})},
      {cpu_mask_of({0, 1, 2}), cpu_mask_of({0, 1, 2}), cpu_mask_of({3, 4, 5, 6, 7})}};
  for (const auto& masks : nodes) {
    const NodeLoad load = node_load(masks, all_threads(masks));
    EXPECT_LE(load.threads, load.cpus);
    EXPECT_FALSE(load.oversubscribed());
  }
}

TEST(NodeLoadCheck, ThreadsBeyondCpusAreOversubscription) {
  const CpuMask two = cpu_mask_of({0, 1});
  const NodeLoad twice = node_load({two, two}, {2, 2});
  EXPECT_EQ(twice.ranks, 2);
  EXPECT_EQ(twice.threads, 4);
  EXPECT_EQ(twice.cpus, 2);
  EXPECT_TRUE(twice.oversubscribed());
  EXPECT_EQ(twice.fitting_threads(), 1);
  EXPECT_FALSE(node_load({two, two}, {1, 1}).oversubscribed());
  EXPECT_FALSE(node_load({two}, {2}).oversubscribed());
  // 8 ranks x 1 thread on 2 CPUs: the ranks oversubscribe, not the threads.
  EXPECT_FALSE(node_load(std::vector<CpuMask>(8, two), std::vector<int>(8, 1)).oversubscribed());
  EXPECT_TRUE(node_load(std::vector<CpuMask>(3, two), std::vector<int>(3, 2)).oversubscribed());
  // Disjoint masks count their union.
  EXPECT_EQ(node_load({cpu_mask_of({0}), cpu_mask_of({1})}, {2, 2}).cpus, 2);
  EXPECT_EQ(NodeLoad({4, 4, 8}).fitting_threads(), 2);
}

TEST(NodeLoadCheck, WarningNamesNumbersAndRemedy) {
  const std::string w = oversubscription_warning(NodeLoad{2, 4, 2}, "node7", 0);
  EXPECT_EQ(w.rfind("haloex: warning: 2 ranks run 4 OpenMP threads on the 2 CPUs of host node7", 0), 0u) << w;
  EXPECT_NE(w.find("set OMP_NUM_THREADS=1"), std::string::npos) << w;
  EXPECT_NE(w.find("unset it"), std::string::npos) << w;
  EXPECT_EQ(w.find('\n'), std::string::npos) << "one line";
  EXPECT_NE(oversubscription_warning(NodeLoad{4, 16, 8}, "n", 3).find("likewise on 3 other nodes"),
            std::string::npos);
}

TEST(PinRule, SharedMaskIsSlicedInRankOrder) {
  // mpirun --bind-to none on 8 CPUs: ranks take consecutive slices.
  const CpuMask eight = cpu_mask_of({0, 1, 2, 3, 4, 5, 6, 7});
  const std::vector<CpuMask> two_ranks(2, eight);
  EXPECT_EQ(pin_cpus(two_ranks, 4, 0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(pin_cpus(two_ranks, 4, 1), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(pin_cpus(two_ranks, 1, 1), (std::vector<int>{1}));
  // The mask's own CPU numbers, not 0..n-1.
  const std::vector<CpuMask> odd(2, cpu_mask_of({3, 5, 9, 11}));
  EXPECT_EQ(pin_cpus(odd, 2, 1), (std::vector<int>{9, 11}));
}

TEST(PinRule, OwnMasksStartAtTheirFirstCpu) {
  // --bind-to socket: each rank pins within its own socket.
  const std::vector<CpuMask> sockets = {cpu_mask_of({0, 1, 2, 3}), cpu_mask_of({4, 5, 6, 7})};
  EXPECT_EQ(pin_cpus(sockets, 2, 0), (std::vector<int>{0, 1}));
  EXPECT_EQ(pin_cpus(sockets, 2, 1), (std::vector<int>{4, 5}));
}

TEST(PinRule, NothingWhenTheSliceDoesNotFit) {
  const CpuMask two = cpu_mask_of({0, 1});
  EXPECT_TRUE(pin_cpus({two, two}, 2, 0).empty());  // 2 x 2 threads on 2 CPUs
  EXPECT_TRUE(pin_cpus({two, two}, 2, 1).empty());
  // 3 ranks on 2 CPUs: none pins, not even the two that would find a CPU.
  for (int r = 0; r < 3; ++r) EXPECT_TRUE(pin_cpus(std::vector<CpuMask>(3, two), 1, r).empty());
  EXPECT_TRUE(pin_cpus({cpu_mask_of({4})}, 2, 0).empty());
}

TEST(ThreadPlan, AgreesWithThisRun) {
  // Under ctest OMP_NUM_THREADS is set: the plan keeps the runtime's count
  // and describes this rank's node.
  const ThreadChoice c = plan_threads(MPI_COMM_WORLD);
  EXPECT_EQ(c.source, threads_source());
  if (c.source == "OMP_NUM_THREADS") EXPECT_EQ(c.threads, omp_get_max_threads());
  EXPECT_GE(c.threads, 1);
  EXPECT_EQ(c.cpus, cpu_count(affinity_mask()));
  EXPECT_GE(c.ranks_sharing, 1);
  EXPECT_LE(c.ranks_sharing, c.node.ranks);
  EXPECT_LE(c.node.ranks, world_size());
  EXPECT_GE(c.node.cpus, c.cpus);
  // The same on every rank of a node: its load is summed over all of them.
  int total = 0;
  MPI_Allreduce(&c.threads, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (c.node.ranks == world_size()) EXPECT_EQ(c.node.threads, total);
}

// Last in this file: it narrows the threads' masks (and widens them back).
TEST(PinTeam, EachThreadOnItsOwnCpu) {
  // This run's plan, pinned and read back thread by thread (skipped when the
  // user pins through OpenMP).
  if (std::getenv("OMP_PROC_BIND") != nullptr || std::getenv("OMP_PLACES") != nullptr)
    GTEST_SKIP() << "OMP_PROC_BIND or OMP_PLACES is set: the OpenMP runtime pins";
  const ThreadChoice c = plan_threads(MPI_COMM_WORLD);
  const int threads = omp_get_max_threads();
  const std::vector<int> cpus = pin_cpus(c.node_masks, threads, c.node_rank);
  const CpuMask before = affinity_mask();
  const std::string how = pin_team(c, threads);
  if (cpus.empty()) {
    EXPECT_EQ(how.rfind("none", 0), 0u) << how;
    return;
  }
  std::vector<CpuMask> seen(static_cast<size_t>(threads));
  cpu_set_t wide;
  CPU_ZERO(&wide);
  for (size_t cpu = 0; cpu < 8 * before.size() && cpu < CPU_SETSIZE; ++cpu)
    if (before[cpu / 8] & (1u << (cpu % 8))) CPU_SET(cpu, &wide);
#pragma omp parallel num_threads(threads)
  {
    seen[static_cast<size_t>(omp_get_thread_num())] = affinity_mask();
    sched_setaffinity(0, sizeof wide, &wide);
  }
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(seen[static_cast<size_t>(t)], cpu_mask_of({cpus[static_cast<size_t>(t)]}))
        << "thread " << t << ": " << how;
  EXPECT_NE(how.find("CPU"), std::string::npos) << how;
}

}  // namespace
}  // namespace haloex::test
