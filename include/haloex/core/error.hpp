#pragma once
// Error types shared by every layer.
#include <stdexcept>
#include <string>

/// The haloex library: decomposition, fields, halo exchange strategies, the
/// lattice Boltzmann and stencil applications, parallel I/O and the benchmarks.
namespace haloex {

/// An error that one rank found on its own (a failed MPI call, a bad file).
/// Other ranks may be blocked in a collective, so the program aborts.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An error in the input that every rank detects identically and before any
/// collective could diverge (a bad option, an impossible process grid), so the
/// program can print it once and finalise cleanly.
class InputError : public Error {
 public:
  using Error::Error;
};

}  // namespace haloex
