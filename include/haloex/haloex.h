/** @file haloex.h
 * The C API of haloex: decompose a 2-D or 3-D lattice over MPI ranks,
 * describe the fields that live on it, and exchange their halos with any
 * registered strategy by name ("auto" included), in one call or split into
 * begin and end around the caller's own work.
 *
 *   haloex_decomp d;  haloex_plan p;  haloex_exchange x;
 *   long global[3] = {256, 256, 256};  int procs[3] = {0, 0, 0}, periodic[3] = {1, 1, 1};
 *   haloex_decomp_create(MPI_COMM_WORLD, 3, global, procs, periodic, &d);
 *   haloex_field f = {.type = HALOEX_DOUBLE, .ncomp = 19, .halo = 1, .layout = HALOEX_AOS};
 *   haloex_plan_create(d, 1, &f, &p);
 *   haloex_exchange_create(p, "auto", &x);
 *   void* data[1] = {my_array};            // haloex_field_extents() says its size
 *   haloex_exchange_begin(x, data);  ...  haloex_exchange_end(x);
 *   haloex_exchange_free(&x);  haloex_plan_free(&p);  haloex_decomp_free(&d);
 *
 * Memory order of a field (C order, the last index fastest): sites
 * x-slowest, z-fastest, halo included: AoS [x][y][z][comp], SoA
 * [comp][x][y][z], with extents local + 2 * halo along each decomposed
 * dimension (haloex_field_extents). Local site (i, j, k) is at index
 * (i + halo, j + halo, k + halo).
 *
 * A code that decomposed and allocated its lattice itself keeps doing so:
 * haloex_decomp_create_ranges and haloex_decomp_create_owned take its split
 * (the remainder wherever it put it); haloex never reorders ranks (rank r of
 * the communicator given is rank r of the decomposition's, which is a
 * Cartesian communicator made without reordering, or a duplicate); a field's
 * `width` exchanges fewer planes than it allocates; `zhalo` keeps a 2-D
 * lattice in 3-D arrays; `extra_sites` leaves room past the lattice (SoA
 * blocks longer than it); the element types are any of 1, 4, 8 or 16 bytes.
 *
 * Every call returns HALOEX_OK or a status; haloex_last_error() gives the
 * message of the calling thread's last failure. No C++ exception crosses
 * this interface. Handles are freed with their _free call, which sets them
 * to NULL; a NULL, freed or wrong kind of handle is HALOEX_ERR_HANDLE, not a
 * crash. A plan keeps its decomposition alive and an exchange its plan, so
 * they may be freed in any order. Calls that say "collective" must be made
 * by every rank of the decomposition's communicator.
 */
#ifndef HALOEX_H
#define HALOEX_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a call returns. */
enum haloex_status {
  HALOEX_OK = 0,           /**< success */
  HALOEX_ERR_ARGUMENT = 1, /**< a bad argument: NULL, out of range, an unknown name */
  HALOEX_ERR_HANDLE = 2,   /**< a NULL, freed or wrong kind of handle */
  HALOEX_ERR_INPUT = 3,    /**< the library refused the input, e.g. a halo wider than a subdomain */
  HALOEX_ERR_STATE = 4,    /**< a call out of order: begin twice, end without begin */
  HALOEX_ERR_MPI = 5,      /**< an MPI call failed */
  HALOEX_ERR_INTERNAL = 6  /**< anything else (out of memory, a bug) */
};

/** Element types of a field. An exchange moves their bits: any type of the
 *  same size may be passed as one of these (HALOEX_BYTE with ncomp = n moves
 *  n bytes a site, AoS, whatever they hold). */
