/* petsc_halo: PETSc's DMDA on bench halo's job, for `make peers`.
 *
 * L^3 sites per rank, 3-D, periodic, halo 1, the full 26-neighbour halo
 * (DMDA_STENCIL_BOX), `ncomp` doubles a site: AoS is one DMDA with
 * dof = ncomp (PETSc interleaves the components); SoA is ncomp vectors of
 * one DMDA with dof = 1, exchanged one after another, as a PETSc code with
 * one vector per component does. One exchange is DMGlobalToLocalBegin/End,
 * which also copies the interior into the local vector.
 *
 * The ranks split the lattice as haloex's do (MPI_Dims_create's first
 * dimension the slowest in memory: PETSc's z). Every value of the local
 * vectors is checked against a global-index encoding after one exchange,
 * and again after the timed ones (the local vectors NaN before them); a
 * wrong value is reported and the driver exits 3 with no timing printed.
 * Rank 0 prints one JSON line (the slowest rank's time per exchange).
 */
#include <math.h>
#include <petscdmda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PETSC_SUCCESS /* (named from PETSc 3.19 on) */
#define PETSC_SUCCESS 0
#endif

typedef struct {
  PetscInt L, ncomp, iterations, warmup, samples;
  int soa;
} Options;

static void usage_error(const char* what) {
  fprintf(stderr,
          "petsc_halo: %s\nusage: petsc_halo --L L --ncomp C --layout aos|soa [--mode dmda] "
          "--iterations N --warmup W --samples S\n",
          what);
  exit(2);
}

static long positive(const char* name, const char* text) {
  char* end = NULL;
  const long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 100000000) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s: '%s' is not a whole number from 1 to 1e8", name, text);
    usage_error(msg);
  }
  return v;
}

static Options parse(int argc, char** argv) {
  Options o = {0, 1, 100, 10, 5, 0};
  for (int i = 1; i < argc; i += 2) {
    const char* k = argv[i];
    if (i + 1 >= argc) usage_error("an option without a value");
    const char* v = argv[i + 1];
    if (!strcmp(k, "--L"))
      o.L = positive(k, v);
    else if (!strcmp(k, "--ncomp"))
      o.ncomp = positive(k, v);
    else if (!strcmp(k, "--iterations"))
      o.iterations = positive(k, v);
    else if (!strcmp(k, "--samples"))
      o.samples = positive(k, v);
    else if (!strcmp(k, "--warmup"))
      o.warmup = strcmp(v, "0") ? positive(k, v) : 0;
    else if (!strcmp(k, "--layout")) {
      if (strcmp(v, "aos") && strcmp(v, "soa")) usage_error("--layout must be aos or soa");
      o.soa = !strcmp(v, "soa");
    } else if (!strcmp(k, "--mode")) {
      if (strcmp(v, "dmda")) usage_error("--mode: PETSc's only mode is dmda");
    } else {
      char msg[256];
      snprintf(msg, sizeof msg, "unknown option '%s'", k);
      usage_error(msg);
    }
  }
  if (o.L == 0) usage_error("--L is required");
  return o;
}

/* The value every rank expects at global site (x, y, z), component c
 * (x fastest in PETSc's memory); exact below 2^53, in doubles so that no
 * PetscInt overflows. */
static double encode(PetscInt x, PetscInt y, PetscInt z, PetscInt c, const PetscInt n[3], PetscInt ncomp) {
  return (((double)z * (double)n[1] + (double)y) * (double)n[0] + (double)x) * (double)ncomp + (double)c;
}

static PetscInt wrap(PetscInt i, PetscInt n) { return ((i % n) + n) % n; }

typedef struct {
  DM da;
  PetscInt nvec, dof; /* AoS: 1 vector of dof = ncomp; SoA: ncomp vectors of dof = 1 */
  Vec* global;
  Vec* local;
  PetscInt n[3];
} Job;

