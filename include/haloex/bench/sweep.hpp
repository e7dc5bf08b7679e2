#pragma once
// The skeleton that `bench halo` and `bench stencil` share: how often each
// candidate runs (-i, -r, -x), which candidates take part, and the
// interleaved sweep that times them.
#include <ostream>
#include <string>
#include <vector>

#include "haloex/core/error.hpp"

namespace haloex {

/// How often a benchmark runs each candidate: the options -i, -r and -x.
struct Repetition {
  long iterations = 1;  ///< calls (or application steps) per sample
  int repeats = 1;      ///< samples per candidate
  int warmup = 0;       ///< untimed runs per candidate before the first sample
};

/// Throws InputError naming the option (--iterations, --repeats, --warmup)
/// that is out of range.
void check_repetition(const Repetition& r);

/// The candidates asked for by name, or, when none are, `always` followed by
/// every registered strategy.
std::vector<std::string> candidate_names(const std::vector<std::string>& asked,
                                         const std::vector<std::string>& always = {});

/// One candidate per name, made by `make(name)`. A strategy that cannot run
/// here throws InputError: an error when it was asked for by name, otherwise
/// it is left out with a line on `log` (when `say`).
template <class C, class Make>
std::vector<C> build_candidates(const std::vector<std::string>& names, bool asked, Make&& make,
                                std::ostream& log, bool say) {
  std::vector<C> out;
  for (const std::string& n : names) {
    try {
      out.push_back(make(n));
    } catch (const InputError& e) {
      if (asked) throw;
      if (say) log << "skipping " << n << ": " << e.what() << "\n";
    }
  }
  return out;
}

/// The interleaved sweep: every candidate's warm-up (`run(c, false)`, `warmup`
/// times), then `repeats` rounds, each `before_round(r)` (progress, probes
/// measured once per round) and then every candidate once (`run(c, true)`) in
/// the same order. Interleaving spreads drifts in machine load over all
/// candidates instead of biasing the one that happened to run during them.
template <class C, class Round, class Run>
void interleave(const Repetition& rep, std::vector<C>& cands, Round&& before_round, Run&& run) {
  for (C& c : cands)
    for (int w = 0; w < rep.warmup; ++w) run(c, false);
  for (int r = 0; r < rep.repeats; ++r) {
    before_round(r);
    for (C& c : cands) run(c, true);
  }
}

/// "[bench <what>] <case>: repeat r/R" on `log`, flushed, when `say`.
void progress_line(std::ostream& log, bool say, const std::string& what, const std::string& case_text,
                   int round, int repeats);

}  // namespace haloex
