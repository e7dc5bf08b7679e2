/* The same from C, through haloex/haloex.h: a field of the global x index,
 * one exchange with the strategy named on the command line, and the x-
 * halo checked. */
#include <haloex/haloex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int check(int rc, const char* what) {
  if (rc != HALOEX_OK) fprintf(stderr, "consumer_c: %s: %s\n", what, haloex_last_error());
  return rc != HALOEX_OK;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* name = argc > 1 ? argv[1] : "direct";
  const long global[3] = {16, 12, 10};
  haloex_decomp d = NULL;
  haloex_plan p = NULL;
  haloex_exchange x = NULL;
  haloex_field f = {.type = HALOEX_DOUBLE, .ncomp = 1, .halo = 1, .layout = HALOEX_AOS};
  int status = check(haloex_decomp_create(MPI_COMM_WORLD, 3, global, NULL, NULL, &d), "decomposition") ||
               check(haloex_plan_create(d, 1, &f, &p), "plan") ||
               check(haloex_exchange_create(p, name, &x), name);
  if (!status) {
    int rank = 0;
    long local[3], offset[3], ext[3], n = 0;
    haloex_decomp_info(d, &rank, NULL, NULL, NULL, local, offset);
    haloex_field_extents(p, 0, ext, &n);
    double* u = calloc((size_t)n, sizeof(double));
    for (long i = 0; i < local[0]; ++i)
      for (long j = 0; j < local[1]; ++j)
        for (long k = 0; k < local[2]; ++k)
          u[((i + 1) * ext[1] + j + 1) * ext[2] + k + 1] = (double)(offset[0] + i);
    void* data[1] = {u};
    status = check(haloex_exchange_begin(x, data), "begin") || check(haloex_exchange_end(x), "end");
    const double want = (double)((offset[0] - 1 + global[0]) % global[0]);
    const double got = u[(0 * ext[1] + 1) * ext[2] + 1]; /* local site (-1, 0, 0) */
    if (!status && got != want) {
      fprintf(stderr, "consumer_c: rank %d: x- halo holds %g, want %g\n", rank, got, want);
      status = 1;
    } else if (!status && rank == 0) {
      printf("consumer_c: %s exchange through the C API OK\n", name);
    }
    free(u);
  }
  haloex_exchange_free(&x);
  haloex_plan_free(&p);
  haloex_decomp_free(&d);
  MPI_Finalize();
  return status;
}
