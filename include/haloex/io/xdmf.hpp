#pragma once
// XDMF: the small XML file that tells ParaView (and VisIt) how HDF5 datasets
// lie on the lattice, so that an output opens with no conversion.
#include <string>
#include <vector>

#include "haloex/io/metadata.hpp"

namespace haloex {

/// The XDMF document for HDF5 outputs of one step (one attribute per
/// quantity: 1 component a scalar, 3 a vector, otherwise one scalar per
/// component), on a rectilinear mesh of unit spacing with one point per
/// site; several files per quantity become a spatial collection of blocks.
/// All quantities must share the lattice and the I/O grid. Data paths are
/// the metadata's (relative, so the XDMF file must sit beside them).
std::string xdmf_text(const std::vector<IoMetadata>& quantities);

}  // namespace haloex
