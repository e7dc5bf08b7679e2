#pragma once
// The output driver: writes one quantity of a decomposed lattice (through
// its aggregator) to one file per I/O-grid block in global site order, with
// a JSON metadata file beside them, synchronously or split into
// write_begin/write_end; and reads such an output back on any decomposition.
#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "haloex/core/large_count.hpp"
#include "haloex/core/mpi_hints.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/io/aggregator.hpp"
#include "haloex/io/io_grid.hpp"
#include "haloex/io/metadata.hpp"

namespace haloex {

/// How to write.
struct IoOptions {
  IoFormat format = IoFormat::binary;  ///< file format
  std::array<int, 3> grid{1, 1, 1};    ///< the I/O grid: files per dimension
  /// The largest count an MPI-IO call is given: a rank's block of more bytes
  /// is still one read or write, described by a derived datatype (or an
  /// MPI-4 large-count call). INT_MAX unless a test wants that path on small
  /// data; 2 .. INT_MAX.
  size_t mpi_count_limit = mpi_int_count_max;
  /// MPI-IO hints for the files written (striping_factor, cb_nodes, ...).
  IoHints hints{};
};

/// What one output event cost: bytes over all files and the slowest rank's
/// times (begin and end are the parts the caller waited for).
struct IoEvent {
  std::string metadata_path;  ///< the JSON metadata file written
  long bytes = 0;             ///< data bytes over all files
  int files = 0;              ///< data files written
  double begin_s = 0;         ///< seconds in write_begin (aggregation and start)
  double end_s = 0;           ///< seconds in write_end (completion, sync, rename, metadata)
  double elapsed_s = 0;       ///< seconds from write_begin's start to write_end's return
  /// What the first file's open reported for each requested hint (null: not
  /// reported, i.e. ignored); empty without hints.
  nlohmann::json hints_applied = nlohmann::json::object();
  /// Bytes per second of the whole event.
  double bandwidth_Bps() const { return elapsed_s > 0 ? static_cast<double>(bytes) / elapsed_s : 0; }
};

/// Whether this build has the parallel HDF5 backend.
bool hdf5_available();

/// The file implementation of one format (MPI-IO binary or ASCII, or HDF5).
class IoImpl;

/// Writes one quantity of a decomposed lattice, one file per I/O-grid block with
/// a JSON metadata file beside them, and reads such an output back.
class FieldIo {
 public:
  /// Collective over dec.comm(). Throws InputError when the I/O grid does
  /// not divide the process grid or the format is not built in.
  FieldIo(const Decomposition& dec, IoElement element, IoOptions options = {});
  ~FieldIo();
  FieldIo(const FieldIo&) = delete;
  FieldIo& operator=(const FieldIo&) = delete;

  /// What one site holds.
  const IoElement& element() const { return agg_.element(); }
  /// How it writes.
  const IoOptions& options() const { return options_; }
  /// The I/O grid: which file this rank writes, with which ranks.
  const IoGrid& grid() const { return grid_; }
  /// The aggregation buffer to fill before write_begin (not while a write is
  /// pending: throws Error then).
  Aggregator& aggregator();

  /// Start writing the aggregator's contents as `stem`.json plus data files
  /// (`stem`.bin, or `stem`.f.bin for file f of several; .txt for ASCII, .h5).
  /// `extra` goes into the metadata. Collective. May return before the data
  /// are on disk; the aggregator must not change until write_end.
  void write_begin(const std::string& stem, long step,
                   const nlohmann::json& extra = nlohmann::json::object());
  /// Pack `field` into the aggregator and start writing it.
  void write_begin(const std::string& stem, long step, const FieldView& field,
                   const nlohmann::json& extra = nlohmann::json::object());
  /// Finish the pending write: complete, sync and rename the data files, then
  /// write the metadata the same way. Collective. Throws InputError (on every
  /// rank) when any rank failed; no file of this output is then left valid.
  IoEvent write_end();
  /// Whether a write_begin awaits its write_end.
  bool pending() const { return pending_; }
  /// write_begin + write_end.
  IoEvent write(const std::string& stem, long step, const nlohmann::json& extra = nlohmann::json::object());

  /// Read an output written on any decomposition and I/O grid into the
  /// aggregator. Checks the metadata against this quantity (type, ncomp,
  /// lattice size, endianness), every file's size, and the checksums.
  /// Collective; throws InputError on every rank naming the problem.
  IoMetadata read(const std::string& metadata_path);
  /// read() and unpack into `field`.
  IoMetadata read(const std::string& metadata_path, const FieldView& field);

 private:
  const Decomposition& dec_;
  IoOptions options_;
  IoGrid grid_;
  Aggregator agg_;
  std::unique_ptr<IoImpl> impl_;
  bool pending_ = false;
  // The pending write.
  std::string stem_, path_;  // path_: this rank's data file
  long step_ = 0;
  nlohmann::json extra_;
  uint64_t checksum_ = 0;
  std::string begin_error_;
  double t_begin_ = 0, begin_s_ = 0;
};

/// The data file name of file f of n for a stem and format ("velocity-000010.bin").
std::string data_file_name(const std::string& stem, int f, int n, IoFormat format);

}  // namespace haloex
