/* The C API against the global-index encoding: every interior (site,
 * component) holds a value made from its global coordinates, the halo -1;
 * after an exchange every halo (site, component) must hold the value of the
 * global site it mirrors (wrapped where periodic), or still -1 across a
 * wall or where its component does not travel. Every registered strategy,
 * 2-D and 3-D, AoS and SoA, double and float, halo 1 and 2, the full plan
 * and a D2Q9 reduced one. Then every kind of bad call, which must return
 * its status and a message, never crash. Exit 0 only when all pass. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "haloex/haloex.h"

/* Written as code from before haloex_field had `width` and `zhalo`: its
 * positional initialisers leave them 0, which must mean what it meant. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static int failures = 0;

#define CHECK(cond, ...)            \
  do {                              \
    if (!(cond)) {                  \
      fprintf(stderr, "FAIL: ");    \
      fprintf(stderr, __VA_ARGS__); \
      fprintf(stderr, "\n");        \
      ++failures;                   \
    }                               \
  } while (0)

/* The value of global site g, component c. */
static double encode(const long g[3], const long n[3], int c, int ncomp) {
  return (double)(((g[0] * n[1] + g[1]) * n[2] + g[2]) * ncomp + c + 1);
}

/* D2Q9's directions (the third entry 0): rest, then the 8 moving ones. */
static const int d2q9[9 * 3] = {0, 0, 0, 1, 0,  0,  -1, 0, 0,  0, 1,  0, 0, -1,
                                0, 1, 1, 0, -1, -1, 0,  1, -1, 0, -1, 1, 0};

typedef struct {
  int ndim, layout, type, halo, ncomp;
  long global[3];
  int periodic[3];
  const int* dirs; /* NULL: the full plan */
} Case;

static double get(const void* data, int type, long idx) {
  return type == HALOEX_DOUBLE ? ((const double*)data)[idx] : (double)((const float*)data)[idx];
}
static void set(void* data, int type, long idx, double v) {
  if (type == HALOEX_DOUBLE)
    ((double*)data)[idx] = v;
  else
    ((float*)data)[idx] = (float)v;
}

/* Whether component c reaches the halo region in direction o (dirs[c]
 * points from the region into the interior wherever o is non-zero). */
static int travels(const Case* k, int c, const int o[3]) {
  if (!k->dirs) return 1;
  for (int d = 0; d < 3; ++d)
    if (o[d] != 0 && k->dirs[3 * c + d] != -o[d]) return 0;
  return 1;
}

/* Fill, exchange with `strategy`, check; returns 0 when the strategy
 * refused this case (the same on every rank), 1 when it ran. */
