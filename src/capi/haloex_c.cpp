// The C API (include/haloex/haloex.h) over the C++ library: handles that own
// shared C++ objects, every call inside one try block that turns exceptions
// into status codes, and a register of live handles so that a freed or
// foreign handle is reported instead of dereferenced.
#include "haloex/haloex.h"

#include <climits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/field/field.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/halo/plan.hpp"
#include "haloex/halo/strategy.hpp"

struct haloex_decomp_s {
  std::shared_ptr<haloex::Decomposition> dec;
};

struct haloex_plan_s {
  std::shared_ptr<haloex::Decomposition> dec;  // the plan refers to it
  std::shared_ptr<haloex::Plan> plan;
  std::vector<haloex::FieldShape> shapes;
};

struct haloex_exchange_s {
  std::shared_ptr<haloex::Decomposition> dec;
  std::shared_ptr<haloex::Plan> plan;  // the strategy refers to it
  std::vector<haloex::FieldShape> shapes;
  std::unique_ptr<haloex::Strategy> strategy;
  std::string resolved;                  // what runs ("auto"'s choice)
  std::vector<haloex::FieldView> views;  // the arrays of the exchange in flight
  bool active = false;
};

namespace {

using namespace haloex;

// Errors of the C API's own checks, each a status of its own.
struct ArgumentError : Error {
  using Error::Error;
};
struct HandleError : Error {
  using Error::Error;
};
struct StateError : Error {
  using Error::Error;
};

// The last failure's message, per thread (a C interface reports through its
// return value; the text must outlive the call, like errno).
std::string& last_error() {
  thread_local std::string text;
  return text;
}

// Handles alive, by address and kind. Process-wide by necessity: a freed
// handle cannot be recognised from its own memory. A freed handle's memory
// is emptied but never returned (a few dozen bytes), so that no later handle
// gets its address and a stale copy cannot pass for the new one.
enum class Kind { decomp, plan, exchange };
class Live {
 public:
  void add(const void* h, Kind k) {
    std::lock_guard lock(m_);
    live_[h] = k;
  }
  void remove(const void* h) {
    std::lock_guard lock(m_);
    live_.erase(h);
  }
  bool is(const void* h, Kind k) {
    std::lock_guard lock(m_);
    const auto it = live_.find(h);
    return it != live_.end() && it->second == k;
  }

 private:
  std::mutex m_;
  std::unordered_map<const void*, Kind> live_;
};
Live& live() {
  static Live l;
  return l;
}

template <class H>
H* checked(H* h, Kind k, const char* what) {
  if (h == nullptr) throw HandleError(std::string(what) + ": the handle is NULL");
  if (!live().is(h, k))
    throw HandleError(std::string(what) + ": not a live handle of this kind (freed already?)");
  return h;
}

template <class T>
void need(const T* p, const char* what, const char* name) {
  if (p == nullptr) throw ArgumentError(std::string(what) + ": " + name + " is NULL");
}

// Run `body`, turning what it throws into a status and a message.
template <class Body>
int guarded(Body&& body) noexcept {
  try {
    body();
    return HALOEX_OK;
  } catch (const ArgumentError& e) {
    last_error() = e.what();
    return HALOEX_ERR_ARGUMENT;
  } catch (const HandleError& e) {
    last_error() = e.what();
    return HALOEX_ERR_HANDLE;
  } catch (const StateError& e) {
    last_error() = e.what();
    return HALOEX_ERR_STATE;
  } catch (const InputError& e) {
    last_error() = e.what();
    return HALOEX_ERR_INPUT;
  } catch (const Error& e) {  // the library's own: failed MPI calls
    last_error() = e.what();
    return HALOEX_ERR_MPI;
  } catch (const std::bad_alloc&) {
    last_error() = "out of memory";
    return HALOEX_ERR_INTERNAL;
  } catch (const std::exception& e) {
    last_error() = e.what();
    return HALOEX_ERR_INTERNAL;
  } catch (...) {
    last_error() = "an unknown C++ exception";
    return HALOEX_ERR_INTERNAL;
  }
}

// Every rank runs `check` (argument checks that throw); when any rank's
// fails, every rank throws InputError with the first failing rank's message,
// so that a collective call fails together instead of leaving the others
// waiting in MPI.
template <class Check>
void agreed(MPI_Comm comm, Check&& check) {
  std::string mine;
  try {
    check();
  } catch (const std::exception& e) {
    mine = e.what();
  }
  const int me = comm_rank(comm);
  int first = mine.empty() ? INT_MAX : me;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == INT_MAX) return;
  int n = static_cast<int>(mine.size());
  mpi_check(MPI_Bcast(&n, 1, MPI_INT, first, comm), "MPI_Bcast");
  mine.resize(static_cast<size_t>(n));
  mpi_check(MPI_Bcast(mine.data(), n, MPI_CHAR, first, comm), "MPI_Bcast");
  throw InputError(first == me ? mine : "rank " + std::to_string(first) + ": " + mine);
}

