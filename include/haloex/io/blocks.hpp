#pragma once
// Blocks of the lattice as the files hold them: a rank's subdomain and where
// a file's block overlaps it, the checksum of a block (the one the metadata
// records, so an application can sum what it hands to the io layer the same
// way), and placing a read block into the aggregator.
#include <cstddef>
#include <cstdint>

#include "haloex/grid/box.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/io/aggregator.hpp"
#include "haloex/io/metadata.hpp"

namespace haloex {

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
