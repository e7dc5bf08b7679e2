/* The 2-D fourth-order diffusion stencil (the 2022 stencil paper's code,
 * and `haloex stencil`) in C over the C API:
 *
 *   mpirun -n 4 build/examples/stencil2d_c --nx 128 --ny 128 --nz 64 -i 64 -o out.npy
 *
 * An nx x ny x nz field (z not decomposed, a halo of 2 in x and y,
 * periodic) starts at 1 in the central block and 0 elsewhere; each
 * iteration exchanges the halo and applies out = in - alpha lap(lap(in)),
 * alpha = 1/32, the additions in the order of haloex's C++ kernel (built
 * without contraction into FMA), so that the result is the same to the last
 * bit as `haloex stencil --serial`. -o writes the field, [x, y, z] without
 * halo, as .npy (rank 0 gathers it). */
#include <haloex/haloex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { H = 2 };

typedef struct {
  long nx, ny, nz, iters;
  const char* strategy;
  const char* out;
} Args;

static int parse(int argc, char** argv, Args* a) {
  *a = (Args){128, 128, 64, 64, "auto", NULL};
  for (int i = 1; i < argc; ++i) {
    const char* k = argv[i];
    if (i + 1 >= argc) return 0;
    const char* v = argv[++i];
    char* end = NULL;
    const long n = strtol(v, &end, 10);
    if (!strcmp(k, "-s") || !strcmp(k, "--strategy")) {
      a->strategy = v;
      continue;
    }
    if (!strcmp(k, "-o") || !strcmp(k, "--out")) {
      a->out = v;
      continue;
    }
    long* field = !strcmp(k, "--nx")                          ? &a->nx
                  : !strcmp(k, "--ny")                        ? &a->ny
                  : !strcmp(k, "--nz")                        ? &a->nz
                  : !strcmp(k, "-i") || !strcmp(k, "--iters") ? &a->iters
                                                              : NULL;
    if (field == NULL || *end != '\0' || n < 0) return 0;
    *field = n;
  }
  return a->nx >= 1 && a->ny >= 1 && a->nz >= 1;
}

static int central(long g, long n) { return g >= n / 4 && g < 3 * n / 4; }

/* The .npy file of a C-order float64 array of shape (nx, ny, nz). */
static int write_npy(const char* path, const double* a, long nx, long ny, long nz) {
  char header[128];
  int len = snprintf(header, sizeof header,
                     "{'descr': '<f8', 'fortran_order': False, 'shape': (%ld, %ld, %ld), }", nx, ny, nz);
  const int total = (10 + len + 1 + 63) / 64 * 64; /* magic, version, length, dict, newline: 64-aligned */
  while (10 + len + 1 < total) header[len++] = ' ';
  header[len++] = '\n';
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  const unsigned char pre[10] = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
  const size_t n = (size_t)(nx * ny * nz);
  const int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)len, f) == (size_t)len &&
                 fwrite(a, sizeof(double), n, f) == n;
  return fclose(f) == 0 && ok;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, status = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Args a;
  if (!parse(argc, argv, &a)) {
    if (rank == 0)
      fprintf(stderr,
              "usage: stencil2d_c [--nx N] [--ny N] [--nz N] [-i ITERS] [-s STRATEGY] [-o FILE.npy]"
              " (sizes >= 1)\n");
    MPI_Finalize();
    return 2;
  }
  const long global[2] = {a.nx, a.ny};
  haloex_decomp d = NULL;
  haloex_plan p = NULL;
  haloex_exchange x = NULL;
  const haloex_field field = {.type = HALOEX_DOUBLE, .ncomp = (int)a.nz, .halo = H, .layout = HALOEX_AOS};
  if (haloex_decomp_create(MPI_COMM_WORLD, 2, global, NULL, NULL, &d) ||
      haloex_plan_create(d, 1, &field, &p) || haloex_exchange_create(p, a.strategy, &x)) {
    if (rank == 0) fprintf(stderr, "stencil2d_c: %s\n", haloex_last_error());
    MPI_Finalize();
    return 2;
  }
  long local[3], offset[3], ext[3], n = 0;
  haloex_decomp_info(d, NULL, NULL, NULL, NULL, local, offset);
  haloex_field_extents(p, 0, ext, &n);
  const long nz = a.nz, row = ext[1] * nz; /* strides of x and y in the AoS array */
  double* u = calloc((size_t)n, sizeof(double));
  double* out = calloc((size_t)n, sizeof(double));
  double* lap = calloc((size_t)n, sizeof(double));
