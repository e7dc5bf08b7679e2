// MPI-IO implementation: each I/O-grid file is written by its block's ranks
// through a subarray view of whole site records, so the file is in global
// order (x fastest) whatever the decomposition. Binary records are the aggregator's
// bytes; ASCII records are fixed-width text, so they too sit at computable
// offsets.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "haloex/core/large_count.hpp"
#include "haloex/core/mpi.hpp"
#include "io_impl.hpp"

namespace haloex {

namespace {

std::string mpi_error(int rc, const std::string& what) { return what + ": " + mpi_error_string(rc); }

// A view of `sub` records at `start` inside a block of `sizes` records
// stored in `order` (x fastest is MPI's Fortran order).
Datatype block_type(size_t record, SiteOrder order, const std::array<long, 3>& sizes,
                    const std::array<long, 3>& sub, const std::array<long, 3>& start) {
  MPI_Datatype rec = MPI_DATATYPE_NULL, block = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_contiguous(static_cast<int>(record), MPI_BYTE, &rec), "MPI_Type_contiguous");
  const Datatype rec_owner(rec);
  int n[3], s[3], o[3];
  for (int d = 0; d < 3; ++d) {
    if (sizes[d] > 2147483647L)
      throw InputError("a file block is too large for an MPI subarray (over 2^31 sites along one dimension)");
    n[d] = static_cast<int>(sizes[d]);
    s[d] = static_cast<int>(sub[d]);
    o[d] = static_cast<int>(start[d]);
  }
  const int mpi_order = order == SiteOrder::x_fastest ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
  mpi_check(MPI_Type_create_subarray(3, n, s, o, mpi_order, rec, &block), "MPI_Type_create_subarray");
  mpi_check(MPI_Type_commit(&block), "MPI_Type_commit");
  return Datatype(block);
}

void format_values(const std::byte* in, long sites, const IoElement& e, char* out) {
  const size_t w = ascii_width(e.type);
  const size_t es = io_type_size(e.type);
#pragma omp parallel for schedule(static)
  for (long s = 0; s < sites; ++s) {
    char tmp[40];
    for (int c = 0; c < e.ncomp; ++c) {
      const std::byte* v =
          in + (static_cast<size_t>(s) * static_cast<size_t>(e.ncomp) + static_cast<size_t>(c)) * es;
      char* o = out + (static_cast<size_t>(s) * static_cast<size_t>(e.ncomp) + static_cast<size_t>(c)) * w;
      if (e.type == IoType::f64) {
        double x;
        std::memcpy(&x, v, 8);
        std::snprintf(tmp, sizeof tmp, "%24.16e", x);
      } else if (e.type == IoType::f32) {
        float x;
        std::memcpy(&x, v, 4);
        std::snprintf(tmp, sizeof tmp, "%15.8e", static_cast<double>(x));
      } else {
        std::snprintf(tmp, sizeof tmp, "%3u", static_cast<unsigned>(*reinterpret_cast<const uint8_t*>(v)));
      }
      std::memcpy(o, tmp, w - 1);
      o[w - 1] = c + 1 == e.ncomp ? '\n' : ' ';
    }
  }
}

// Parse fixed-width values; returns the index of the first bad one, or -1.
long parse_values(const char* in, long values, IoType type, std::byte* out) {
  const size_t w = ascii_width(type);
  const size_t es = io_type_size(type);
  for (long i = 0; i < values; ++i) {
    char tmp[40];
    std::memcpy(tmp, in + static_cast<size_t>(i) * w, w - 1);
    tmp[w - 1] = '\0';
    const char sep = in[static_cast<size_t>(i) * w + w - 1];
    if (sep != ' ' && sep != '\n') return i;
    char* end = nullptr;
    errno = 0;
    std::byte* o = out + static_cast<size_t>(i) * es;
    if (type == IoType::f64) {
      const double x = std::strtod(tmp, &end);
      std::memcpy(o, &x, 8);
    } else if (type == IoType::f32) {
      const float x = std::strtof(tmp, &end);
      std::memcpy(o, &x, 4);
    } else {
      const unsigned long x = std::strtoul(tmp, &end, 10);
      if (x > 255) return i;
      *reinterpret_cast<uint8_t*>(o) = static_cast<uint8_t>(x);
    }
    if (end == tmp || errno == ERANGE) return i;
    while (*end == ' ') ++end;
    if (*end != '\0') return i;
  }
  return -1;
}

class MpiioImpl final : public IoImpl {
 public:
  MpiioImpl(IoFormat format, size_t count_limit, IoHints hints)
      : format_(format), count_limit_(count_limit), hints_(std::move(hints)), info_(hints_) {}
  ~MpiioImpl() override {
    if (fh_ != MPI_FILE_NULL) {
      if (req_ != MPI_REQUEST_NULL) MPI_Wait(&req_, MPI_STATUS_IGNORE);
      MPI_File_close(&fh_);
    }
  }

