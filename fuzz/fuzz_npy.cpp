// libFuzzer target: the .npy header reader (parse_npy_header, which
// read_npy_info calls on a file's first bytes). The input is the file: its
// bytes and its size. An InputError is the expected answer to bad input;
// anything else (another exception, a crash, a sanitizer report, a hang) is a
// bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "haloex/core/error.hpp"
#include "haloex/io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file(reinterpret_cast<const char*>(data), size);
  try {
    const haloex::NpyInfo info = haloex::parse_npy_header(file, file.size(), "fuzz.npy");
    if (info.data_offset > file.size()) __builtin_trap();  // the header lies inside the file
  } catch (const haloex::InputError&) {}
  return 0;
}
