#pragma once
// MPI-IO hints: what a parallel file system is told about an output (how
// many storage targets to stripe a file over, how large a stripe, how many
// aggregators collect the data). They are passed to MPI_File_open (and to
// HDF5's MPI-IO driver) as an MPI_Info, recorded with the results, and read
// back after the open: a library or file system that ignores a hint says so
// by not reporting it.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace haloex {

/// Hints in the order given: (key, value).
using IoHints = std::vector<std::pair<std::string, std::string>>;

/// "key=value,key=value" (or "" / "none": no hints). Keys are lower-case
/// letters, digits and '_' (striping_factor, striping_unit, cb_nodes,
/// romio_cb_write, ...); values are non-empty. Throws InputError naming
/// `what` otherwise.
IoHints parse_io_hints(const std::string& text, const std::string& what);
/// The same text back ("none" for no hints).
std::string io_hints_text(const IoHints& hints);

/// An MPI_Info holding the hints (MPI_INFO_NULL for none), freed with the
/// object.
class InfoHints {
 public:
  /// Create the MPI_Info (collective nowhere).
  explicit InfoHints(const IoHints& hints);
  ~InfoHints();
  InfoHints(const InfoHints&) = delete;
  InfoHints& operator=(const InfoHints&) = delete;
  /// The handle to pass to MPI_File_open.
  MPI_Info get() const { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

/// What the open file reports for each requested key (MPI_File_get_info):
/// {key: value, or null when the library does not report it}.
nlohmann::json applied_hints(MPI_File fh, const IoHints& requested);

}  // namespace haloex
