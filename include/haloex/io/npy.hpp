#pragma once
// NumPy .npy files (format 1.0): the interior of a decomposed field written
// in global order by every rank at once with MPI-IO, readable by numpy.load
// with no other library.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "haloex/core/large_count.hpp"
#include "haloex/field/field.hpp"
#include "haloex/grid/decomposition.hpp"

namespace haloex {

/// The complete .npy header (magic, version, length, dictionary) for a
/// little-endian C-order array; padded so the data starts on a 64-byte boundary.
std::string npy_header(ElementType type, const std::vector<long>& shape);

/// What a .npy header says.
struct NpyInfo {
  ElementType type = ElementType::f64;  ///< element type
  std::vector<long> shape;              ///< the array shape, slowest dimension first
  size_t data_offset = 0;               ///< bytes before the first element
};

/// Read and check the header of a .npy file written by write_npy (or numpy,
/// for '<f8'/'<f4' C-order arrays). Throws InputError naming the file and
/// the problem: missing, not .npy, unsupported type, or shorter than its
/// header says.
NpyInfo read_npy_info(const std::string& path);
/// read_npy_info on the first bytes of a file (its header at least), its size and path (for messages).
NpyInfo parse_npy_header(const std::string& head, uintmax_t file_size, const std::string& path);

/// Write the interior of `field` as one array of shape (global sizes of the
/// decomposition's dimensions..., ncomp), in global order with the
/// components last. Collective over the decomposition's communicator. The
/// data go to a temporary file renamed into place once complete, so a failed
/// run never leaves a half-written file under `path`. Throws InputError when
/// the file cannot be created or written (on every rank). A rank's block of
/// more than `mpi_count_limit` elements is still one write, of a derived
/// datatype (the parameter lets tests force that path on small data).
void write_npy(const std::string& path, const Decomposition& dec, const FieldView& field,
               size_t mpi_count_limit = mpi_int_count_max);

}  // namespace haloex
