#pragma once
// XDMF: the small XML file that tells ParaView (and VisIt) how HDF5 datasets
// lie on the lattice, so that an output opens with no conversion.
#include <string>
#include <vector>

#include "haloex/io/metadata.hpp"

namespace haloex {

/// The XDMF document for HDF5 or binary outputs of one step (one attribute
/// per quantity: 1 component a scalar, 3 a vector, otherwise one scalar per
/// component), on a 3-D mesh of unit spacing with one cell per site
/// (centred on the site's coordinates; a 2-D lattice one cell thick),
/// lattice x on the viewer's X (files store x fastest, and XDMF lists
/// dimensions slowest first); several files per quantity become a spatial
/// collection of blocks. All quantities must share the lattice and the I/O
/// grid. Data paths are the metadata's (relative, so the XDMF file must sit
/// beside them). ASCII outputs are refused (InputError): XDMF has no text
/// format for data files.
std::string xdmf_text(const std::vector<IoMetadata>& quantities);

}  // namespace haloex
