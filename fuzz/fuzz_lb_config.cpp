// libFuzzer target: the LB case file. The input is TOML text, then any number
// of "--set" overrides, each after a 0xFF byte (never valid in UTF-8, so the
// TOML parser loses nothing it could accept). An InputError is the expected
// answer to bad input; anything else (another exception, a crash, a sanitizer
// report, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "haloex/core/error.hpp"
#include "haloex/lb/config.hpp"
#include "split_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const haloex::fuzz::CaseInput in =
      haloex::fuzz::split_case_input(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const haloex::lb::LbConfig c = haloex::lb::parse_lb_config(in.text, "fuzz/case.toml", in.overrides);
    haloex::lb::validate(c);
    (void)haloex::lb::config_json(c);
  } catch (const haloex::InputError&) {}
  return 0;
}