// The decomposition `build` makes, as a new handle in *out.
template <class Build>
int new_decomp(const char* what, MPI_Comm comm, int ndim, haloex_decomp* out, Build&& build) {
  return guarded([&] {
    need(out, what, "out");
    *out = nullptr;
    if (ndim != 2 && ndim != 3) throw ArgumentError(std::string(what) + ": ndim must be 2 or 3");
    if (comm == MPI_COMM_NULL) throw ArgumentError(std::string(what) + ": the communicator is MPI_COMM_NULL");
    auto h = std::make_unique<haloex_decomp_s>();
    h->dec = build();
    // Failed MPI calls on our communicator come back as statuses.
    mpi_check(MPI_Comm_set_errhandler(h->dec->comm(), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    live().add(h.get(), Kind::decomp);
    *out = h.release();
  });
}

// The common part of a decomposition's description.
DecompositionSpec spec_of(const char* what, int ndim, const long global[], const int procs[],
                          const int periodic[]) {
  need(global, what, "global");
  DecompositionSpec spec;
  spec.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {
    if (global[d] < 1)
      throw ArgumentError(std::string(what) + ": global[" + std::to_string(d) + "] must be >= 1");
    spec.global[d] = global[d];
    spec.procs[d] = procs ? procs[d] : 0;
    spec.periodic[d] = periodic ? periodic[d] != 0 : true;
  }
  return spec;
}

int create_decomp(MPI_Comm comm, int ndim, const long global[], const int procs[], const int periodic[],
                  haloex_decomp* out) {
  const char* what = "haloex_decomp_create";
  return new_decomp(what, comm, ndim, out, [&] {
    return std::make_shared<Decomposition>(comm, spec_of(what, ndim, global, procs, periodic));
  });
}

// A decomposition's description as one list of numbers, to compare across ranks.
std::vector<long> words_of(const DecompositionSpec& spec) {
  std::vector<long> w;
  for (int d = 0; d < spec.ndim; ++d) {
    w.insert(w.end(), {spec.global[d], long{spec.procs[d]}, long{spec.periodic[d]}});
    w.push_back(static_cast<long>(spec.extents[d].size()));
    w.insert(w.end(), spec.extents[d].begin(), spec.extents[d].end());
  }
  return w;
}

// Whether every rank holds the same `words` as rank 0 (collective).
bool same_on_all_ranks(MPI_Comm comm, const std::vector<long>& words) {
  long n = static_cast<long>(words.size());
  mpi_check(MPI_Bcast(&n, 1, MPI_LONG, 0, comm), "MPI_Bcast");
  std::vector<long> root(static_cast<size_t>(n));
  if (comm_rank(comm) == 0) root = words;
  mpi_check(MPI_Bcast(root.data(), static_cast<int>(n), MPI_LONG, 0, comm), "MPI_Bcast");
  int differs = root != words ? 1 : 0;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &differs, 1, MPI_INT, MPI_LOR, comm), "MPI_Allreduce");
  return differs == 0;
}

int create_ranges(MPI_Comm comm, int ndim, const long global[], const int procs[], const int periodic[],
                  const long* const extents[], haloex_decomp* out) {
  const char* what = "haloex_decomp_create_ranges";
  return new_decomp(what, comm, ndim, out, [&] {
    DecompositionSpec spec;
    agreed(comm, [&] {
      need(procs, what, "procs");
      need(extents, what, "extents");
      spec = spec_of(what, ndim, global, procs, periodic);
      for (int d = 0; d < ndim; ++d) {
        if (procs[d] < 1)
          throw ArgumentError(std::string(what) + ": procs[" + std::to_string(d) + "] must be >= 1");
        if (extents[d]) spec.extents[d].assign(extents[d], extents[d] + procs[d]);
      }
    });
    // Arguments that differ between ranks would make different lattices.
    if (!same_on_all_ranks(comm, words_of(spec)))
      throw InputError(std::string(what) +
                       ": the ranks passed different global sizes, process grids, "
                       "periodicity or extents; every rank must pass the same");
    return std::make_shared<Decomposition>(comm, spec);
  });
}