/* procs: haloex's order (slowest first); PETSc's x is the fastest. */
static PetscErrorCode job_create(const Options* o, const int procs[3], Job* j) {
  const int p[3] = {procs[2], procs[1], procs[0]};
  PetscFunctionBeginUser;
  j->dof = o->soa ? 1 : o->ncomp;
  j->nvec = o->soa ? o->ncomp : 1;
  for (int d = 0; d < 3; ++d) j->n[d] = o->L * p[d];
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_PERIODIC, DM_BOUNDARY_PERIODIC, DM_BOUNDARY_PERIODIC,
                         DMDA_STENCIL_BOX, j->n[0], j->n[1], j->n[2], p[0], p[1], p[2], j->dof, 1, NULL, NULL,
                         NULL, &j->da));
  PetscCall(DMSetUp(j->da));
  PetscCall(PetscMalloc2(j->nvec, &j->global, j->nvec, &j->local));
  for (PetscInt v = 0; v < j->nvec; ++v) {
    PetscCall(DMCreateGlobalVector(j->da, &j->global[v]));
    PetscCall(DMCreateLocalVector(j->da, &j->local[v]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode job_exchange(Job* j) {
  PetscFunctionBeginUser;
  for (PetscInt v = 0; v < j->nvec; ++v) {
    PetscCall(DMGlobalToLocalBegin(j->da, j->global[v], INSERT_VALUES, j->local[v]));
    PetscCall(DMGlobalToLocalEnd(j->da, j->global[v], INSERT_VALUES, j->local[v]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Interior: the encoding; local vectors (halo included): NaN. */
static PetscErrorCode job_fill(Job* j, PetscInt ncomp) {
  PetscInt xs, ys, zs, xm, ym, zm;
  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(j->da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt v = 0; v < j->nvec; ++v) {
    PetscScalar**** a;
    PetscCall(VecSet(j->local[v], (PetscScalar)NAN));
    PetscCall(DMDAVecGetArrayDOF(j->da, j->global[v], &a));
    for (PetscInt z = zs; z < zs + zm; ++z)
      for (PetscInt y = ys; y < ys + ym; ++y)
        for (PetscInt x = xs; x < xs + xm; ++x)
          for (PetscInt d = 0; d < j->dof; ++d) a[z][y][x][d] = encode(x, y, z, v + d, j->n, ncomp);
    PetscCall(DMDAVecRestoreArrayDOF(j->da, j->global[v], &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every site of the local vectors, halo included, against the encoding of
 * its wrapped global site; the first wrong value is reported. */
static PetscErrorCode job_check(Job* j, PetscInt ncomp, long* wrong) {
  PetscInt xs, ys, zs, xm, ym, zm;
  PetscFunctionBeginUser;
  *wrong = 0;
  PetscCall(DMDAGetGhostCorners(j->da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt v = 0; v < j->nvec; ++v) {
    PetscScalar**** a;
    PetscCall(DMDAVecGetArrayDOFRead(j->da, j->local[v], &a));
    for (PetscInt z = zs; z < zs + zm; ++z)
      for (PetscInt y = ys; y < ys + ym; ++y)
        for (PetscInt x = xs; x < xs + xm; ++x)
          for (PetscInt d = 0; d < j->dof; ++d) {
            const double want =
                encode(wrap(x, j->n[0]), wrap(y, j->n[1]), wrap(z, j->n[2]), v + d, j->n, ncomp);
            if (a[z][y][x][d] == want) continue;
            if ((*wrong)++ == 0)
              fprintf(stderr, "petsc_halo: wrong halo at local (%d, %d, %d) component %d: %g, expected %g\n",
                      (int)x, (int)y, (int)z, (int)(v + d), (double)a[z][y][x][d], want);
          }
    PetscCall(DMDAVecRestoreArrayDOFRead(j->da, j->local[v], &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode job_destroy(Job* j) {
  PetscFunctionBeginUser;
  for (PetscInt v = 0; v < j->nvec; ++v) {
    PetscCall(VecDestroy(&j->global[v]));
    PetscCall(VecDestroy(&j->local[v]));
  }
  PetscCall(PetscFree2(j->global, j->local));
  PetscCall(DMDestroy(&j->da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slowest rank's time per exchange, one sample. */
static PetscErrorCode sample(Job* j, PetscInt iterations, double* t) {
  double mine, slowest;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  mine = MPI_Wtime();
  for (PetscInt i = 0; i < iterations; ++i) PetscCall(job_exchange(j));
  mine = MPI_Wtime() - mine;
  PetscCallMPI(MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, PETSC_COMM_WORLD));
  *t = slowest / (double)iterations;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether every rank's local vectors pass job_check; the first wrong value
 * is reported by the rank that has it, the count by rank 0. */
static PetscErrorCode job_verified(Job* j, PetscInt ncomp, int rank, PetscBool* ok) {
  long wrong, wrong_all;
  PetscFunctionBeginUser;
  PetscCall(job_check(j, ncomp, &wrong));
  PetscCallMPI(MPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD));
  if (wrong_all > 0 && rank == 0)
    fprintf(stderr, "petsc_halo: %ld wrong halo values (no timing printed)\n", wrong_all);
  *ok = wrong_all == 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Checks, times, checks again; *ok false: a wrong value (nothing printed on stdout). */
static PetscErrorCode run(const Options* o, PetscBool* ok) {
  int size, rank, procs[3] = {0, 0, 0};
  Job j;
  double* t;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Dims_create(size, 3, procs));
  PetscCall(job_create(o, procs, &j));
  PetscCall(job_fill(&j, o->ncomp));
  PetscCall(job_exchange(&j));
  PetscCall(job_verified(&j, o->ncomp, rank, ok));
  PetscCall(PetscMalloc1(o->samples, &t));
  if (*ok) {
    for (PetscInt i = 0; i < o->warmup; ++i) PetscCall(job_exchange(&j));
    PetscCall(job_fill(&j, o->ncomp)); /* (the timed exchanges must fill the local vectors again) */
    for (PetscInt s = 0; s < o->samples; ++s) PetscCall(sample(&j, o->iterations, &t[s]));
    PetscCall(job_verified(&j, o->ncomp, rank, ok));
  }
  if (*ok && rank == 0) {
    printf(
        "{\"peer\":\"petsc\",\"peer_version\":\"%d.%d.%d\",\"mode\":\"dmda\",\"L\":%d,\"ncomp\":%d,"
        "\"layout\":\"%s\",\"ranks\":%d,\"procs\":[%d,%d,%d],\"iterations\":%d,\"warmup\":%d,"
        "\"checked\":true,\"time_per_call_s\":[",
        PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, (int)o->L, (int)o->ncomp,
        o->soa ? "soa" : "aos", size, procs[0], procs[1], procs[2], (int)o->iterations, (int)o->warmup);
    for (PetscInt s = 0; s < o->samples; ++s) printf("%s%.9e", s ? "," : "", t[s]);
    printf("]}\n");
  }
  PetscCall(PetscFree(t));
  PetscCall(job_destroy(&j));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  PetscBool ok = PETSC_FALSE;
  PetscErrorCode err;
  /* (Our options are not PETSc's: it gets none of them.) */
  PetscCall(PetscInitializeNoArguments());
  err = run(&o, &ok);
  PetscCall(PetscFinalize());
  return err ? 1 : (ok ? 0 : 3);
}
