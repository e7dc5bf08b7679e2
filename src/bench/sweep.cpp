#include "haloex/bench/sweep.hpp"

#include "haloex/halo/strategy.hpp"

namespace haloex {

void check_repetition(const Repetition& r) {
  if (r.iterations < 1) throw InputError("--iterations must be at least 1");
  if (r.repeats < 1) throw InputError("--repeats must be at least 1");
  if (r.warmup < 0) throw InputError("--warmup must not be negative");
}

std::vector<std::string> candidate_names(const std::vector<std::string>& asked,
                                         const std::vector<std::string>& always) {
  if (!asked.empty()) return asked;
  std::vector<std::string> names = always;
  for (const std::string& n : strategy_names()) names.push_back(n);
  return names;
}

void progress_line(std::ostream& log, bool say, const std::string& what, const std::string& case_text,
                   int round, int repeats) {
  if (say)
    log << "[bench " << what << "] " << case_text << ": repeat " << round + 1 << "/" << repeats << "\n"
        << std::flush;
}

}  // namespace haloex
