#include "haloex/io/field_io.hpp"

#include <cstdio>
#include <filesystem>

#include "haloex/build_info.hpp"
#include "haloex/core/durable.hpp"
#include "haloex/core/mpi.hpp"
#include "io_impl.hpp"

namespace haloex {

namespace fs = std::filesystem;

namespace {

// HDF5 (1.10.2 and later) describes transfers above 2 GiB itself.
std::unique_ptr<IoImpl> make_impl(const IoOptions& o) {
  return o.format == IoFormat::hdf5 ? make_hdf5_impl(o.hints)
                                    : make_mpiio_impl(o.format, o.mpi_count_limit, o.hints);
}

const char* extension(IoFormat f) {
  return f == IoFormat::binary ? ".bin" : f == IoFormat::ascii ? ".txt" : ".h5";
}

// The metadata a reader of this quantity on this lattice expects.
IoMetadata layout_of(const Decomposition& dec, const IoElement& e) {
  IoMetadata m;
  m.element = e;
  m.ndim = dec.ndim();
  for (int d = 0; d < 3; ++d) {
    m.size[d] = dec.global_size(d);
    m.periodic[d] = d < dec.ndim() ? dec.periodic(d) : false;
    m.process_grid[d] = dec.procs(d);
  }
  return m;
}

// The data file, written on every rank, flushed by every rank (on a
// parallel file system, its own node's dirty pages) and then renamed into
// place by its writer. `err` is this rank's write error; a failure on any
// rank throws on all, and the writer removes its part file.
void commit_data_file(MPI_Comm comm, std::string err, bool writer, const std::string& path, long step) {
  const std::string tmp = part_name(path);
  try {
    throw_if_any(comm, err);
    kill_point("data-written", step);
    err = fsync_path(tmp);
    throw_if_any(comm, err);
    if (writer) err = durable_rename(tmp, path);
    throw_if_any(comm, err);
  } catch (...) {
    if (writer) std::remove(tmp.c_str());
    throw;
  }
}

// Per file, on rank 0: its bytes (from its writer) and its checksum (summed
// over its ranks).
struct FileTotals {
  std::vector<uint64_t> sums;
  std::vector<long> sizes;
};

FileTotals file_totals(MPI_Comm comm, const IoGrid& grid, uint64_t checksum, bool writer,
                       const std::string& path) {
  const int nf = grid.files();
  std::vector<uint64_t> sums(static_cast<size_t>(nf), 0);
  std::vector<long> sizes(static_cast<size_t>(nf), 0);
  FileTotals all{std::vector<uint64_t>(static_cast<size_t>(nf), 0),
                 std::vector<long>(static_cast<size_t>(nf), 0)};
  sums[static_cast<size_t>(grid.file_index())] = checksum;
  if (writer) {
    std::error_code ec;
    sizes[static_cast<size_t>(grid.file_index())] = static_cast<long>(fs::file_size(path, ec));
  }
  mpi_check(MPI_Reduce(sums.data(), all.sums.data(), nf, MPI_UINT64_T, MPI_SUM, 0, comm), "MPI_Reduce");
  mpi_check(MPI_Reduce(sizes.data(), all.sizes.data(), nf, MPI_LONG, MPI_SUM, 0, comm), "MPI_Reduce");
  return all;
}

// The metadata of a completed write of `stem` at `step` (rank 0), its
// extra and hints aside: the quantity, the lattice and every file's block,
// bytes and checksum.
IoMetadata completed_metadata(const Decomposition& dec, const IoElement& element, const IoGrid& grid,
                              const IoOptions& options, const std::string& stem, long step,
                              const FileTotals& totals) {
  IoMetadata m = layout_of(dec, element);
  m.name = element.name.empty() ? fs::path(stem).filename().string() : element.name;
  m.step = step;
  m.format = options.format;
  m.endianness = native_endianness();
  m.io_grid = grid.grid();
  if (m.format == IoFormat::hdf5) m.dataset = "/data";
  const int nf = grid.files();
  for (int f = 0; f < nf; ++f) {
    const Box b = grid.file_box(f);
    FileEntry e;
    e.path = data_file_name(stem, f, nf, options.format);
    for (int d = 0; d < 3; ++d) e.extent[d] = b.extent(d), e.offset[d] = b.lo[d];
    e.bytes = totals.sizes[static_cast<size_t>(f)];
    e.checksum = totals.sums[static_cast<size_t>(f)];
    m.files.push_back(e);
  }
  return m;
}

}  // namespace

std::string data_file_name(const std::string& stem, int f, int n, IoFormat format) {
  std::string name = fs::path(stem).filename().string();
  if (n > 1) name.append(".").append(std::to_string(f));
  return name + extension(format);
}

FieldIo::FieldIo(const Decomposition& dec, IoElement element, IoOptions options)
    : dec_(dec),
      options_(std::move(options)),
      grid_(dec, options_.grid),
      agg_(dec, std::move(element)),
      impl_(make_impl(options_)) {
  if (agg_.element().ncomp < 1) throw InputError("an output needs at least one component per site");
  if (options_.mpi_count_limit < 2 || options_.mpi_count_limit > mpi_int_count_max)
    throw InputError("output: mpi_count_limit " + std::to_string(options_.mpi_count_limit) +
                     " is outside 2.." + std::to_string(mpi_int_count_max));
}

FieldIo::~FieldIo() = default;

Aggregator& FieldIo::aggregator() {
  if (pending_) throw Error("the aggregator of a pending write was asked for; call write_end first");
  return agg_;
}

void FieldIo::write_begin(const std::string& stem, long step, const FieldView& field,
                          const nlohmann::json& extra) {
  aggregator().pack(field);
  write_begin(stem, step, extra);
}

void FieldIo::write_begin(const std::string& stem, long step, const nlohmann::json& extra) {
  if (pending_) throw Error("write_begin called while a write is pending; call write_end first");
  t_begin_ = MPI_Wtime();
  std::string err;
  const fs::path dir = fs::path(stem).parent_path();
  if (dec_.rank() == 0 && !dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) err = "cannot create directory " + dir.string() + ": " + ec.message();
  }
  throw_if_any(dec_.comm(), err);
  stem_ = stem;
  step_ = step;
  extra_ = extra;
  path_ = (dir / data_file_name(stem, grid_.file_index(), grid_.files(), options_.format)).string();
  pending_ = true;
  begin_error_ = impl_->write_begin(part_name(path_), dec_, grid_, agg_);
  // After the start: the checksum pass runs while the write is in flight.
  checksum_ = block_checksum(agg_.data(), subdomain_box(dec_), layout_of(dec_, agg_.element()));
  begin_s_ = MPI_Wtime() - t_begin_;
}

