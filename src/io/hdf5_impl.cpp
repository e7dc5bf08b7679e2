// Parallel HDF5 implementation: each I/O-grid file holds one dataset of
// shape (nz, ny, nx, ncomp) over its block (x fastest, as XDMF reads it), written by the block's ranks
// with independent transfers (the collective path of Open MPI 4.1's MPI-IO
// is the one that was seen to drop data). XDMF descriptions point ParaView
// at these datasets.
#include "io_impl.hpp"

#ifdef HALOEX_HAVE_HDF5
#include <hdf5.h>

#include <array>
#include <cstring>
#include <vector>

namespace haloex {

namespace {

hid_t h5_type(IoType t) {
  return t == IoType::f64 ? H5T_NATIVE_DOUBLE : t == IoType::f32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_UINT8;
}

// Closes an HDF5 handle with the matching function.
struct H5 {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  H5(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  H5(const H5&) = delete;
  H5& operator=(const H5&) = delete;
  ~H5() {
    if (id >= 0) close(id);
  }
  bool ok() const { return id >= 0; }
};

// HDF5 prints its error stack by default; inside haloex's calls the errors
// come back as messages instead, and the caller's setting is put back after.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &fn_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, fn_, data_); }

 private:
  H5E_auto2_t fn_ = nullptr;
  void* data_ = nullptr;
};

class Hdf5Impl final : public IoImpl {
 public:
  explicit Hdf5Impl(IoHints hints) : hints_(std::move(hints)), info_(hints_) {}
  nlohmann::json hints_applied() const override { return applied_; }

  // Synchronous: HDF5 1.10 has no asynchronous write, so begin does it all.
  std::string write_begin(const std::string& path, const Decomposition& dec, const IoGrid& grid,
                          const Aggregator& agg) override {
    const QuietErrors quiet;
    const IoElement& e = agg.element();
    H5 fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    H5Pset_fapl_mpio(fapl.id, grid.comm(), info_.get());
    H5 file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id), H5Fclose);
    if (!file.ok()) return "cannot create HDF5 file " + path;
    // The MPI file under HDF5's MPI-IO driver, for what it made of the hints.
    void* handle = nullptr;
    if (!hints_.empty() && H5Fget_vfd_handle(file.id, fapl.id, &handle) >= 0 && handle != nullptr)
      applied_ = applied_hints(*static_cast<MPI_File*>(handle), hints_);
    const Box fb = grid.file_box(grid.file_index());
    // HDF5 lists dimensions slowest first: z, y, x.
    const std::array<int, 3> axes = slowest_first(SiteOrder::x_fastest);
    hsize_t dims[4], count[4], start[4];
    for (int n = 0; n < 3; ++n) {
      const int d = axes[static_cast<size_t>(n)];
      dims[n] = static_cast<hsize_t>(fb.extent(d));
      count[n] = static_cast<hsize_t>(agg.extent()[static_cast<size_t>(d)]);
      start[n] = static_cast<hsize_t>(dec.offset(d) - fb.lo[d]);
    }
    dims[3] = count[3] = static_cast<hsize_t>(e.ncomp);
    start[3] = 0;
    H5 fspace(H5Screate_simple(4, dims, nullptr), H5Sclose);
    H5 dset(H5Dcreate2(file.id, "data", h5_type(e.type), fspace.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            H5Dclose);
    if (!dset.ok()) return "cannot create the dataset in " + path;
    H5Sselect_hyperslab(fspace.id, H5S_SELECT_SET, start, nullptr, count, nullptr);
    H5 mspace(H5Screate_simple(4, count, nullptr), H5Sclose);
    H5 dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    H5Pset_dxpl_mpio(dxpl.id, H5FD_MPIO_INDEPENDENT);
    if (H5Dwrite(dset.id, h5_type(e.type), mspace.id, fspace.id, dxpl.id, agg.data()) < 0)
      return "writing " + path + " failed";
    return {};
  }

  std::string write_end() override { return {}; }

  std::string read(const std::string& path, const FileEntry& f, const IoMetadata& m, const Decomposition& dec,
                   Aggregator& agg, uint64_t* checksum) override {
    const Box box = overlap_with(f, dec);
    if (box.empty()) return {};
    const QuietErrors quiet;
    const IoElement& e = m.element;
    H5 fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    H5Pset_fapl_mpio(fapl.id, MPI_COMM_SELF, MPI_INFO_NULL);
    H5 file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.id), H5Fclose);
    if (!file.ok()) return "cannot open HDF5 file " + path + " (missing, truncated or not HDF5)";
    H5 dset(H5Dopen2(file.id, m.dataset.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dset.ok()) return path + " has no dataset " + m.dataset;
    H5 fspace(H5Dget_space(dset.id), H5Sclose);
    hsize_t dims[4] = {0, 0, 0, 0};
    if (H5Sget_simple_extent_ndims(fspace.id) != 4) return path + ": the dataset is not 4-dimensional";
    H5Sget_simple_extent_dims(fspace.id, dims, nullptr);
    const std::array<int, 3> axes = slowest_first(m.order);  // legacy files: x slowest
    for (int n = 0; n < 3; ++n)
      if (dims[n] != static_cast<hsize_t>(f.extent[static_cast<size_t>(axes[static_cast<size_t>(n)])]))
        return path + ": the dataset's shape does not match the metadata";
    if (dims[3] != static_cast<hsize_t>(e.ncomp))
      return path + ": the dataset's components do not match the metadata";
    hsize_t count[4], start[4];
    for (int n = 0; n < 3; ++n) {
      const int d = axes[static_cast<size_t>(n)];
      count[n] = static_cast<hsize_t>(box.extent(d));
      start[n] = static_cast<hsize_t>(box.lo[d] - f.offset[d]);
    }
    count[3] = static_cast<hsize_t>(e.ncomp);
    start[3] = 0;
    H5Sselect_hyperslab(fspace.id, H5S_SELECT_SET, start, nullptr, count, nullptr);
    H5 mspace(H5Screate_simple(4, count, nullptr), H5Sclose);
    const size_t es = io_type_size(e.type);
    std::vector<std::byte> values(static_cast<size_t>(box.volume()) * static_cast<size_t>(e.ncomp) * es);
    if (H5Dread(dset.id, h5_type(e.type), mspace.id, fspace.id, H5P_DEFAULT, values.data()) < 0)
      return "reading " + path + " failed (truncated or corrupted?)";
    *checksum += block_checksum(values.data(), box, m);
    place_block(values.data(), box, m.order, dec, agg);
    return {};
  }

 private:
  IoHints hints_;
  InfoHints info_;
  nlohmann::json applied_ = nlohmann::json::object();
};

}  // namespace

bool hdf5_available() { return true; }
std::unique_ptr<IoImpl> make_hdf5_impl(const IoHints& hints) { return std::make_unique<Hdf5Impl>(hints); }

}  // namespace haloex

#else

namespace haloex {

bool hdf5_available() { return false; }
std::unique_ptr<IoImpl> make_hdf5_impl(const IoHints&) {
  throw InputError(
      "this haloex was built without parallel HDF5; install libhdf5-openmpi-dev (or libhdf5-mpich-dev for "
      "MPICH) "
      "and rebuild, or use format = \"binary\"");
}

}  // namespace haloex

#endif
