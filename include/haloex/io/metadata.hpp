#pragma once
// What an output file holds, written as JSON beside it: enough for any
// reader (haloex on another number of ranks, numpy, ParaView through XDMF)
// to find every value without knowing how the writing run was decomposed.
#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "haloex/core/checksum.hpp"
#include "haloex/field/field.hpp"

namespace haloex {

/// Element types on file.
enum class IoType { f64, f32, u8 };
/// File formats: raw native binary and fixed-width ASCII through MPI-IO, or
/// parallel HDF5.
enum class IoFormat { binary, ascii, hdf5 };

/// The names metadata uses for a type ("float64", "float32", "uint8") or a format.
/// @{
std::string to_string(IoType t);
std::string to_string(IoFormat f);
/// @}
/// "float64"/"double", "float32"/"float", "uint8"; throws InputError otherwise.
IoType parse_io_type(const std::string& s);
/// "binary", "ascii" or "hdf5"; throws InputError otherwise.
IoFormat parse_io_format(const std::string& s);
/// Bytes of one element in memory and in a binary file.
size_t io_type_size(IoType t);
/// The file element type of a field element type.
IoType io_type_of(ElementType t);

/// Characters one ASCII value takes, its separator included: wide enough for
/// every value of the type, with the digits that read back to the same bits.
size_t ascii_width(IoType t);

/// The order of the sites in a file. haloex writes x fastest, then y, then z
/// (the order XDMF and VTK read, so that viewers put x on their X axis);
/// files written by haloex 0.1.0 before this order are x slowest and are
/// still read.
enum class SiteOrder {
  x_fastest,  ///< x fastest, then y, then z: what haloex writes
  x_slowest   ///< x slowest, z fastest: haloex 0.1.0's files (read only)
};

/// "x_fastest" or "x_slowest", as the metadata's "site_order" names them.
std::string to_string(SiteOrder o);
/// The lattice dimensions from the slowest to the fastest in `o`
/// ({2, 1, 0} for x fastest).
std::array<int, 3> slowest_first(SiteOrder o);
/// The position of site `p` in a block of `extent` sites stored in order `o`.
long site_index(SiteOrder o, const std::array<long, 3>& p, const std::array<long, 3>& extent);

/// What one lattice site holds: ncomp values of one type, with names.
struct IoElement {
  IoType type = IoType::f64;            ///< element type
  int ncomp = 1;                        ///< values per site
  std::vector<std::string> components;  ///< their names; empty: "0", "1", ...
  std::string name;                     ///< the quantity, e.g. "velocity" (empty: the file stem)

  /// Bytes one site takes on file in `format` (hdf5 as binary).
  size_t record_bytes(IoFormat format) const;
};

/// One file of an output: the block of the lattice it holds.
struct FileEntry {
  std::string path;                     ///< the data file, relative to the metadata file
  std::array<long, 3> extent{1, 1, 1};  ///< sites per dimension of its block
  std::array<long, 3> offset{0, 0, 0};  ///< global index of its first site per dimension
  long bytes = 0;                       ///< size of the data file
  uint64_t checksum = 0;                ///< element_checksum summed over its values
};

/// The metadata of one output: one quantity at one step.
struct IoMetadata {
  std::string name;                                ///< the quantity, e.g. "velocity" or "checkpoint"
  long step = 0;                                   ///< the time step
  IoFormat format = IoFormat::binary;              ///< file format
  IoElement element;                               ///< what one site holds
  std::string endianness = "little";               ///< byte order of binary values
  SiteOrder order = SiteOrder::x_fastest;          ///< order of the sites in each file
  int ndim = 3;                                    ///< dimensions of the lattice
  std::array<long, 3> size{1, 1, 1};               ///< global lattice sites per dimension
  std::array<bool, 3> periodic{true, true, true};  ///< periodicity per dimension
  std::array<int, 3> io_grid{1, 1, 1};             ///< files per dimension
  std::array<int, 3> process_grid{1, 1, 1};        ///< of the writing run (for the record only)
  std::string dataset;                             ///< hdf5: the dataset's path inside each file
  std::vector<FileEntry> files;                    ///< the data files, one per I/O-grid block
  std::string hints = "none";                      ///< MPI-IO hints the writer asked for (io_hints_text)
  nlohmann::json hints_applied = nlohmann::json::object();  ///< what the file system reported for them
  std::string version;                                      ///< haloex version that wrote it
  nlohmann::json extra = nlohmann::json::object();  ///< what the writer adds (LB: the model and input)

  /// The metadata document as written beside the data.
  nlohmann::json to_json() const;
  /// Parse and check a metadata document; `source` names it in messages.
  static IoMetadata from_json(const nlohmann::json& j, const std::string& source);
};

/// Read and check a metadata file. Throws InputError naming the file and the
/// missing or wrong entry.
IoMetadata read_metadata(const std::string& path);
/// read_metadata on the file's text: parse and check it (`source` names it in messages).
IoMetadata parse_metadata(const std::string& text, const std::string& source);

/// The directory of a metadata file, to resolve the relative file paths.
std::string metadata_dir(const std::string& metadata_path);

/// The endianness of this machine, as the metadata names it.
std::string native_endianness();

// A file's checksum is the sum of element_checksum (core/checksum.hpp) over
// its values, the site's index taken in file order.

/// "0x" and 16 hex digits, and back (throws InputError naming `where` on bad
/// text).
/// @{
std::string checksum_text(uint64_t c);
uint64_t parse_checksum(const std::string& s, const std::string& where);
/// @}

}  // namespace haloex