int create_owned(MPI_Comm comm, int ndim, const long global[], const int periodic[], const long first[],
                 const long extent[], haloex_decomp* out) {
  const char* what = "haloex_decomp_create_owned";
  return new_decomp(what, comm, ndim, out, [&] {
    OwnedBoxSpec spec;
    agreed(comm, [&] {
      need(first, what, "first");
      need(extent, what, "extent");
      const DecompositionSpec s = spec_of(what, ndim, global, nullptr, periodic);
      spec.ndim = ndim;
      spec.global = s.global;
      spec.periodic = s.periodic;
      for (int d = 0; d < ndim; ++d) spec.first[d] = first[d], spec.extent[d] = extent[d];
    });
    return std::make_shared<Decomposition>(comm, spec);
  });
}

ElementType element_type_of_c(int type) {
  switch (type) {
    case HALOEX_DOUBLE: return ElementType::f64;
    case HALOEX_FLOAT: return ElementType::f32;
    case HALOEX_BYTE: return ElementType::u8;
    case HALOEX_INT32: return ElementType::i32;
    case HALOEX_INT64: return ElementType::i64;
    case HALOEX_COMPLEX_FLOAT: return ElementType::c64;
    case HALOEX_COMPLEX_DOUBLE: return ElementType::c128;
    default: throw ArgumentError("type " + std::to_string(type) + " is not a haloex_type");
  }
}

FieldShape shape_of(const Decomposition& dec, const haloex_field& f, int k) {
  const std::string what = "haloex_plan_create: field " + std::to_string(k);
  if (f.type < HALOEX_DOUBLE || f.type > HALOEX_COMPLEX_DOUBLE)
    throw ArgumentError(what + ": type must be a haloex_type (HALOEX_DOUBLE .. HALOEX_COMPLEX_DOUBLE), not " +
                        std::to_string(f.type));
  if (f.layout != HALOEX_AOS && f.layout != HALOEX_SOA)
    throw ArgumentError(what + ": layout must be HALOEX_AOS or HALOEX_SOA");
  if (f.ncomp < 1) throw ArgumentError(what + ": ncomp must be >= 1");
  if (f.halo < 1) throw ArgumentError(what + ": halo must be >= 1");
  if (f.width < 0 || f.width > f.halo)
    throw ArgumentError(what + ": width must be 0 (the halo) or between 1 and halo (" +
                        std::to_string(f.halo) + "), not " + std::to_string(f.width));
  if (f.zhalo < 0) throw ArgumentError(what + ": zhalo must be >= 0");
  if (f.zhalo > 0 && dec.ndim() != 2) throw ArgumentError(what + ": zhalo is for 2-D lattices only");
  if (f.extra_sites < 0)
    throw ArgumentError(what + ": extra_sites must be >= 0, not " + std::to_string(f.extra_sites));
  if (f.ndirs != 0 && (f.ndirs != f.ncomp || f.dirs == nullptr))
    throw ArgumentError(what + ": ndirs must be 0, or ncomp with dirs holding 3 ints per component");
  const int width = f.width == 0 ? f.halo : f.width;
  // (A width given may exceed the lattice along a periodic dimension with one
  // rank, FieldShape::make checks the rest; without one, the halo must fit.)
  if (f.width == 0) dec.require_thickness(width, what + "'s halo");
  HaloWidths h = HaloWidths::uniform(dec.ndim(), f.halo);
  for (int d = 0; d < dec.ndim(); ++d) h.exchanged[d] = width;
  if (dec.ndim() == 2) h.alloc[2] = f.zhalo;  // (planes kept, not exchanged)
  FieldShape s = FieldShape::make(dec, element_type_of_c(f.type), f.ncomp, h,
                                  f.layout == HALOEX_AOS ? Layout::aos : Layout::soa);
  return f.extra_sites ? s.with_extra_sites(f.extra_sites) : s;
}

