/* LD_PRELOAD'ed into MPICH 4.0's ranks (ch4:ucx) by the tests, for two of
 * its faults.
 *
 * Ranks that outnumber the cores: a rank waiting in MPICH 4.0's progress
 * loop never gives its core away (the loop yields only to threads of its
 * own process, and no setting of 4.0 changes that), so with more ranks than
 * cores each message waits for a scheduler tick. The loop calls UCX's ucp_worker_progress on every pass, the
 * one call it makes into another library: this wraps it, and after a pass
 * that found nothing it yields the core, and after IDLE_PASSES such passes in
 * a row it sleeps (the shortest sleep the kernel gives, some tens of
 * microseconds): a rank that only yields stays runnable and still takes its
 * share of the core from the rank it waits for. docs/mpi.md says when to
 * use it.
 *
 * A hang in MPI_Finalize between nodes: 4.0's UCX finalize disconnects every
 * endpoint, waits for its own disconnects, then enters a PMI barrier that
 * reads the launcher's socket without progressing UCX, so a rank whose
 * disconnect needs an answer from a rank already in the barrier waits for
 * ever (MPICH's pull request 6596 removed that barrier, in 4.2). Between its
 * first disconnect and the destruction of its UCX worker, a thread's reads
 * (only the barrier's) wait here, progressing the worker, until the socket
 * has something to read. docs/cluster.md tells the story.
 *
 * (Built with _GNU_SOURCE, for RTLD_NEXT and sched_getaffinity.) */
#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { IDLE_PASSES = 16 };

typedef unsigned (*progress_fn)(void* worker);
typedef void* (*disconnect_fn)(void* endpoint);
typedef void (*destroy_fn)(void* worker);
typedef ssize_t (*read_fn)(int fd, void* buffer, size_t bytes);

/* UCX's own function NAME: the next definition in the global scope, or, where
 * MPICH was opened with RTLD_LOCAL (Python's extension modules), the one in
 * the libucp that opening MPICH loaded. */
static void* ucx_function(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == NULL) {
    void* ucp = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (ucp != NULL) f = dlsym(ucp, name);
  }
  if (f == NULL) abort(); /* only UCX's users call these, so UCX is loaded */
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

/* The finalize's state, per thread: the worker this thread progressed last
 * (MPICH 4.0 makes one unless told to make more), and whether the thread
 * has begun to disconnect. */
static __thread void* progressed_worker = NULL;
static __thread int disconnecting = 0;

unsigned ucp_worker_progress(void* worker) {
  static progress_fn real = NULL;
  static __thread unsigned idle = 0;
  if (real == NULL) real = (progress_fn)ucx_function("ucp_worker_progress");
  progressed_worker = worker;
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

/* UCX's ucp_disconnect_nb, deprecated but what MPICH 4.0 calls: marks the
 * thread as finalizing. */
void* ucp_disconnect_nb(void* endpoint) {
  static disconnect_fn real = NULL;
  if (real == NULL) real = (disconnect_fn)ucx_function("ucp_disconnect_nb");
  disconnecting = 1;
  return real(endpoint);
}

/* UCX's ucp_worker_destroy: the finalize is past its barrier. */
void ucp_worker_destroy(void* worker) {
  static destroy_fn real = NULL;
  if (real == NULL) real = (destroy_fn)ucx_function("ucp_worker_destroy");
  disconnecting = 0;
  progressed_worker = NULL;
  real(worker);
}

/* libc's read, for the PMI barrier's: while the thread is between its
 * disconnects and its worker's end, a read that would block progresses the
 * worker instead until the descriptor is readable (or reports an error,
 * which the real read then returns). Reads UCX makes while progressing go
 * straight through. */
ssize_t read(int fd, void* buffer, size_t bytes) {
  static read_fn real = NULL;
  static __thread int waiting = 0;
  if (real == NULL) real = (read_fn)dlsym(RTLD_NEXT, "read");
  if (disconnecting && progressed_worker != NULL && !waiting) {
    waiting = 1;
    struct pollfd ready = {fd, POLLIN, 0};
    while (poll(&ready, 1, 0) == 0) ucp_worker_progress(progressed_worker);
    waiting = 0;
  }
  return real(fd, buffer, bytes);
}
