/* The C API for code haloex did not write, against the global-index
 * encoding: the client's own split (haloex_decomp_create_ranges with the
 * remainder on the highest coordinates; haloex_decomp_create_owned with the
 * ranks in x-fastest order), a halo allocated deeper than the width
 * exchanged, a 2-D lattice with halo planes in z, sites allocated past the
 * lattice (a different number on each rank), and every element type.
 * After an exchange every halo element within the exchanged width holds the
 * value of the global site it mirrors (wrapped where periodic); every other
 * halo element (deeper planes, z planes, across a wall) and every element
 * of the extra sites keeps its sentinel.
 * Then the refusals, which must come back on every rank with a message.
 * Exit 0 only when all pass. */
#include <complex.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "haloex/haloex.h"

static int failures = 0;
static int rank = 0, nranks = 1;

#define CHECK(cond, ...)                         \
  do {                                           \
    if (!(cond)) {                               \
      fprintf(stderr, "FAIL (rank %d): ", rank); \
      fprintf(stderr, __VA_ARGS__);              \
      fprintf(stderr, "\n");                     \
      ++failures;                                \
    }                                            \
  } while (0)

enum { RANGES, OWNED };

typedef struct {
  int mode, ndim, type, layout, ncomp, halo, width, zhalo;
  int periodic[3];
  long extra; /* > 0: sites past the box, extra + 7 * (rank % 3) on a rank */
} Case;

/* The client's split: the remainder on the highest coordinates. */
static long extent_of(long n, int p, int c) { return n / p + (c >= p - n % p ? 1 : 0); }
static long first_of(long n, int p, int c) {
  long f = 0;
  for (int k = 0; k < c; ++k) f += extent_of(n, p, k);
  return f;
}

/* One element at `at`: v > 0 for a site's value, or the sentinel of the
 * element with index idx. Bytes cycle through 1..97 and their sentinels are
 * 200..249, so a fill that is missing or where none belongs always shows. */
static void encode(void* at, int type, long idx, double v, int sentinel) {
  const double s = -1.0 - (double)idx;
  switch (type) {
    case HALOEX_DOUBLE: *(double*)at = sentinel ? s : v; break;
    case HALOEX_FLOAT: *(float*)at = (float)(sentinel ? s : v); break;
    case HALOEX_BYTE:
      *(unsigned char*)at = (unsigned char)(sentinel ? 200 + idx % 50 : (long)v % 97 + 1);
      break;
    case HALOEX_INT32: *(int32_t*)at = (int32_t)(sentinel ? s : v); break;
    case HALOEX_INT64: *(int64_t*)at = (int64_t)(sentinel ? s : v); break;
    case HALOEX_COMPLEX_FLOAT:
      *(float complex*)at = sentinel ? CMPLXF((float)s, 0) : CMPLXF((float)v, (float)-v);
      break;
    default: *(double complex*)at = sentinel ? CMPLX(s, 0) : CMPLX(v, -v); break;
  }
}

static void put(void* data, int type, long idx, double v, int sentinel) {
  encode((unsigned char*)data + (size_t)idx * (size_t)haloex_type_size(type), type, idx, v, sentinel);
}

/* Bit for bit. */
static int same(const void* data, int type, long idx, double v, int sentinel) {
  unsigned char want[16];
  encode(want, type, idx, v, sentinel);
  const size_t size = (size_t)haloex_type_size(type);
  return memcmp((const unsigned char*)data + (size_t)idx * size, want, size) == 0;
}

/* This rank's place in the client's decomposition. */
typedef struct {
  int procs[3], coords[3];
  long global[3], first[3], extent[3];
} Place;