  std::string write_begin(const std::string& path, const Decomposition& dec, const IoGrid& grid,
                          const Aggregator& agg) override {
    const IoElement& e = agg.element();
    const size_t record = e.record_bytes(format_);
    const void* buf = agg.data();
    if (format_ == IoFormat::ascii) {
      text_.resize(static_cast<size_t>(agg.sites()) * record);
      format_values(agg.data(), agg.sites(), e, text_.data());
      buf = text_.data();
    }
    const Box fb = grid.file_box(grid.file_index());
    std::array<long, 3> sizes{}, start{};
    for (int d = 0; d < 3; ++d) {
      sizes[d] = fb.extent(d);
      start[d] = dec.offset(d) - fb.lo[d];
    }
    view_ = block_type(record, SiteOrder::x_fastest, sizes, agg.extent(), start);
    int rc = MPI_File_open(grid.comm(), path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, info_.get(), &fh_);
    if (rc != MPI_SUCCESS) {
      fh_ = MPI_FILE_NULL;
      return mpi_error(rc, "cannot create " + path);
    }
    applied_ = applied_hints(fh_, hints_);
    // A stale temporary file from a killed run may be longer than this one.
    rc = MPI_File_set_size(fh_, 0);
    if (rc == MPI_SUCCESS) rc = MPI_File_set_view(fh_, 0, MPI_BYTE, view_.get(), "native", MPI_INFO_NULL);
    if (rc != MPI_SUCCESS) return mpi_error(rc, "cannot prepare " + path);
    // A block above the count limit (2 GiB) is still one write, of a derived
    // type; it lives in count_ until the write completes.
    count_ = LargeCount(static_cast<size_t>(agg.sites()) * record, MPI_BYTE, count_limit_);
    // Non-blocking and independent (not MPI_File_write_all): Open MPI 4.1's
    // collective writer (fcoll vulcan) was seen to drop a block.
    rc = large_file_iwrite(fh_, buf, count_, &req_);
    if (rc != MPI_SUCCESS) return mpi_error(rc, "cannot start writing " + path);
    path_ = path;
    return {};
  }

  std::string write_end() override {
    std::string err;
    if (req_ != MPI_REQUEST_NULL) {
      MPI_Status st;
      const int rc = MPI_Wait(&req_, &st);
      if (rc != MPI_SUCCESS) err = mpi_error(rc, "writing " + path_ + " failed");
    }
    if (fh_ != MPI_FILE_NULL) {
      // Collective over the file's ranks even after a failure, so none hangs.
      // No MPI_File_sync: Open MPI 4.1's ompio fails it (MPI_ERR_OTHER) while
      // another file has a non-blocking write in flight; the driver fsyncs
      // the closed file on every rank instead.
      const int rc = MPI_File_close(&fh_);
      if (rc != MPI_SUCCESS && err.empty()) err = mpi_error(rc, "closing " + path_ + " failed");
      fh_ = MPI_FILE_NULL;
    }
    text_.clear();
    text_.shrink_to_fit();
    count_ = LargeCount();
    return err;
  }

  nlohmann::json hints_applied() const override { return applied_; }

  std::string read(const std::string& path, const FileEntry& f, const IoMetadata& m, const Decomposition& dec,
                   Aggregator& agg, uint64_t* checksum) override {
    const Box box = overlap_with(f, dec);
    if (box.empty()) return {};
    const IoElement& e = m.element;
    const size_t record = e.record_bytes(m.format);
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) return mpi_error(rc, "cannot open data file " + path);
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    if (size != f.bytes) {
      MPI_File_close(&fh);
      return path + " is " + (size < f.bytes ? "truncated" : "longer than its metadata says") + ": it has " +
             std::to_string(size) + " bytes, the metadata says " + std::to_string(f.bytes);
    }
    std::array<long, 3> sub{}, start{};
    for (int d = 0; d < 3; ++d) {
      sub[d] = box.extent(d);
      start[d] = box.lo[d] - f.offset[d];
    }
    const Datatype view = block_type(record, m.order, f.extent, sub, start);
    std::vector<char> raw(static_cast<size_t>(box.volume()) * record);
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, view.get(), "native", MPI_INFO_NULL);
    MPI_Status st;
    if (rc == MPI_SUCCESS)
      rc = large_file_read(fh, raw.data(), LargeCount(raw.size(), MPI_BYTE, count_limit_), &st);
    MPI_File_close(&fh);
    if (rc != MPI_SUCCESS) return mpi_error(rc, "reading " + path + " failed");
    const size_t es = io_type_size(e.type);
    std::vector<std::byte> values(static_cast<size_t>(box.volume()) * static_cast<size_t>(e.ncomp) * es);
    if (m.format == IoFormat::ascii) {
      const long bad = parse_values(raw.data(), box.volume() * e.ncomp, e.type, values.data());
      if (bad >= 0)
        return path + ": value " + std::to_string(bad) +
               " of this rank's block is not a number (corrupted file?)";
    } else {
      std::memcpy(values.data(), raw.data(), values.size());
    }
    *checksum += block_checksum(values.data(), box, m);
    place_block(values.data(), box, m.order, dec, agg);
    return {};
  }

 private:
  IoFormat format_;
  size_t count_limit_;
  IoHints hints_;
  InfoHints info_;
  nlohmann::json applied_ = nlohmann::json::object();
  MPI_File fh_ = MPI_FILE_NULL;
  LargeCount count_;  // of the write in flight
  MPI_Request req_ = MPI_REQUEST_NULL;
  Datatype view_;
  std::vector<char> text_;
  std::string path_;
};

}  // namespace

std::unique_ptr<IoImpl> make_mpiio_impl(IoFormat format, size_t count_limit, const IoHints& hints) {
#ifdef HALOEX_SMPI
  // SMPI 3.32 has no MPI_File_iwrite, which the asynchronous write needs.
  throw InputError("MPI-IO output is not available in a build for SimGrid's SMPI; turn the output off");
#endif
  return std::make_unique<MpiioImpl>(format, count_limit, hints);
}

}  // namespace haloex
