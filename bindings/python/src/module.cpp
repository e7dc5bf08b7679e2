// The haloex Python package's extension (haloex._core), over the C API:
// an mpi4py communicator and NumPy arrays in, no copies; every array checked
// (dtype, shape, C-contiguity, writeable) against the plan before the
// library sees it; the GIL released while an exchange runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "haloex/haloex.h"

namespace py = pybind11;

namespace {

// haloex.HaloexError: a status of the C API, with its message.
PyObject* haloex_error = nullptr;

void check(int status) {
  if (status == HALOEX_OK) return;
  const std::string text = haloex_last_error();
  py::object e = py::reinterpret_borrow<py::object>(haloex_error)(text);
  e.attr("status") = status;
  PyErr_SetObject(haloex_error, e.ptr());
  throw py::error_already_set();
}

// NumPy's name of each element type the library moves (it moves bits, so
// int8 travels as a byte and uint32 would as int32; the dtype is NumPy's).
const std::array<std::pair<const char*, int>, 9> dtypes{{{"float64", HALOEX_DOUBLE},
                                                         {"float32", HALOEX_FLOAT},
                                                         {"uint8", HALOEX_BYTE},
                                                         {"int8", HALOEX_BYTE},
                                                         {"int32", HALOEX_INT32},
                                                         {"int64", HALOEX_INT64},
                                                         {"complex64", HALOEX_COMPLEX_FLOAT},
                                                         {"complex128", HALOEX_COMPLEX_DOUBLE},
                                                         {"double", HALOEX_DOUBLE}}};

int type_of(const std::string& dtype) {
  if (dtype == "float") return HALOEX_FLOAT;
  for (const auto& [name, type] : dtypes)
    if (dtype == name) return type;
  throw py::value_error(
      "dtype must be one of float64, float32, uint8, int8, int32, int64, complex64, "
      "complex128; not '" +
      dtype + "'");
}

int layout_of(const std::string& layout) {
  if (layout == "aos") return HALOEX_AOS;
  if (layout == "soa") return HALOEX_SOA;
  throw py::value_error("layout must be 'aos' or 'soa', not '" + layout + "'");
}

// One field of a plan, as given from Python.
struct Field {
  std::string dtype = "float64";
  int ncomp = 1, halo = 1;
  std::string layout = "aos";
  std::vector<std::array<int, 3>> dirs;  // empty: every component travels
  int width = 0, zhalo = 0;              // exchanged width (0: halo); z planes of a 2-D lattice
};

// A list of exactly n entries of T from Python, or a ValueError naming it.
template <class T>
std::vector<T> entries(const py::object& o, size_t n, const char* what) {
  std::vector<T> v = o.cast<std::vector<T>>();
  if (v.size() != n) throw py::value_error(std::string(what) + " needs " + std::to_string(n) + " entries");
  return v;
}

class Decomposition {
 public:
  Decomposition(const py::object& comm, const std::vector<long>& global,
                std::optional<std::vector<int>> procs, const py::object& periodic, const py::object& extents,
                const py::object& first, const py::object& extent) {
    const int ndim = static_cast<int>(global.size());
    if (ndim != 2 && ndim != 3) throw py::value_error("global_size needs 2 or 3 entries");
    if (!py::hasattr(comm, "py2f"))
      throw py::type_error("comm must be an mpi4py communicator (it has no py2f())");
    std::vector<int> p = procs.value_or(std::vector<int>(static_cast<size_t>(ndim), 0));
    std::vector<int> w;
    if (py::isinstance<py::bool_>(periodic)) {
      w.assign(static_cast<size_t>(ndim), periodic.cast<bool>() ? 1 : 0);
    } else {
      for (const py::handle& v : periodic) w.push_back(v.cast<bool>() ? 1 : 0);
    }
    if (static_cast<int>(p.size()) != ndim || static_cast<int>(w.size()) != ndim)
      throw py::value_error("procs and periodic need as many entries as global_size");
    const MPI_Fint f = comm.attr("py2f")().cast<MPI_Fint>();
    ndim_ = ndim;
    const auto n = static_cast<size_t>(ndim);
    if (!first.is_none() || !extent.is_none()) {
      if (first.is_none() || extent.is_none() || procs || !extents.is_none())
        throw py::value_error("first and extent (this rank's box) go together, without procs or extents");
      const std::vector<long> f0 = entries<long>(first, n, "first"), e0 = entries<long>(extent, n, "extent");
      check(haloex_decomp_create_owned_f(f, ndim, global.data(), w.data(), f0.data(), e0.data(), &h_));
    } else if (!extents.is_none()) {
      std::vector<std::optional<std::vector<long>>> e =
          entries<std::optional<std::vector<long>>>(extents, n, "extents");
      std::vector<const long*> ptrs(3, nullptr);
      for (size_t d = 0; d < n; ++d) {
        if (!e[d]) continue;
        if (p[d] == 0) p[d] = static_cast<int>(e[d]->size());
        if (static_cast<int>(e[d]->size()) != p[d])
          throw py::value_error("extents[" + std::to_string(d) + "] needs procs[" + std::to_string(d) +
                                "] entries");
        ptrs[d] = e[d]->data();
      }
      check(haloex_decomp_create_ranges_f(f, ndim, global.data(), p.data(), w.data(), ptrs.data(), &h_));
    } else {
      check(haloex_decomp_create_f(f, ndim, global.data(), p.data(), w.data(), &h_));
    }
    check(
        haloex_decomp_info(h_, &rank_, &size_, procs_.data(), coords_.data(), local_.data(), offset_.data()));
  }
  ~Decomposition() { haloex_decomp_free(&h_); }
  Decomposition(const Decomposition&) = delete;
  Decomposition& operator=(const Decomposition&) = delete;