ComponentPredicate travels_of(const haloex_field& f) {
  if (f.ndirs == 0) return {};
  std::vector<Offset> dirs(static_cast<size_t>(f.ndirs));
  for (int i = 0; i < f.ndirs; ++i)
    for (int d = 0; d < 3; ++d) dirs[static_cast<size_t>(i)][static_cast<size_t>(d)] = f.dirs[3 * i + d];
  return crossing_components(std::move(dirs));
}

}  // namespace

extern "C" {

const char* haloex_status_string(int status) {
  switch (status) {
    case HALOEX_OK: return "success";
    case HALOEX_ERR_ARGUMENT: return "invalid argument";
    case HALOEX_ERR_HANDLE: return "invalid handle";
    case HALOEX_ERR_INPUT: return "input refused";
    case HALOEX_ERR_STATE: return "call out of order";
    case HALOEX_ERR_MPI: return "MPI error";
    case HALOEX_ERR_INTERNAL: return "internal error";
    default: return "unknown status";
  }
}

const char* haloex_last_error(void) { return last_error().c_str(); }

int haloex_decomp_create(MPI_Comm comm, int ndim, const long global[], const int procs[],
                         const int periodic[], haloex_decomp* out) {
  return create_decomp(comm, ndim, global, procs, periodic, out);
}

int haloex_decomp_create_f(MPI_Fint comm, int ndim, const long global[], const int procs[],
                           const int periodic[], haloex_decomp* out) {
  return create_decomp(MPI_Comm_f2c(comm), ndim, global, procs, periodic, out);
}

int haloex_decomp_create_ranges(MPI_Comm comm, int ndim, const long global[], const int procs[],
                                const int periodic[], const long* const extents[], haloex_decomp* out) {
  return create_ranges(comm, ndim, global, procs, periodic, extents, out);
}

int haloex_decomp_create_ranges_f(MPI_Fint comm, int ndim, const long global[], const int procs[],
                                  const int periodic[], const long* const extents[], haloex_decomp* out) {
  return create_ranges(MPI_Comm_f2c(comm), ndim, global, procs, periodic, extents, out);
}

int haloex_decomp_create_owned(MPI_Comm comm, int ndim, const long global[], const int periodic[],
                               const long first[], const long extent[], haloex_decomp* out) {
  return create_owned(comm, ndim, global, periodic, first, extent, out);
}

int haloex_decomp_create_owned_f(MPI_Fint comm, int ndim, const long global[], const int periodic[],
                                 const long first[], const long extent[], haloex_decomp* out) {
  return create_owned(MPI_Comm_f2c(comm), ndim, global, periodic, first, extent, out);
}

int haloex_type_size(int type) {
  try {
    return static_cast<int>(element_size(element_type_of_c(type)));
  } catch (const std::exception&) {
    return 0;
  }
}

int haloex_decomp_free(haloex_decomp* d) {
  return guarded([&] {
    need(d, "haloex_decomp_free", "the handle's address");
    checked(*d, Kind::decomp, "haloex_decomp_free");
    live().remove(*d);
    **d = {};  // the contents go; the memory stays (see Live)
    *d = nullptr;
  });
}

int haloex_decomp_info(haloex_decomp d, int* rank, int* size, int procs[3], int coords[3], long local[3],
                       long offset[3]) {
  return guarded([&] {
    const Decomposition& dec = *checked(d, Kind::decomp, "haloex_decomp_info")->dec;
    if (rank) *rank = dec.rank();
    if (size) *size = dec.size();
    for (int k = 0; k < 3; ++k) {
      if (procs) procs[k] = dec.procs(k);
      if (coords) coords[k] = dec.coord(k);
      if (local) local[k] = dec.local_size(k);
      if (offset) offset[k] = dec.offset(k);
    }
  });
}

int haloex_plan_create(haloex_decomp d, int nfields, const haloex_field fields[], haloex_plan* out) {
  return guarded([&] {
    const char* what = "haloex_plan_create";
    need(out, what, "out");
    *out = nullptr;
    const auto& dec = checked(d, Kind::decomp, what)->dec;
    if (nfields < 1) throw ArgumentError(std::string(what) + ": nfields must be >= 1");
    need(fields, what, "fields");
    auto h = std::make_unique<haloex_plan_s>();
    std::vector<FieldSpec> specs;
    for (int k = 0; k < nfields; ++k) {
      h->shapes.push_back(shape_of(*dec, fields[k], k));
      specs.push_back(FieldSpec{h->shapes.back(), travels_of(fields[k])});
    }
    h->dec = dec;
    h->plan = std::make_shared<Plan>(*dec, std::move(specs));
    live().add(h.get(), Kind::plan);
    *out = h.release();
  });
}

int haloex_plan_free(haloex_plan* p) {
  return guarded([&] {
    need(p, "haloex_plan_free", "the handle's address");
    checked(*p, Kind::plan, "haloex_plan_free");
    live().remove(*p);
    **p = {};  // the contents go; the memory stays (see Live)
    *p = nullptr;
  });
}

int haloex_field_extents(haloex_plan p, int field, long extents[3], long* elements) {
  return guarded([&] {
    const haloex_plan_s& h = *checked(p, Kind::plan, "haloex_field_extents");
    if (field < 0 || field >= static_cast<int>(h.shapes.size()))
      throw ArgumentError("haloex_field_extents: field " + std::to_string(field) +
                          " is not in the plan's 0.." + std::to_string(h.shapes.size() - 1));
    const FieldShape& s = h.shapes[static_cast<size_t>(field)];
    for (int d = 0; d < 3; ++d)
      if (extents) extents[d] = s.alloc[static_cast<size_t>(d)];
    if (elements) *elements = s.elements();
  });
}

int haloex_strategy_count(void) { return static_cast<int>(strategy_names().size()); }

const char* haloex_strategy_name(int i) {
  // The registry's names are fixed for the life of the program.
  static const std::vector<std::string> names = strategy_names();
  return i >= 0 && i < static_cast<int>(names.size()) ? names[static_cast<size_t>(i)].c_str() : nullptr;
}

int haloex_exchange_create(haloex_plan p, const char* strategy, haloex_exchange* out) {
  return guarded([&] {
    const char* what = "haloex_exchange_create";
    need(out, what, "out");
    *out = nullptr;
    const haloex_plan_s& plan = *checked(p, Kind::plan, what);
    need(strategy, what, "strategy");
    auto h = std::make_unique<haloex_exchange_s>();
    h->dec = plan.dec;
    h->plan = plan.plan;
    h->shapes = plan.shapes;
    h->strategy = make_strategy(strategy, *h->plan);  // throws InputError for an unknown name
    h->resolved = std::string(h->strategy->resolved_name());
    live().add(h.get(), Kind::exchange);
    *out = h.release();
  });
}

int haloex_exchange_free(haloex_exchange* x) {
  return guarded([&] {
    need(x, "haloex_exchange_free", "the handle's address");
    haloex_exchange_s* h = checked(*x, Kind::exchange, "haloex_exchange_free");
    if (h->active)
      throw StateError("haloex_exchange_free: an exchange is in flight; call haloex_exchange_end first");
    live().remove(h);
    *h = {};  // the contents go; the memory stays (see Live)
    *x = nullptr;
  });
}

int haloex_exchange_strategy(haloex_exchange x, const char** name) {
  return guarded([&] {
    haloex_exchange_s* h = checked(x, Kind::exchange, "haloex_exchange_strategy");
    need(name, "haloex_exchange_strategy", "name");
    *name = h->resolved.c_str();
  });
}

int haloex_exchange_begin(haloex_exchange x, void* const data[]) {
  return guarded([&] {
    const char* what = "haloex_exchange_begin";
    haloex_exchange_s* h = checked(x, Kind::exchange, what);
    need(data, what, "data");
    if (h->active) throw StateError(std::string(what) + ": the previous exchange has not ended");
    h->views.clear();
    for (size_t f = 0; f < h->shapes.size(); ++f) {
      if (data[f] == nullptr)
        throw ArgumentError(std::string(what) + ": data[" + std::to_string(f) + "] is NULL");
      h->views.push_back(FieldView{h->shapes[f], static_cast<std::byte*>(data[f])});
    }
    h->strategy->begin(h->views);
    h->active = true;
  });
}

int haloex_exchange_end(haloex_exchange x) {
  return guarded([&] {
    haloex_exchange_s* h = checked(x, Kind::exchange, "haloex_exchange_end");
    if (!h->active) throw StateError("haloex_exchange_end: no exchange was begun");
    h->active = false;  // whatever end() does, the next call may begin again
    h->strategy->end();
  });
}

int haloex_exchange_run(haloex_exchange x, void* const data[]) {
  const int rc = haloex_exchange_begin(x, data);
  return rc != HALOEX_OK ? rc : haloex_exchange_end(x);
}

}  // extern "C"
