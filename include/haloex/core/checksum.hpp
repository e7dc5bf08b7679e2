#pragma once
// A checksum of values placed in a lattice that does not depend on how the
// lattice is split: the sum modulo 2^64 of a hash of each element's global
// index and bits. Ranks holding any pieces add up their parts, so two runs
// on different decompositions agree exactly when every value is the same
// bit for bit (but for a collision, 2^-64 for each pair of runs).
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace haloex {

/// SplitMix64's finaliser: every input bit moves every output bit.
constexpr uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Checksum term of one value (`bytes` of at most 8) at global element index
/// `index` (the site's index in the whole lattice times the values per site,
/// plus the component).
inline uint64_t element_checksum(uint64_t index, const std::byte* value, size_t bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, value, bytes);
  return splitmix64(index ^ splitmix64(bits));
}

}  // namespace haloex
