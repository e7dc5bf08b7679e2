#include "haloex/halo/strategy.hpp"

namespace haloex {

void Strategy::begin(std::span<const FieldView> fields) {
  if (active_) throw Error(std::string(name()) + ": begin() called again before end()");
  plan_.check(fields);
  fields_.assign(fields.begin(), fields.end());
  do_begin(fields_);
  active_ = true;
}

void Strategy::end() {
  if (!active_) throw Error(std::string(name()) + ": end() called without begin()");
  do_end(fields_);
  active_ = false;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const StrategyInfo& s : strategies()) out.emplace_back(s.name);
  return out;
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, const Plan& plan) {
  for (const StrategyInfo& s : strategies())
    if (name == s.name) return s.make(plan);
  std::string valid;
  for (const StrategyInfo& s : strategies()) valid += (valid.empty() ? "" : ", ") + std::string(s.name);
  throw InputError("unknown halo strategy '" + std::string(name) + "'; valid strategies: " + valid);
}

}  // namespace haloex