#define AT(i, j) (((i) + H) * row + ((j) + H) * nz)
  for (long i = 0; i < local[0]; ++i)
    for (long j = 0; j < local[1]; ++j)
      for (long k = 0; k < nz; ++k)
        u[AT(i, j) + k] = central(offset[0] + i, a.nx) && central(offset[1] + j, a.ny) && central(k, nz);

  const double alpha = 1.0 / 32.0, t0 = MPI_Wtime();
  for (long it = 0; it < a.iters && !status; ++it) {
    void* data[1] = {u};
    if (haloex_exchange_run(x, data)) {
      fprintf(stderr, "stencil2d_c: %s\n", haloex_last_error());
      status = 1;
    }
    for (long i = -1; i <= local[0]; ++i) /* lap on the interior and one ring around it */
      for (long j = -1; j <= local[1]; ++j)
        for (long k = 0; k < nz; ++k) {
          const long m = AT(i, j) + k;
          lap[m] = -4.0 * u[m] + u[m - row] + u[m + row] + u[m - nz] + u[m + nz];
        }
    for (long i = 0; i < local[0]; ++i)
      for (long j = 0; j < local[1]; ++j)
        for (long k = 0; k < nz; ++k) {
          const long m = AT(i, j) + k;
          const double lap2 = -4.0 * lap[m] + lap[m - row] + lap[m + row] + lap[m - nz] + lap[m + nz];
          out[m] = u[m] - alpha * lap2;
        }
    double* t = u;
    u = out;
    out = t;
  }
  const double seconds = MPI_Wtime() - t0;

  /* Rank 0 gathers every block (offset and extents first) and writes it. */
  const long lx = local[0], ly = local[1];
  double* block = malloc((size_t)(lx * ly * nz) * sizeof(double));
  for (long i = 0; i < lx; ++i)
    for (long j = 0; j < ly; ++j)
      memcpy(block + (i * ly + j) * nz, u + AT(i, j), (size_t)nz * sizeof(double));
  const long meta[4] = {offset[0], offset[1], lx, ly};
  if (rank != 0) {
    MPI_Send(meta, 4, MPI_LONG, 0, 0, MPI_COMM_WORLD);
    MPI_Send(block, (int)(lx * ly * nz), MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
  } else {
    const char* name = NULL;
    haloex_exchange_strategy(x, &name);
    printf("stencil2d_c: %d ranks, %ldx%ldx%ld, %ld iterations, %s: %.3f s\n", size, a.nx, a.ny, nz, a.iters,
           name, seconds);
    double* field = malloc((size_t)(a.nx * a.ny * nz) * sizeof(double));
    for (int r = 0; r < size; ++r) {
      long m[4] = {offset[0], offset[1], lx, ly};
      double* b = block;
      if (r > 0) {
        MPI_Recv(m, 4, MPI_LONG, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        b = malloc((size_t)(m[2] * m[3] * nz) * sizeof(double));
        MPI_Recv(b, (int)(m[2] * m[3] * nz), MPI_DOUBLE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      for (long i = 0; i < m[2]; ++i)
        memcpy(field + ((m[0] + i) * a.ny + m[1]) * nz, b + i * m[3] * nz,
               (size_t)(m[3] * nz) * sizeof(double));
      if (r > 0) free(b);
    }
    if (a.out && !write_npy(a.out, field, a.nx, a.ny, nz)) {
      fprintf(stderr, "stencil2d_c: cannot write %s\n", a.out);
      status = 1;
    }
    free(field);
  }
#undef AT
  free(block);
  free(lap);
  free(out);
  free(u);
  haloex_exchange_free(&x);
  haloex_plan_free(&p);
  haloex_decomp_free(&d);
  MPI_Finalize();
  return status;
}