static Place place_of(const Case* k) {
  Place p;
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(nranks, k->ndim, dims);
  const long sizes3[3] = {11, 9, 7}, sizes2[3] = {13, 10, 1};
  for (int d = 0; d < 3; ++d) {
    p.procs[d] = d < k->ndim ? dims[d] : 1;
    p.global[d] = k->ndim == 3 ? sizes3[d] : sizes2[d];
    if (nranks > 8 && d < k->ndim) p.global[d] = 3L * p.procs[d] - 1;
  }
  if (k->mode == OWNED) { /* x fastest */
    p.coords[0] = rank % p.procs[0];
    p.coords[1] = (rank / p.procs[0]) % p.procs[1];
    p.coords[2] = rank / (p.procs[0] * p.procs[1]);
  } else { /* row-major, as MPI_Cart_create */
    p.coords[2] = rank % p.procs[2];
    p.coords[1] = (rank / p.procs[2]) % p.procs[1];
    p.coords[0] = rank / (p.procs[1] * p.procs[2]);
  }
  for (int d = 0; d < 3; ++d) {
    p.first[d] = first_of(p.global[d], p.procs[d], p.coords[d]);
    p.extent[d] = extent_of(p.global[d], p.procs[d], p.coords[d]);
  }
  return p;
}

static int make_decomp(const Case* k, const Place* p, haloex_decomp* dec) {
  if (k->mode == OWNED)
    return haloex_decomp_create_owned(MPI_COMM_WORLD, k->ndim, p->global, k->periodic, p->first, p->extent,
                                      dec);
  long ext[3][64];
  const long* extents[3] = {ext[0], ext[1], ext[2]};
  for (int d = 0; d < 3; ++d)
    for (int c = 0; c < p->procs[d]; ++c) ext[d][c] = extent_of(p->global[d], p->procs[d], c);
  return haloex_decomp_create_ranges(MPI_COMM_WORLD, k->ndim, p->global, p->procs, k->periodic, extents, dec);
}

/* Fill, exchange, check; one case with one strategy. */
static void run_case(const Case* k, const char* strategy) {
  const Place p = place_of(k);
  haloex_decomp dec = NULL;
  haloex_plan plan = NULL;
  haloex_exchange x = NULL;
  int rc = make_decomp(k, &p, &dec);
  CHECK(rc == HALOEX_OK, "decomposition: %s", haloex_last_error());
  if (rc != HALOEX_OK) return;
  int r = -1, coords[3];
  long local[3], offset[3];
  haloex_decomp_info(dec, &r, NULL, NULL, coords, local, offset);
  CHECK(r == rank, "rank %d in the decomposition", r);
  for (int d = 0; d < 3; ++d)
    CHECK(coords[d] == p.coords[d] && local[d] == p.extent[d] && offset[d] == p.first[d],
          "dimension %d: coordinate %d, %ld sites from %ld; the client has %d, %ld from %ld", d, coords[d],
          local[d], offset[d], p.coords[d], p.extent[d], p.first[d]);
  const long extra = k->extra ? k->extra + 7 * (rank % 3) : 0;
  haloex_field f = {k->type, k->ncomp, k->halo, k->layout, 0, NULL, k->width, k->zhalo, extra};
  rc = haloex_plan_create(dec, 1, &f, &plan);
  CHECK(rc == HALOEX_OK, "plan: %s", haloex_last_error());
  if (rc == HALOEX_OK) rc = haloex_exchange_create(plan, strategy, &x);
  if (rc != HALOEX_OK) { /* red-black on an odd periodic ring */
    CHECK(rc == HALOEX_ERR_INPUT && strcmp(strategy, "red-black") == 0, "%s: %s", strategy,
          haloex_last_error());
    haloex_plan_free(&plan);
    haloex_decomp_free(&dec);
    return;
  }
  long ext[3], elements;
  haloex_field_extents(plan, 0, ext, &elements);
  const long nsites = ext[0] * ext[1] * ext[2];
  CHECK(elements == (nsites + extra) * k->ncomp, "%ld elements for %ld sites, %ld extra, %d components",
        elements, nsites, extra, k->ncomp);
  if (elements != (nsites + extra) * k->ncomp) { /* (the fill below would overrun) */
    haloex_exchange_free(&x);
    haloex_plan_free(&plan);
    haloex_decomp_free(&dec);
    return;
  }
  void* data = malloc((size_t)elements * (size_t)haloex_type_size(k->type));
  const int width = k->width ? k->width : k->halo;
  const long pad[3] = {k->halo, k->halo, k->ndim == 3 ? k->halo : k->zhalo};
  const long reach[3] = {width, width, k->ndim == 3 ? width : 0};
  long wrong = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (long i = 0; i < nsites; ++i) {
      const long loc[3] = {i / (ext[1] * ext[2]) - pad[0], (i / ext[2]) % ext[1] - pad[1],
                           i % ext[2] - pad[2]};
      int inside = 1, filled = 1;
      long g[3];
      for (int d = 0; d < 3; ++d) {
        inside &= loc[d] >= 0 && loc[d] < local[d];
        filled &= loc[d] >= -reach[d] && loc[d] < local[d] + reach[d];
        g[d] = offset[d] + loc[d];
        if (g[d] < 0 || g[d] >= p.global[d]) {
          if (d < k->ndim && k->periodic[d])
            g[d] = (g[d] + p.global[d]) % p.global[d];
          else
            filled = 0;
        }
      }
      for (int c = 0; c < k->ncomp; ++c) {
        const long idx = k->layout == HALOEX_AOS ? i * k->ncomp + c : c * (nsites + extra) + i;
        const double v = (double)(((g[0] * p.global[1] + g[1]) * p.global[2] + g[2]) * k->ncomp + c + 1);
        if (pass == 0)
          put(data, k->type, idx, v, !inside);
        else if (!same(data, k->type, idx, v, !(inside || filled)))
          ++wrong;
      }
    }
    for (long i = nsites; i < nsites + extra; ++i) /* the extra sites, never touched */
      for (int c = 0; c < k->ncomp; ++c) {
        const long idx = k->layout == HALOEX_AOS ? i * k->ncomp + c : c * (nsites + extra) + i;
        if (pass == 0)
          put(data, k->type, idx, 0, 1);
        else if (!same(data, k->type, idx, 0, 1))
          ++wrong;
      }
    if (pass == 0) {
      void* arrays[1] = {data};
      rc = haloex_exchange_run(x, arrays);
      CHECK(rc == HALOEX_OK, "%s: run: %s", strategy, haloex_last_error());
    }
  }
  CHECK(wrong == 0,
        "%s, mode %d, %d-D, type %d, layout %d, halo %d width %d zhalo %d extra %ld: %ld elements wrong",
        strategy, k->mode, k->ndim, k->type, k->layout, k->halo, k->width, k->zhalo, extra, wrong);
  free(data);
  haloex_exchange_free(&x);
  haloex_plan_free(&plan);
  haloex_decomp_free(&dec);
}

