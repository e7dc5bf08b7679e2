#pragma once
// The interface every file format implements (inside the library only): write
// a rank's aggregated block into its I/O-grid file, and read any block back.
// Errors come back as text so that the driver can make every rank agree
// before anyone throws.
#include <memory>
#include <string>
#include <vector>

#include "haloex/core/mpi_hints.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/io/aggregator.hpp"
#include "haloex/io/blocks.hpp"
#include "haloex/io/io_grid.hpp"
#include "haloex/io/metadata.hpp"

namespace haloex {

class IoImpl {
 public:
  virtual ~IoImpl() = default;
  /// Start writing this rank's block of `agg` into `path` (the temporary
  /// name of its I/O-grid file). Collective over grid.comm().
  virtual std::string write_begin(const std::string& path, const Decomposition& dec, const IoGrid& grid,
                                  const Aggregator& agg) = 0;
  /// Complete the write, flush it to storage and close the file. Collective
  /// over grid.comm().
  virtual std::string write_end() = 0;
  /// Read the part of file `f` (at `path`) that overlaps this rank's
  /// subdomain into `agg`; adds the checksum of what was read to *checksum.
  /// Not collective.
  virtual std::string read(const std::string& path, const FileEntry& f, const IoMetadata& m,
                           const Decomposition& dec, Aggregator& agg, uint64_t* checksum) = 0;
  /// What the last file written reported for each requested hint.
  virtual nlohmann::json hints_applied() const { return nlohmann::json::object(); }
};

/// MPI-IO, native binary or fixed-width ASCII; reads and writes of more than
/// `count_limit` bytes go as one call with a derived datatype.
std::unique_ptr<IoImpl> make_mpiio_impl(IoFormat format, size_t count_limit, const IoHints& hints);
/// Parallel HDF5 (throws InputError when not built in).
std::unique_ptr<IoImpl> make_hdf5_impl(const IoHints& hints);

}  // namespace haloex
