// The inputs that fuzzing found, and a few nasty ones (deep nesting, huge
// numbers, NUL bytes, invalid UTF-8), fed through the fuzz targets' entry
// points (fuzz/, make fuzz, docs/testing.md "Fuzzing"): each input in
// tests/fuzz_regressions/<target>/ must be read or refused with an
// InputError; another exception, a crash or a sanitizer report is a bug.
#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "haloex/core/error.hpp"
#include "haloex/io/metadata.hpp"
#include "haloex/io/npy.hpp"
#include "haloex/lb/config.hpp"
#include "split_input.hpp"

namespace haloex::test {
namespace {

namespace fs = std::filesystem;

// The saved inputs of one fuzz target, in name order.
std::vector<fs::path> inputs(const std::string& target) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(HALOEX_FUZZ_REGRESSIONS) / target))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Run `read` on every input of `target`: success and InputError pass.
template <class F>
void read_each(const std::string& target, F read) {
  const std::vector<fs::path> files = inputs(target);
  EXPECT_FALSE(files.empty()) << "no inputs in " << HALOEX_FUZZ_REGRESSIONS << "/" << target;
  for (const fs::path& p : files) {
    try {
      read(p);
    } catch (const InputError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << p << ": " << typeid(e).name() << ": " << e.what();
    }
  }
}

TEST(FuzzRegressions, LbConfig) {
  read_each("lb_config", [](const fs::path& p) {
    const haloex::fuzz::CaseInput in = haloex::fuzz::split_case_input(bytes(p));  // as the fuzzer reads it
    const lb::LbConfig c = lb::parse_lb_config(in.text, p.string(), in.overrides);
    lb::validate(c);
    (void)lb::config_json(c);
  });
}

TEST(FuzzRegressions, Metadata) {
  read_each("metadata", [](const fs::path& p) {
    const std::string text = bytes(p);
    try {
      (void)parse_checksum(text, p.string());
    } catch (const InputError&) {}
    const IoMetadata m = parse_metadata(text, p.string());
    // What the reader accepts, the writer writes again.
    EXPECT_EQ(IoMetadata::from_json(m.to_json(), p.string()).to_json(), m.to_json()) << p;
    (void)read_metadata(p.string());  // the same through the file
  });
}

TEST(FuzzRegressions, Npy) {
  read_each("npy", [](const fs::path& p) {
    const std::string file = bytes(p);
    try {
      const NpyInfo info = parse_npy_header(file, file.size(), p.string());
      EXPECT_LE(info.data_offset, file.size()) << p;
    } catch (const InputError&) {}
    (void)read_npy_info(p.string());  // the same through the file
  });
}

}  // namespace
}  // namespace haloex::test