static int run_case(const Case* k, const char* strategy, int split) {
  haloex_decomp dec = NULL;
  haloex_plan plan = NULL;
  haloex_exchange x = NULL;
  const int procs[3] = {0, 0, 0};
  int rc = haloex_decomp_create(MPI_COMM_WORLD, k->ndim, k->global, procs, k->periodic, &dec);
  if (rc != HALOEX_OK) {
    fprintf(stderr, "FAIL: decomp_create: %s\n", haloex_last_error());
    ++failures;
    return 1;
  }
  haloex_field f = {k->type, k->ncomp, k->halo, k->layout, k->dirs ? k->ncomp : 0, k->dirs};
  rc = haloex_plan_create(dec, 1, &f, &plan);
  if (rc != HALOEX_OK) { /* e.g. a halo wider than this rank count's subdomains */
    haloex_decomp_free(&dec);
    return 0;
  }
  rc = haloex_exchange_create(plan, strategy, &x);
  if (rc != HALOEX_OK) { /* e.g. red-black on an odd rank count */
    CHECK(rc == HALOEX_ERR_INPUT, "%s: exchange_create returned %d: %s", strategy, rc, haloex_last_error());
    haloex_plan_free(&plan);
    haloex_decomp_free(&dec);
    return 0;
  }
  long local[3], offset[3], ext[3], elements;
  haloex_decomp_info(dec, NULL, NULL, NULL, NULL, local, offset);
  haloex_field_extents(plan, 0, ext, &elements);
  const long nsites = ext[0] * ext[1] * ext[2];
  void* data = malloc((size_t)elements * (k->type == HALOEX_DOUBLE ? 8 : 4));
  const long w[3] = {k->halo, k->halo, k->ndim == 3 ? k->halo : 0};
  const long n[3] = {k->global[0], k->global[1], k->ndim == 3 ? k->global[2] : 1};
#define INDEX(s, c) (k->layout == HALOEX_AOS ? (s)*k->ncomp + (c) : (c)*nsites + (s))
  for (int pass = 0; pass < 2; ++pass) {
    for (long i = 0; i < ext[0]; ++i)
      for (long j = 0; j < ext[1]; ++j)
        for (long l = 0; l < ext[2]; ++l) {
          const long loc[3] = {i - w[0], j - w[1], l - w[2]};
          int o[3], inside = 1, wall = 0;
          long g[3];
          for (int d = 0; d < 3; ++d) {
            o[d] = loc[d] < 0 ? -1 : loc[d] >= local[d] ? 1 : 0;
            inside &= o[d] == 0;
            g[d] = offset[d] + loc[d];
            if (g[d] < 0 || g[d] >= n[d]) {
              if (k->periodic[d])
                g[d] = (g[d] + n[d]) % n[d];
              else
                wall = 1;
            }
          }
          const long s = (i * ext[1] + j) * ext[2] + l;
          for (int c = 0; c < k->ncomp; ++c) {
            if (pass == 0) {
              set(data, k->type, INDEX(s, c), inside ? encode(g, n, c, k->ncomp) : -1.0);
              continue;
            }
            const double want = inside || (!wall && travels(k, c, o)) ? encode(g, n, c, k->ncomp) : -1.0;
            const double got = get(data, k->type, INDEX(s, c));
            if (got != want && failures < 20)
              CHECK(0, "%s %dD %s %s halo %d%s: local (%ld,%ld,%ld) comp %d holds %g, not %g", strategy,
                    k->ndim, k->layout == HALOEX_AOS ? "aos" : "soa",
                    k->type == HALOEX_DOUBLE ? "double" : "float", k->halo, k->dirs ? " reduced" : "", loc[0],
                    loc[1], loc[2], c, got, want);
            else if (got != want)
              ++failures;
          }
        }
    if (pass == 0) {
      void* const arrays[1] = {data};
      if (split) {
        rc = haloex_exchange_begin(x, arrays);
        CHECK(rc == HALOEX_OK, "%s: begin: %s", strategy, haloex_last_error());
        rc = haloex_exchange_end(x);
        CHECK(rc == HALOEX_OK, "%s: end: %s", strategy, haloex_last_error());
      } else {
        rc = haloex_exchange_run(x, arrays);
        CHECK(rc == HALOEX_OK, "%s: run: %s", strategy, haloex_last_error());
      }
    }
  }
#undef INDEX
  free(data);
  /* freed in another order than created: each keeps what it needs alive */
  CHECK(haloex_decomp_free(&dec) == HALOEX_OK && dec == NULL, "decomp_free");
  CHECK(haloex_plan_free(&plan) == HALOEX_OK && plan == NULL, "plan_free");
  CHECK(haloex_exchange_free(&x) == HALOEX_OK && x == NULL, "exchange_free");
  return 1;
}

static void expect(int rc, int want, const char* says, const char* what) {
  CHECK(rc == want, "%s returned %d (%s), not %d", what, rc, haloex_status_string(rc), want);
  CHECK(strstr(haloex_last_error(), says) != NULL, "%s: the message '%s' does not say '%s'", what,
        haloex_last_error(), says);
}

