#pragma once
// `bench halo --check`: every halo value against an expectation that does not
// come from the exchange code. Each (global site, component) holds a value
// made from its global index, each halo element a negative sentinel made
// from its own address; after an exchange an element must hold its periodic
// image's value where the plan sends it, and its sentinel elsewhere.
#include <mpi.h>

#include "haloex/field/field.hpp"
#include "haloex/halo/plan.hpp"

namespace haloex {

/// What the plan promises to fill: which components (empty: all) and which
/// halo regions (faces only, or all).
struct HaloPromise {
  ComponentPredicate travels;      ///< which components reach which halo region (empty: all)
  Regions regions = Regions::all;  ///< faces only, or faces, edges and corners
};

/// Interior elements get their global-index values, halo elements their
/// sentinels. (In single precision the values are exact, and distinct,
/// while ncomp x global sites stays below 2^24.)
template <class T>
void encode_global_index(Field<T>& f, const Decomposition& dec);

/// Elements on this rank that differ, bit for bit, from what the encoding
/// and the promise say (interior included); the first few are written to
/// stderr with their coordinates, labelled.
template <class T>
long count_wrong_halo(const Field<T>& f, const Decomposition& dec, const HaloPromise& promise,
                      const std::string& label);

}  // namespace haloex
