// Describe a decomposition and a field once, then exchange its halo with a
// strategy named on the command line, overlapping it with interior work.
#include <mpi.h>

#include <cstdio>
#include <haloex/halo/strategy.hpp>
#include <string>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int status = 0;
  try {
    const std::string name = argc > 1 ? argv[1] : "direct";
    haloex::DecompositionSpec spec;
    spec.global = {16, 12, 10};
    haloex::Decomposition dec(MPI_COMM_WORLD, spec);
    haloex::Field<double> u(dec, 1, 1);
    for (long i = 0; i < u.local_size(0); ++i)
      for (long j = 0; j < u.local_size(1); ++j)
        for (long k = 0; k < u.local_size(2); ++k) u(i, j, k, 0) = static_cast<double>(dec.offset(0) + i);
    haloex::Plan plan(dec, {haloex::FieldSpec::of(u)});
    auto halo = haloex::make_strategy(name, plan);
    const haloex::FieldView views[] = {u.view()};
    halo->begin(views);
    // ... work on sites that need no halo would go here ...
    halo->end();
    // The x- halo holds the global x index just below this subdomain (periodic).
    const double want = static_cast<double>((dec.offset(0) - 1 + spec.global[0]) % spec.global[0]);
    if (u(-1, 0, 0, 0) != want) {
      std::fprintf(stderr, "rank %d: x- halo holds %g, want %g\n", dec.rank(), u(-1, 0, 0, 0), want);
      status = 1;
    } else if (dec.rank() == 0) {
      std::printf("consumer: %s exchange on %s OK\n", std::string(halo->name()).c_str(),
                  dec.describe().c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