enum haloex_type {
  HALOEX_DOUBLE = 0,        /**< double, 8 bytes */
  HALOEX_FLOAT = 1,         /**< float, 4 bytes */
  HALOEX_BYTE = 2,          /**< char, signed or unsigned, 1 byte */
  HALOEX_INT32 = 3,         /**< int32_t (C int), 4 bytes */
  HALOEX_INT64 = 4,         /**< int64_t, 8 bytes */
  HALOEX_COMPLEX_FLOAT = 5, /**< float _Complex, 8 bytes */
  HALOEX_COMPLEX_DOUBLE = 6 /**< double _Complex, 16 bytes */
};
/** Layouts of a field: where a site's components are. */
enum haloex_layout {
  HALOEX_AOS = 0, /**< together: [site][comp] */
  HALOEX_SOA = 1  /**< one array per component: [comp][site] */
};

typedef struct haloex_decomp_s* haloex_decomp;     /**< a decomposed lattice */
typedef struct haloex_plan_s* haloex_plan;         /**< fields on it and what their halos need */
typedef struct haloex_exchange_s* haloex_exchange; /**< a strategy running a plan */

/** One field of a plan. ndirs = 0: every component travels to every halo
 *  site. Otherwise dirs holds ndirs = ncomp direction vectors (3 ints each,
 *  the third 0 in 2-D), and component i travels only to the halo regions
 *  it streams out of: dirs[i] points from the region into the interior
 *  (the populations of a lattice Boltzmann pull step). */
typedef struct {
  int type;        /**< a haloex_type */
  int ncomp;       /**< values per site, >= 1 */
  int halo;        /**< halo width in sites allocated on each side, >= 1 */
  int layout;      /**< HALOEX_AOS or HALOEX_SOA */
  int ndirs;       /**< 0, or ncomp */
  const int* dirs; /**< 3 * ndirs ints, or NULL */
  /** Halo width exchanged, 1 <= width <= halo; 0: halo. Only the `width`
   *  planes next to the interior are filled; the deeper ones (a code that
   *  allocates a halo for its widest stencil but exchanges one plane of
   *  another field) are left as they are. Each subdomain must be at least
   *  `width` thick, except along a periodic dimension with one rank, where
   *  the halo repeats the lattice's periodic images as often as it needs (a
   *  2-D system one site thick in z, its halos two planes deep); `halo`
   *  may be deeper than a subdomain. */
  int width;
  /** 2-D lattices only: halo planes allocated on each side of the third
   *  dimension (a 2-D lattice kept in the 3-D arrays of a 3-D code), 0: none.
   *  The field's extents are then (.., .., 1 + 2 * zhalo); the exchange fills
   *  the halo of the lattice's one plane (z index zhalo) and leaves the
   *  planes above and below it as they are. */
  int zhalo;
  /** Sites allocated past the field's box (its extents' product), >= 0,
   *  which no exchange touches: a code's own buffers after the lattice, as
   *  Ludwig keeps its Lees-Edwards planes. In SoA each component's block is
   *  then (box + extra_sites) sites long; in AoS the sites follow the box.
   *  May differ from rank to rank. */
  long extra_sites;
} haloex_field;

/** A fixed text for a status ("invalid argument", ...). */
const char* haloex_status_string(int status);
/** The message of the calling thread's last failed call ("" after none). */
const char* haloex_last_error(void);

/** Decompose a global lattice of ndim (2 or 3) dimensions: global[d]
 *  sites, procs[d] ranks along d (0: chosen by MPI_Dims_create), periodic
 *  along d when periodic[d] != 0, split evenly with the remainder on the
 *  lowest coordinates, one site each. Collective over comm; the decomposition
 *  uses its own Cartesian communicator, whose MPI errors return as
 *  HALOEX_ERR_MPI. */
int haloex_decomp_create(MPI_Comm comm, int ndim, const long global[], const int procs[],
                         const int periodic[], haloex_decomp* out);
/** haloex_decomp_create with a Fortran communicator handle (MPI_Comm_c2f). */
int haloex_decomp_create_f(MPI_Fint comm, int ndim, const long global[], const int procs[],
                           const int periodic[], haloex_decomp* out);
