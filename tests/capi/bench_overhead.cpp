// What the C API costs over the C++ call: the same exchange (a field of
// L^3 sites per rank, 19 doubles each, AoS, halo 1) run through a C++
// Strategy and through haloex_exchange_run on the same field and on a heap
// array of its shape, interleaved in the same process: N calls of each per
// repeat. Prints the medians per call and their differences (rank 0).
//   mpirun -np 2 build/tests/haloex_bench_capi_overhead [strategy] [L] [calls] [repeats]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "haloex/halo/strategy.hpp"
#include "haloex/haloex.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Body>
double seconds_per_call(int calls, Body&& body) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < calls; ++i) body();
  double t = (MPI_Wtime() - t0) / calls, worst = 0;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

int fail(const char* what) {
  std::fprintf(stderr, "bench_overhead: %s: %s\n", what, haloex_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string name = argc > 1 ? argv[1] : "direct";
  const long L = argc > 2 ? std::atol(argv[2]) : 32;
  const int calls = argc > 3 ? std::atoi(argv[3]) : 2000, repeats = argc > 4 ? std::atoi(argv[4]) : 7;
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // 2 ranks: 2L x L x L on a 2x1x1 grid, L^3 per rank.
  const long global[3] = {L * size, L, L};
  const int procs[3] = {size, 1, 1}, periodic[3] = {1, 1, 1};

  haloex::DecompositionSpec spec;
  spec.global = {global[0], global[1], global[2]};
  spec.procs = {size, 1, 1};
  haloex::Decomposition dec(MPI_COMM_WORLD, spec);
  haloex::Field<double> f(dec, 19, 1, haloex::Layout::aos);
  haloex::Plan plan(dec, {haloex::FieldSpec::of(f)});
  auto cxx = haloex::make_strategy(name, plan);
  const haloex::FieldView views[] = {f.view()};

  haloex_decomp d = nullptr;
  haloex_plan p = nullptr;
  haloex_exchange x = nullptr;
  const haloex_field field = {.type = HALOEX_DOUBLE, .ncomp = 19, .halo = 1, .layout = HALOEX_AOS};
  if (haloex_decomp_create(MPI_COMM_WORLD, 3, global, procs, periodic, &d) != HALOEX_OK)
    return fail("decomp");
  if (haloex_plan_create(d, 1, &field, &p) != HALOEX_OK) return fail("plan");
  if (haloex_exchange_create(p, name.c_str(), &x) != HALOEX_OK) return fail("exchange");
  long elements = 0;
  haloex_field_extents(p, 0, nullptr, &elements);
  // The C API on the C++ field's own memory (the call's cost alone), and on
  // an array from the C heap, as a C code would hand it (the allocation's
  // effect: the library's fields are 2 MiB aligned and offered huge pages).
  void* const same[] = {f.data()};
  std::vector<double> heap(static_cast<size_t>(elements), 1.0);
  void* const other[] = {heap.data()};

  for (int i = 0; i < calls / 10 + 1; ++i) {  // warm-up of all three
    cxx->exchange(views);
    haloex_exchange_run(x, same);
    haloex_exchange_run(x, other);
  }
  std::vector<double> t_cxx, t_c, t_heap;
  for (int r = 0; r < repeats; ++r) {
    t_cxx.push_back(seconds_per_call(calls, [&] { cxx->exchange(views); }));
    t_c.push_back(seconds_per_call(calls, [&] {
      if (haloex_exchange_run(x, same) != HALOEX_OK) fail("run");
    }));
    t_heap.push_back(seconds_per_call(calls, [&] {
      if (haloex_exchange_run(x, other) != HALOEX_OK) fail("run");
    }));
  }
  if (rank == 0) {
    const double a_us = median(t_cxx) * 1e6, b_us = median(t_c) * 1e6, c_us = median(t_heap) * 1e6;
    std::printf("%s, %ld^3 x 19 doubles per rank, %d ranks, median of %d x %d calls, interleaved\n",
                name.c_str(), L, size, repeats, calls);
    std::printf("  C++ Strategy::exchange                 %9.2f us\n", a_us);
    std::printf("  C haloex_exchange_run, the same field  %9.2f us  (%+.2f us, %+.1f%%)\n", b_us, b_us - a_us,
                100.0 * (b_us - a_us) / a_us);
    std::printf("  C haloex_exchange_run, a heap array    %9.2f us  (%+.2f us, %+.1f%%)\n", c_us, c_us - a_us,
                100.0 * (c_us - a_us) / a_us);
  }
  haloex_exchange_free(&x);
  haloex_plan_free(&p);
  haloex_decomp_free(&d);
  MPI_Finalize();
  return 0;
}
