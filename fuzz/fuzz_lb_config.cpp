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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t sep; (sep = input.find('\xff', start)) != std::string::npos; start = sep + 1)
    parts.push_back(input.substr(start, sep - start));
  parts.push_back(input.substr(start));
  const std::string text = parts.front();
  parts.erase(parts.begin());
  try {
    const haloex::lb::LbConfig c = haloex::lb::parse_lb_config(text, "fuzz/case.toml", parts);
    haloex::lb::validate(c);
    (void)haloex::lb::config_json(c);
  } catch (const haloex::InputError&) {}
  return 0;
}