IoEvent FieldIo::write_end() {
  if (!pending_) throw Error("write_end called with no write pending");
  pending_ = false;
  const double t0 = MPI_Wtime();
  std::string err = impl_->write_end();
  if (err.empty()) err = begin_error_;
  const bool writer = grid_.comm_rank() == 0;  // renames its block's file
  commit_data_file(dec_.comm(), err, writer, path_, step_);
  kill_point("data-renamed", step_);

  MPI_Comm comm = dec_.comm();
  const FileTotals totals = file_totals(comm, grid_, checksum_, writer, path_);
  const std::string meta_path = stem_ + ".json";
  err.clear();
  IoEvent ev;
  ev.metadata_path = meta_path;
  ev.hints_applied = impl_->hints_applied();  // (each rank: its own file's)
  ev.files = grid_.files();
  if (dec_.rank() == 0) {
    IoMetadata m = completed_metadata(dec_, agg_.element(), grid_, options_, stem_, step_, totals);
    for (const FileEntry& e : m.files) ev.bytes += e.bytes;
    m.extra = extra_;
    m.hints = io_hints_text(options_.hints);
    m.hints_applied = impl_->hints_applied();
    try {
      write_durable_text(meta_path, m.to_json().dump(1) + "\n");
    } catch (const InputError& e) {
      err = e.what();
    }
  }
  throw_if_any(comm, err);
  mpi_check(MPI_Bcast(&ev.bytes, 1, MPI_LONG, 0, comm), "MPI_Bcast");
  ev.begin_s = max_over(comm, begin_s_);
  ev.end_s = max_over(comm, MPI_Wtime() - t0);
  ev.elapsed_s = max_over(comm, MPI_Wtime() - t_begin_);
  return ev;
}

IoEvent FieldIo::write(const std::string& stem, long step, const nlohmann::json& extra) {
  write_begin(stem, step, extra);
  return write_end();
}

IoMetadata FieldIo::read(const std::string& metadata_path) {
  if (pending_) throw Error("read called while a write is pending; call write_end first");
  MPI_Comm comm = dec_.comm();
  IoMetadata m;
  std::string err;
  try {
    m = read_metadata(metadata_path);
  } catch (const InputError& e) {
    err = e.what();
  }
  throw_if_any(comm, err);
  const IoMetadata want = layout_of(dec_, agg_.element());
  auto mismatch = [&](const std::string& what, const std::string& have, const std::string& expect) {
    throw InputError(metadata_path + ": " + what + " mismatch: the file has " + have + ", this run needs " +
                     expect);
  };
  if (m.element.type != want.element.type)
    mismatch("element type", to_string(m.element.type), to_string(want.element.type));
  if (m.element.ncomp != want.element.ncomp)
    mismatch("components per site", std::to_string(m.element.ncomp), std::to_string(want.element.ncomp));
  if (m.size != want.size) mismatch("lattice size", extents_text(m.size, 3), extents_text(want.size, 3));
  if (m.endianness != native_endianness())
    mismatch("endianness", m.endianness, native_endianness() + " (byte swapping is not supported)");
  IoOptions read_options = options_;
  read_options.format = m.format;  // the file's, whatever this FieldIo writes
  read_options.hints.clear();      // (hints are for writing)
  const std::unique_ptr<IoImpl> impl = make_impl(read_options);
  const std::string dir = metadata_dir(metadata_path);
  std::vector<uint64_t> sums(m.files.size(), 0), all(m.files.size(), 0);
  for (size_t f = 0; f < m.files.size() && err.empty(); ++f)
    err = impl->read((fs::path(dir) / m.files[f].path).string(), m.files[f], m, dec_, agg_, &sums[f]);
  throw_if_any(comm, err);
  mpi_check(
      MPI_Allreduce(sums.data(), all.data(), static_cast<int>(sums.size()), MPI_UINT64_T, MPI_SUM, comm),
      "MPI_Allreduce");
  for (size_t f = 0; f < m.files.size(); ++f)
    if (all[f] != m.files[f].checksum)
      throw InputError(m.files[f].path + " is corrupted: its checksum is " + checksum_text(all[f]) +
                       ", the metadata " + metadata_path + " says " + checksum_text(m.files[f].checksum));
  return m;
}

IoMetadata FieldIo::read(const std::string& metadata_path, const FieldView& field) {
  IoMetadata m = read(metadata_path);
  agg_.unpack(field);
  return m;
}

}  // namespace haloex