  haloex_decomp handle() const { return h_; }
  int ndim() const { return ndim_; }
  py::tuple first(const auto& v) const {
    py::list out;
    for (int d = 0; d < ndim_; ++d) out.append(v[static_cast<size_t>(d)]);
    return py::tuple(out);
  }

  int rank_ = 0, size_ = 0;
  std::array<int, 3> procs_{}, coords_{};
  std::array<long, 3> local_{}, offset_{};

 private:
  haloex_decomp h_ = nullptr;
  int ndim_ = 0;
};

class Plan {
 public:
  Plan(const Decomposition& d, const std::vector<Field>& fields) : ndim_(d.ndim()), fields_(fields) {
    if (fields.empty()) throw py::value_error("a plan needs at least one field");
    std::vector<haloex_field> cf;
    for (const Field& f : fields) {
      if (!f.dirs.empty() && static_cast<int>(f.dirs.size()) != f.ncomp)
        throw py::value_error("dirs needs one direction per component (" + std::to_string(f.ncomp) + ")");
      cf.push_back({type_of(f.dtype), f.ncomp, f.halo, layout_of(f.layout), static_cast<int>(f.dirs.size()),
                    f.dirs.empty() ? nullptr : f.dirs.front().data(), f.width, f.zhalo, 0});
    }
    check(haloex_plan_create(d.handle(), static_cast<int>(cf.size()), cf.data(), &h_));
    for (size_t k = 0; k < fields.size(); ++k) {
      std::array<long, 3> e{};
      check(haloex_field_extents(h_, static_cast<int>(k), e.data(), nullptr));
      // (A 2-D lattice with z planes is a 3-D array.)
      std::vector<py::ssize_t> shape(e.begin(), e.begin() + (fields[k].zhalo ? 3 : ndim_));
      if (fields[k].layout == "aos")
        shape.push_back(fields[k].ncomp);
      else
        shape.insert(shape.begin(), fields[k].ncomp);
      shapes_.push_back(shape);
      const std::string name = fields[k].dtype == "double"  ? "float64"
                               : fields[k].dtype == "float" ? "float32"
                                                            : fields[k].dtype;
      dtypes_.push_back(py::dtype::from_args(py::str(name)));
    }
  }
  ~Plan() { haloex_plan_free(&h_); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  haloex_plan handle() const { return h_; }
  size_t nfields() const { return fields_.size(); }
  const std::vector<py::ssize_t>& shape(size_t k) const { return shapes_.at(k); }
  const py::dtype& dtype(size_t k) const { return dtypes_.at(k); }
  py::array empty(size_t k) const {
    if (k >= fields_.size())
      throw py::index_error("the plan has " + std::to_string(fields_.size()) + " fields");
    py::array a(dtype(k), shape(k));
    std::memset(a.mutable_data(), 0, static_cast<size_t>(a.nbytes()));
    return a;
  }

 private:
  haloex_plan h_ = nullptr;
  int ndim_;
  std::vector<Field> fields_;
  std::vector<std::vector<py::ssize_t>> shapes_;
  std::vector<py::dtype> dtypes_;
};

std::string shape_text(const std::vector<py::ssize_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

class Exchange {
 public:
  Exchange(std::shared_ptr<Plan> plan, const std::string& strategy) : plan_(std::move(plan)) {
    check(haloex_exchange_create(plan_->handle(), strategy.c_str(), &h_));
  }
  ~Exchange() {
    if (!arrays_.empty()) {
      py::gil_scoped_release unlocked;  // an exchange in flight must complete on every rank
      haloex_exchange_end(h_);
    }
    haloex_exchange_free(&h_);
  }
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  std::string strategy() const {
    const char* name = nullptr;
    check(haloex_exchange_strategy(h_, &name));
    return name;
  }

  // One array per field (a single array for a plan of one field), each
  // checked; kept alive until end().
  void begin(const py::object& arrays) {
    std::vector<py::array> list = checked(arrays);
    int status = HALOEX_OK;
    {
      py::gil_scoped_release unlocked;
      status = haloex_exchange_begin(h_, data_.data());  // (the C API refuses a second begin)
    }
    check(status);
    arrays_ = std::move(list);
  }
  void end() {
    int status = HALOEX_OK;
    {
      py::gil_scoped_release unlocked;
      status = haloex_exchange_end(h_);
    }
    arrays_.clear();
    check(status);
  }
  // Begin and end with the GIL released once.
  void run(const py::object& arrays) {
    const std::vector<py::array> list = checked(arrays);
    int status = HALOEX_OK;
    {
      py::gil_scoped_release unlocked;
      status = haloex_exchange_run(h_, data_.data());
    }
    check(status);
  }
  // Seconds per exchange of `calls` exchanges run in a C++ loop through the
  // C API, the arrays checked once: what the binding's own per-call cost is
  // measured against (tests/python/bench_overhead.py).
  double time_native(const py::object& arrays, int calls) {
    const std::vector<py::array> list = checked(arrays);
    int status = HALOEX_OK;
    double seconds = 0;
    {
      py::gil_scoped_release unlocked;
      const double t0 = MPI_Wtime();
      for (int i = 0; i < calls && status == HALOEX_OK; ++i) status = haloex_exchange_run(h_, data_.data());
      seconds = (MPI_Wtime() - t0) / calls;
    }
    check(status);
    return seconds;
  }

 private:
  // The arrays, each checked against its field (the messages are built only
  // on a mismatch: this runs on every call); their addresses in data_.
  std::vector<py::array> checked(const py::object& arrays) {
    std::vector<py::array> list;
    if (py::isinstance<py::array>(arrays)) {
      list.push_back(py::reinterpret_borrow<py::array>(arrays));
    } else {
      for (const py::handle& a : arrays) {
        if (!py::isinstance<py::array>(a)) throw py::type_error("every field must be a NumPy array");
        list.push_back(py::reinterpret_borrow<py::array>(a));
      }
    }
    if (list.size() != plan_->nfields())
      throw py::value_error("the plan has " + std::to_string(plan_->nfields()) + " field(s), got " +
                            std::to_string(list.size()) + " array(s)");
    data_.clear();
    for (size_t k = 0; k < list.size(); ++k) {
      const py::array& a = list[k];
      const auto which = [k] { return "field " + std::to_string(k) + ": "; };
      if (!a.dtype().is(plan_->dtype(k)))
        throw py::type_error(which() + "dtype " + py::str(a.dtype()).cast<std::string>() +
                             ", the plan's is " + py::str(plan_->dtype(k)).cast<std::string>());
      const std::vector<py::ssize_t>& want = plan_->shape(k);
      if (!std::equal(want.begin(), want.end(), a.shape(), a.shape() + a.ndim()))
        throw py::value_error(which() + "shape " + shape_text({a.shape(), a.shape() + a.ndim()}) +
                              ", the plan's (halo included) is " + shape_text(want));
      if (!(a.flags() & py::array::c_style))
        throw py::value_error(which() +
                              "the array is not C-contiguous (a view with strides?); pass a whole array");
      if (!a.writeable()) throw py::value_error(which() + "the array is read-only");
      data_.push_back(const_cast<void*>(a.data()));
    }
    return list;
  }

  std::shared_ptr<Plan> plan_;
  haloex_exchange h_ = nullptr;
  std::vector<py::array> arrays_;  // those of the exchange in flight
  std::vector<void*> data_;        // their addresses, for the C API
};

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "haloex's C API for Python (use the haloex package)";
  static py::exception<std::runtime_error> err(m, "HaloexError", PyExc_RuntimeError);
  haloex_error = err.ptr();

  py::class_<Field>(m, "Field", "One field of a plan: dtype, values per site, halo width, layout, directions")
      .def(py::init([](const std::string& dtype, int ncomp, int halo, const std::string& layout,
                       std::optional<std::vector<std::array<int, 3>>> dirs, int width, int zhalo) {
             type_of(dtype);
             layout_of(layout);
             return Field{dtype, ncomp, halo, layout, dirs.value_or(std::vector<std::array<int, 3>>{}),
                          width, zhalo};
           }),
           py::arg("dtype") = "float64", py::arg("ncomp") = 1, py::arg("halo") = 1, py::arg("layout") = "aos",
           py::arg("dirs") = py::none(), py::arg("width") = 0, py::arg("zhalo") = 0)
      .def_readonly("width", &Field::width)
      .def_readonly("zhalo", &Field::zhalo)
      .def_readonly("dtype", &Field::dtype)
      .def_readonly("ncomp", &Field::ncomp)
      .def_readonly("halo", &Field::halo)
      .def_readonly("layout", &Field::layout);

  py::class_<Decomposition, std::shared_ptr<Decomposition>>(
      m, "Decomposition", "A global lattice split over an mpi4py communicator")
      .def(py::init<const py::object&, const std::vector<long>&, std::optional<std::vector<int>>,
                    const py::object&, const py::object&, const py::object&, const py::object&>(),
           py::arg("comm"), py::arg("global_size"), py::arg("procs") = py::none(), py::arg("periodic") = true,
           py::arg("extents") = py::none(), py::arg("first") = py::none(), py::arg("extent") = py::none())
      .def_property_readonly("ndim", &Decomposition::ndim)
      .def_readonly("rank", &Decomposition::rank_)
      .def_readonly("size", &Decomposition::size_)
      .def_property_readonly("procs", [](const Decomposition& d) { return d.first(d.procs_); })
      .def_property_readonly("coords", [](const Decomposition& d) { return d.first(d.coords_); })
      .def_property_readonly("local", [](const Decomposition& d) { return d.first(d.local_); })
      .def_property_readonly("offset", [](const Decomposition& d) { return d.first(d.offset_); });

  py::class_<Plan, std::shared_ptr<Plan>>(m, "Plan", "Fields on a decomposition and what their halos need")
      .def(py::init<const Decomposition&, const std::vector<Field>&>(), py::arg("decomposition"),
           py::arg("fields"), py::keep_alive<1, 2>())
      .def(
          "shape", [](const Plan& p, size_t k) { return py::tuple(py::cast(p.shape(k))); },
          py::arg("field") = 0)
      .def("empty", &Plan::empty, py::arg("field") = 0, "A zeroed array of the field's shape, halo included");

  py::class_<Exchange>(m, "Exchange", "A halo strategy running a plan, in one call or split begin/end")
      .def(py::init<std::shared_ptr<Plan>, const std::string&>(), py::arg("plan"),
           py::arg("strategy") = "auto")
      .def_property_readonly("strategy", &Exchange::strategy)
      .def("begin", &Exchange::begin, py::arg("arrays"))
      .def("end", &Exchange::end)
      .def("run", &Exchange::run, py::arg("arrays"))
      .def("time_native", &Exchange::time_native, py::arg("arrays"), py::arg("calls"),
           "Seconds per exchange of `calls` exchanges looped in C++ (the binding's cost is measured against "
           "it)");

  m.def("strategies", [] {
    std::vector<std::string> out;
    for (int i = 0; i < haloex_strategy_count(); ++i) out.emplace_back(haloex_strategy_name(i));
    return out;
  });
}
