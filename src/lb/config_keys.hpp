#pragma once
// The case file's keys as one table of data (internal header): per section,
// each key's name, documentation, how its value is read into LbConfig, its
// default as TOML text and the check of its value. The parser, validate()
// and `haloex lb --help-keys` (lb_config_reference) all go through it.
#include <toml++/toml.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "haloex/core/error.hpp"
#include "haloex/lb/config.hpp"

namespace haloex::lb::detail {

/// One documented key.
struct Key {
  const char* name;
  const char* doc;
  /// Read the value at `where` (the file and dotted key, for messages).
  std::function<void(const toml::node&, LbConfig&, const std::string& where)> read;
  /// The value as TOML text (empty for keys without a single default, such as obstacles).
  std::function<std::string(const LbConfig&)> show{};
  /// What is wrong with the key's value in a whole case ("" when nothing;
  /// the message names the key). Checks that involve several keys are
  /// validate()'s own.
  std::function<std::string(const LbConfig&)> check{};
};

/// The keys of every section.
const std::map<std::string, std::vector<Key>>& keys();

[[noreturn]] inline void bad(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

/// The result of a parser from another layer, whose message names the value
/// but not the key it came from.
template <class F>
auto keyed(const std::string& where, F parse) {
  try {
    return parse();
  } catch (const InputError& e) {
    bad(where, e.what());
  }
}

}  // namespace haloex::lb::detail
