#pragma once
// How a fuzz input for the LB case-file reader is read, shared by the fuzzer
// (fuzz_lb_config.cpp) and the regression test that replays its findings:
// the TOML text, then "--set" overrides, each after a 0xFF byte (a byte that
// valid UTF-8 TOML never holds).
#include <string>
#include <vector>

namespace haloex::fuzz {

struct CaseInput {
  std::string text;                    ///< the TOML case file
  std::vector<std::string> overrides;  ///< the "--set key=value" items
};

inline CaseInput split_case_input(const std::string& input) {
  CaseInput out;
  size_t start = 0;
  for (size_t sep; (sep = input.find('\xff', start)) != std::string::npos; start = sep + 1)
    out.overrides.push_back(input.substr(start, sep - start));
  out.overrides.push_back(input.substr(start));
  out.text = out.overrides.front();
  out.overrides.erase(out.overrides.begin());
  return out;
}

}  // namespace haloex::fuzz
