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

/// This rank's subdomain in global coordinates.
Box subdomain_box(const Decomposition& dec);

/// The intersection of a file's block with this rank's subdomain, in global
/// coordinates (empty when they do not overlap).
Box overlap_with(const FileEntry& f, const Decomposition& dec);

/// The checksum of a block of values at `box` (global coordinates); `values`
/// hold the box's sites in the order m.order, and the element indices are
/// those of the whole lattice (m.size) in that order.
uint64_t block_checksum(const std::byte* values, const Box& box, const IoMetadata& m);

/// Copy a block of values (sites in `order`, `box` in global coordinates,
/// inside this rank's subdomain) into the aggregator.
void place_block(const std::byte* values, const Box& box, SiteOrder order, const Decomposition& dec,
                 Aggregator& agg);

}  // namespace haloex