/* Whether every rank got `want` back with a message. */
static void refused(int rc, int want, const char* what) {
  int ok = rc == want && haloex_last_error()[0] != '\0', all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CHECK(all == 1, "%s: returned %d (want %d): %s", what, rc, want, haloex_last_error());
}

static void refusals(void) {
  const Case k = {OWNED, 3, HALOEX_DOUBLE, HALOEX_AOS, 1, 1, 0, 0, {1, 1, 1}, 0};
  Place p = place_of(&k);
  haloex_decomp dec = NULL;
  if (p.first[0] + p.extent[0] == p.global[0]) p.extent[0] -= 1; /* a gap at the x end */
  refused(haloex_decomp_create_owned(MPI_COMM_WORLD, 3, p.global, k.periodic, p.first, p.extent, &dec),
          HALOEX_ERR_INPUT, "a gap");
  CHECK(dec == NULL, "a refused decomposition left a handle");
  p = place_of(&k);
  long bad[64];
  for (int c = 0; c < p.procs[0]; ++c) bad[c] = extent_of(p.global[0], p.procs[0], c) + (c == 0);
  const long* extents[3] = {bad, NULL, NULL};
  refused(haloex_decomp_create_ranges(MPI_COMM_WORLD, 3, p.global, p.procs, k.periodic, extents, &dec),
          HALOEX_ERR_INPUT, "extents that do not add up");
  if (nranks > 1) { /* each rank's arguments valid, but not the same on all */
    int own[3] = {1, 1, rank == nranks - 1 ? 0 : 1};
    const long* even[3] = {NULL, NULL, NULL};
    refused(haloex_decomp_create_ranges(MPI_COMM_WORLD, 3, p.global, p.procs, own, even, &dec),
            HALOEX_ERR_INPUT, "periodicity differing between ranks");
  }
  if (rank == 0) p.extent[1] = 0;
  refused(haloex_decomp_create_owned(MPI_COMM_WORLD, 3, p.global, k.periodic, rank == 0 ? NULL : p.first,
                                     p.extent, &dec),
          HALOEX_ERR_INPUT, "a NULL on one rank");
  p = place_of(&k);
  CHECK(make_decomp(&k, &p, &dec) == HALOEX_OK, "decomposition: %s", haloex_last_error());
  haloex_plan plan = NULL;
  haloex_field wide = {HALOEX_DOUBLE, 1, 1, HALOEX_AOS, 0, NULL, 2, 0, 0};
  refused(haloex_plan_create(dec, 1, &wide, &plan), HALOEX_ERR_ARGUMENT, "width above halo");
  haloex_field planes = {HALOEX_DOUBLE, 1, 1, HALOEX_AOS, 0, NULL, 0, 1, 0};
  refused(haloex_plan_create(dec, 1, &planes, &plan), HALOEX_ERR_ARGUMENT, "zhalo on a 3-D lattice");
  haloex_field type = {42, 1, 1, HALOEX_AOS, 0, NULL, 0, 0, 0};
  refused(haloex_plan_create(dec, 1, &type, &plan), HALOEX_ERR_ARGUMENT, "an unknown type");
  haloex_field extra = {HALOEX_DOUBLE, 1, 1, HALOEX_SOA, 0, NULL, 0, 0, -1};
  refused(haloex_plan_create(dec, 1, &extra, &plan), HALOEX_ERR_ARGUMENT, "negative extra sites");
  haloex_decomp_free(&dec);
  CHECK(haloex_type_size(HALOEX_BYTE) == 1 && haloex_type_size(HALOEX_INT32) == 4 &&
            haloex_type_size(HALOEX_COMPLEX_FLOAT) == 8 && haloex_type_size(HALOEX_COMPLEX_DOUBLE) == 16 &&
            haloex_type_size(-1) == 0,
        "haloex_type_size");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const Case cases[] = {
      {RANGES, 3, HALOEX_DOUBLE, HALOEX_AOS, 3, 2, 1, 0, {1, 1, 1}, 2},
      {OWNED, 3, HALOEX_DOUBLE, HALOEX_SOA, 19, 2, 1, 0, {0, 1, 1}, 5},
      {OWNED, 2, HALOEX_DOUBLE, HALOEX_AOS, 9, 1, 0, 2, {1, 1, 0}, 0},
      {RANGES, 2, HALOEX_FLOAT, HALOEX_SOA, 4, 2, 0, 1, {1, 0, 0}, 3},
      {OWNED, 3, HALOEX_BYTE, HALOEX_AOS, 3, 1, 0, 0, {1, 1, 1}, 0},
      {RANGES, 3, HALOEX_INT32, HALOEX_SOA, 2, 2, 1, 0, {1, 1, 1}, 0},
      {OWNED, 2, HALOEX_INT64, HALOEX_AOS, 2, 2, 2, 0, {1, 1, 0}, 0},
      {RANGES, 3, HALOEX_COMPLEX_FLOAT, HALOEX_AOS, 2, 1, 0, 0, {1, 0, 1}, 0},
      {OWNED, 3, HALOEX_COMPLEX_DOUBLE, HALOEX_SOA, 2, 1, 0, 0, {1, 1, 1}, 0},
  };
  const int nstrategies = haloex_strategy_count();
  /* Above 8 ranks (26 distinct neighbours) the two 3-D splits; the types,
   * widths and planes are the same code at every rank count. */
  const size_t ncases = nranks > 8 ? 2 : sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < ncases; ++i)
    for (int s = 0; s < nstrategies; ++s) run_case(&cases[i], haloex_strategy_name(s));
  refusals();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failures\n", all ? "FAILED" : "passed", all);
  MPI_Finalize();
  return all ? 1 : 0;
}