static void bad_calls(void) {
  haloex_decomp dec = NULL, copy = NULL, none = NULL;
  haloex_plan plan = NULL;
  haloex_exchange x = NULL;
  const long global[3] = {16, 16, 16};
  const int periodic[3] = {1, 1, 1};
  expect(haloex_decomp_create(MPI_COMM_WORLD, 4, global, NULL, periodic, &dec), HALOEX_ERR_ARGUMENT,
         "ndim must be 2 or 3", "ndim 4");
  expect(haloex_decomp_create(MPI_COMM_WORLD, 3, NULL, NULL, periodic, &dec), HALOEX_ERR_ARGUMENT,
         "global is NULL", "NULL global");
  const long zero[3] = {16, 0, 16};
  expect(haloex_decomp_create(MPI_COMM_WORLD, 3, zero, NULL, periodic, &dec), HALOEX_ERR_ARGUMENT,
         "global[1] must be >= 1", "a zero extent");
  CHECK(haloex_decomp_create(MPI_COMM_WORLD, 3, global, NULL, periodic, &dec) == HALOEX_OK, "decomp");
  expect(haloex_decomp_info(none, NULL, NULL, NULL, NULL, NULL, NULL), HALOEX_ERR_HANDLE, "NULL",
         "NULL handle");
  haloex_field wide = {HALOEX_DOUBLE, 19, 20, HALOEX_AOS, 0, NULL};
  expect(haloex_plan_create(dec, 1, &wide, &plan), HALOEX_ERR_INPUT, "halo",
         "a halo wider than the subdomain");
  CHECK(plan == NULL, "a failed create leaves its handle NULL");
  haloex_field bad_type = {7, 19, 1, HALOEX_AOS, 0, NULL};
  expect(haloex_plan_create(dec, 1, &bad_type, &plan), HALOEX_ERR_ARGUMENT, "type must be", "a bad type");
  haloex_field bad_dirs = {HALOEX_DOUBLE, 19, 1, HALOEX_AOS, 9, d2q9};
  expect(haloex_plan_create(dec, 1, &bad_dirs, &plan), HALOEX_ERR_ARGUMENT, "ndirs", "ndirs != ncomp");
  haloex_field f = {HALOEX_DOUBLE, 2, 1, HALOEX_SOA, 0, NULL};
  CHECK(haloex_plan_create(dec, 1, &f, &plan) == HALOEX_OK, "plan");
  expect(haloex_field_extents(plan, 1, NULL, NULL), HALOEX_ERR_ARGUMENT, "not in the plan", "field 1 of 1");
  expect(haloex_decomp_info((haloex_decomp)plan, NULL, NULL, NULL, NULL, NULL, NULL), HALOEX_ERR_HANDLE,
         "not a live handle", "a plan as a decomposition");
  expect(haloex_exchange_create(plan, "fast", &x), HALOEX_ERR_INPUT, "unknown halo strategy 'fast'",
         "an unknown strategy");
  CHECK(haloex_exchange_create(plan, "direct", &x) == HALOEX_OK, "exchange");
  expect(haloex_exchange_end(x), HALOEX_ERR_STATE, "no exchange was begun", "end without begin");
  long elements = 0;
  haloex_field_extents(plan, 0, NULL, &elements);
  double* a = calloc((size_t)elements, sizeof(double));
  void* const arrays[1] = {a};
  void* const nulls[1] = {NULL};
  expect(haloex_exchange_begin(x, nulls), HALOEX_ERR_ARGUMENT, "data[0] is NULL", "a NULL array");
  expect(haloex_exchange_begin(x, NULL), HALOEX_ERR_ARGUMENT, "data is NULL", "NULL data");
  CHECK(haloex_exchange_begin(x, arrays) == HALOEX_OK, "begin");
  expect(haloex_exchange_begin(x, arrays), HALOEX_ERR_STATE, "has not ended", "begin twice");
  expect(haloex_exchange_free(&x), HALOEX_ERR_STATE, "in flight", "free during an exchange");
  CHECK(haloex_exchange_end(x) == HALOEX_OK, "end");
  const char* name = NULL;
  CHECK(haloex_exchange_strategy(x, &name) == HALOEX_OK && strcmp(name, "direct") == 0, "strategy name");
  CHECK(haloex_exchange_free(&x) == HALOEX_OK, "free");
  expect(haloex_exchange_free(&x), HALOEX_ERR_HANDLE, "NULL", "free twice");
  copy = dec;
  CHECK(haloex_decomp_free(&dec) == HALOEX_OK, "decomp free");
  expect(haloex_decomp_info(copy, NULL, NULL, NULL, NULL, NULL, NULL), HALOEX_ERR_HANDLE, "freed already",
         "a freed handle");
  CHECK(haloex_plan_free(&plan) == HALOEX_OK, "plan free");
  free(a);
  CHECK(strcmp(haloex_status_string(HALOEX_ERR_HANDLE), "invalid handle") == 0, "status text");
  CHECK(strcmp(haloex_status_string(99), "unknown status") == 0, "unknown status text");
  CHECK(haloex_strategy_name(haloex_strategy_count()) == NULL, "a name past the end is NULL");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Case cases[] = {
      {3, HALOEX_AOS, HALOEX_DOUBLE, 1, 3, {12, 10, 8}, {1, 1, 0}, NULL},
      {3, HALOEX_SOA, HALOEX_FLOAT, 2, 2, {12, 10, 8}, {1, 0, 1}, NULL},
      {2, HALOEX_AOS, HALOEX_FLOAT, 1, 2, {12, 10, 1}, {1, 1, 1}, NULL},
      {2, HALOEX_SOA, HALOEX_DOUBLE, 1, 9, {12, 10, 1}, {1, 0, 1}, d2q9},
  };
  int ran = 0, refused = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    for (int s = 0; s < haloex_strategy_count(); ++s) {
      if (run_case(&cases[c], haloex_strategy_name(s), s % 2))
        ++ran;
      else
        ++refused;
    }
  bad_calls();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("C API: %d exchanges checked, %d refused by their strategy or size, %d failures\n", ran, refused,
           all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