/** A decomposition whose split the client chose: extents[d] holds procs[d]
 *  entries, the sites that coordinates 0, 1, ... own along d (the ownership
 *  ranges of PETSc's DMDA), each >= 1, summing to global[d]; a NULL
 *  extents[d] splits d as haloex_decomp_create does. procs[d] >= 1 must be
 *  given. Ranks take their coordinates in comm's rank order, row-major (as
 *  MPI_Cart_create without reordering does, so a Cartesian communicator the
 *  client made with these procs has the same coordinates). Collective;
 *  every rank must pass the same arguments, or all get HALOEX_ERR_INPUT. */
int haloex_decomp_create_ranges(MPI_Comm comm, int ndim, const long global[], const int procs[],
                                const int periodic[], const long* const extents[], haloex_decomp* out);
/** A decomposition from each rank's own box: first[d] is the global index of
 *  this rank's first interior site along d and extent[d] its sites there.
 *  The boxes must tile the lattice as a process grid does (a complete,
 *  non-overlapping cover in which ranks that share a range along d agree on
 *  it); the process grid and each rank's coordinates follow from them, so
 *  a client's own rank order is kept, whatever it is. Collective; a cover
 *  that is not complete, overlaps or is no grid is HALOEX_ERR_INPUT on every
 *  rank, with a message naming the ranks and sites. */
int haloex_decomp_create_owned(MPI_Comm comm, int ndim, const long global[], const int periodic[],
                               const long first[], const long extent[], haloex_decomp* out);
/** The two calls above with a Fortran communicator handle. */
/** @{ */
int haloex_decomp_create_ranges_f(MPI_Fint comm, int ndim, const long global[], const int procs[],
                                  const int periodic[], const long* const extents[], haloex_decomp* out);
int haloex_decomp_create_owned_f(MPI_Fint comm, int ndim, const long global[], const int periodic[],
                                 const long first[], const long extent[], haloex_decomp* out);
/** @} */
/** Bytes of one element of a haloex_type, 0 for an unknown type. */
int haloex_type_size(int type);
/** Free a decomposition and set *d to NULL (a plan built on it keeps it alive). */
int haloex_decomp_free(haloex_decomp* d);
/** This rank's place: rank and size of the decomposition's communicator,
 *  the process grid, its coordinates in it, its interior extents and the
 *  global index of its first interior site (3 entries each; 1, 0, 1, 0 past
 *  ndim). Any output may be NULL. */
int haloex_decomp_info(haloex_decomp d, int* rank, int* size, int procs[3], int coords[3], long local[3],
                       long offset[3]);

/** A plan for nfields fields on the decomposition. Collective. */
int haloex_plan_create(haloex_decomp d, int nfields, const haloex_field fields[], haloex_plan* out);
/** Free a plan and set *p to NULL (an exchange of it keeps it alive). */
int haloex_plan_free(haloex_plan* p);
/** Field `field`'s allocated extents, halo included (3 entries; past ndim
 *  1, or 1 + 2 * zhalo), and the elements to allocate for it (extra_sites
 *  included). Either output may be NULL. */
int haloex_field_extents(haloex_plan p, int field, long extents[3], long* elements);

/** How many strategies are registered. */
int haloex_strategy_count(void);
/** The name of strategy i (0 <= i < haloex_strategy_count()), NULL otherwise. */
const char* haloex_strategy_name(int i);

/** A strategy for the plan by name ("auto" times the others once, here).
 *  Collective. */
int haloex_exchange_create(haloex_plan p, const char* strategy, haloex_exchange* out);
/** Free an exchange that is not in flight and set *x to NULL. */
int haloex_exchange_free(haloex_exchange* x);
/** The strategy that runs: the name given, or what "auto" chose. The text
 *  lives as long as the exchange. */
int haloex_exchange_strategy(haloex_exchange x, const char** name);
/** Start the exchange of the plan's fields: data[f] is field f's first
 *  element. Collective. The arrays must stay until the end. */
int haloex_exchange_begin(haloex_exchange x, void* const data[]);
/** Complete it: every halo site filled. Collective. */
int haloex_exchange_end(haloex_exchange x);
/** Begin and end. Collective. */
int haloex_exchange_run(haloex_exchange x, void* const data[]);

#ifdef __cplusplus
}
#endif

#endif /* HALOEX_H */
