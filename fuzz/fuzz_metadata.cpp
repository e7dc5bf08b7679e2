// libFuzzer target: the JSON metadata beside an output or a checkpoint
// (parse_metadata, which read_metadata calls on the file's text, and
// parse_checksum). An InputError is the expected answer to bad input;
// anything else (another exception, a crash, a sanitizer report, a hang) is a
// bug. What is accepted must also survive a round trip through to_json.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "haloex/core/error.hpp"
#include "haloex/io/metadata.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)haloex::parse_checksum(text, "fuzz");
  } catch (const haloex::InputError&) {}
  haloex::IoMetadata m;
  try {
    m = haloex::parse_metadata(text, "fuzz/checkpoint-000001.json");
  } catch (const haloex::InputError&) {
    return 0;
  }
  // A document the reader accepted is one the writer can write again.
  const haloex::IoMetadata again = haloex::IoMetadata::from_json(m.to_json(), "fuzz/round-trip");
  if (again.to_json() != m.to_json()) std::abort();
  return 0;
}
