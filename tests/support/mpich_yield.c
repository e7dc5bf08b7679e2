/* LD_PRELOAD'ed into MPICH 4.0's ranks (ch4:ucx) by the tests, for when they
 * outnumber the cores:
 * a rank waiting in MPICH 4.0's progress loop never gives its core away (the
 * loop yields only to threads of its own process, and no setting of 4.0
 * changes that), so with more ranks than cores each message waits for a
 * scheduler tick. The loop calls UCX's ucp_worker_progress on every pass, the
 * one call it makes into another library: this wraps it, and after a pass
 * that found nothing it yields the core, and after IDLE_PASSES such passes in
 * a row it sleeps (the shortest sleep the kernel gives, some tens of
 * microseconds): a rank that only yields stays runnable and still takes its
 * share of the core from the rank it waits for. docs/mpi.md says when to
 * use it. (Built with _GNU_SOURCE, for RTLD_NEXT and
 * sched_getaffinity.) */
#include <dlfcn.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { IDLE_PASSES = 16 };

typedef unsigned (*progress_fn)(void* worker);

/* UCX's own function: the next definition in the global scope, or, where
 * MPICH was opened with RTLD_LOCAL (Python's extension modules), the one in
 * the libucp that opening MPICH loaded. */
static progress_fn real_progress(void) {
  progress_fn f = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  if (f == NULL) {
    void* ucp = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (ucp != NULL) f = (progress_fn)dlsym(ucp, "ucp_worker_progress");
  }
  if (f == NULL) abort(); /* only UCX's users call this, so UCX is loaded */
  return f;
}

/* Whether this node's ranks and their threads outnumber the cores a rank
 * may run on. Hydra tells every rank how many share its node
 * (MPI_LOCALNRANKS); where they do not outnumber the cores, waiting on a core
 * of one's own is what MPICH means to do, and yielding there only adds a
 * system call to every idle pass. Without that variable (another launcher)
 * the library yields. HALOEX_MPICH_YIELD=always or never decides instead
 * (the emulated cluster's nodes share one machine's cores, which a node's
 * rank count does not show). Decided once, as the library is loaded. */
static int yielding = 1;

__attribute__((constructor)) static void decide(void) {
  const char* told = getenv("HALOEX_MPICH_YIELD");
  if (told != NULL && (strcmp(told, "always") == 0 || strcmp(told, "never") == 0)) {
    yielding = strcmp(told, "always") == 0;
    return;
  }
  const char* ranks = getenv("MPI_LOCALNRANKS");
  const char* threads = getenv("OMP_NUM_THREADS");
  cpu_set_t cores;
  if (ranks == NULL || sched_getaffinity(0, sizeof cores, &cores) != 0) return;
  const long per_rank = threads != NULL ? atol(threads) : 1;
  yielding = atol(ranks) * (per_rank > 1 ? per_rank : 1) > CPU_COUNT(&cores);
}

unsigned ucp_worker_progress(void* worker) {
  static progress_fn real = NULL;
  static __thread unsigned idle = 0;
  if (real == NULL) real = real_progress();
  const unsigned events = real(worker);
  if (!yielding || events != 0) {
    idle = 0;
  } else if (++idle < IDLE_PASSES) {
    sched_yield();
  } else {
    const struct timespec shortest = {0, 1000};
    nanosleep(&shortest, NULL);
  }
  return events;
}
