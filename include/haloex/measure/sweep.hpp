#pragma once
// The skeleton the benchmarks share: how often each candidate runs (-i, -r,
// -x, --ci, --budget), which candidates take part, the rule that decides
// after each round whether another is needed (all of them), and the
// interleaved sweep that times the candidates (`bench halo` and `bench
// stencil`; `bench lb` and `bench pingpong` run their own loops).
#include <mpi.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/measure/stats.hpp"

namespace haloex {

/// How often a benchmark runs each candidate: the options -i, -r, -x, --ci
/// and --budget.
struct Repetition {
  long iterations = 1;  ///< calls (or application steps) per sample
  int repeats = 1;      ///< rounds: samples per candidate (with `precision`, the fewest)
  int warmup = 0;       ///< untimed runs per candidate before the first sample
  /// --ci: 0 runs exactly `repeats` rounds. Above 0, rounds go on until the
  /// fastest candidate's median is known to within ±precision (relative) and
  /// every other is decidedly slower or tied with it (paired rounds, see
  /// rank_candidates), or until `budget_s` is spent.
  double precision = 0;
  double budget_s = 60;      ///< --budget: seconds the rounds of one case may take (with --ci)
  int max_repeats = 100000;  ///< a last bound on the rounds
};

/// Throws InputError naming the option (--iterations, --repeats, --warmup,
/// --ci, --budget) that is out of range.
void check_repetition(const Repetition& r);

/// How the rounds of one case ended, for the record.
struct RoundsOutcome {
  int rounds = 0;  ///< rounds run
  /// "fixed" (-r rounds), "decided", "budget" or "max-repeats".
  std::string stop = "fixed";
  Ranking ranking;  ///< the last ranking (rank 0's; with --ci only)
};

/// Decides after each round whether another is needed, and with --ci which
/// of the `n` candidates still run: one decidedly slower than the leader has
/// its answer and leaves the race, so the rounds go to the close ones.
/// Collective over comm: rank 0 ranks its samples (`rank_now`, called on
/// rank 0 only) and keeps the clock of the budget, and one broadcast gives
/// every rank the answer, so all run the same candidates in the same rounds.
class RoundsRule {
 public:
  /// Rounds of `n` candidates as `rep` says; the clock of the budget starts
  /// at the first call of another().
  RoundsRule(const Repetition& rep, MPI_Comm comm, size_t n);
  /// True when round `done` (0-based: `done` rounds are complete) should run.
  bool another(int done, const std::function<Ranking()>& rank_now);
  /// Whether candidate c runs in the next round.
  bool active(size_t c) const { return active_[c] != 0; }
  /// How the rounds ended so far (final once another() returned false).
  const RoundsOutcome& outcome() const { return out_; }
  /// "3/5" with fixed rounds, "3 (at least 5, until decided or 60 s)" with --ci.
  std::string round_text(int round) const;

 private:
  Repetition rep_;
  MPI_Comm comm_;
  double start_ = 0;
  RoundsOutcome out_;
  std::vector<unsigned char> active_;
};

/// The candidates asked for by name, or, when none are, `always` followed by
/// `registered` (the benchmarks pass every registered strategy).
std::vector<std::string> candidate_names(const std::vector<std::string>& asked,
                                         const std::vector<std::string>& always,
                                         const std::vector<std::string>& registered);

/// One candidate per name, made by `make(name)`, the same on every rank of
/// `comm` (collective). A strategy that cannot run here throws InputError,
/// and some refusals hold on some ranks only (a staged plan beside a wall),
/// so the ranks agree on each name: refused on any rank, it is an error on
/// all of them when it was asked for by name, otherwise every rank leaves
/// it out, with the first refusing rank's reason on `log` (when `say`).
/// Without the agreement the ranks would time different candidate lists and
/// their per-round reductions would pair unrelated samples. `make` must
/// refuse before any collective call of its own.
template <class C, class Make>
std::vector<C> build_candidates(MPI_Comm comm, const std::vector<std::string>& names, bool asked, Make&& make,
                                std::ostream& log, bool say) {
  std::vector<C> out;
  for (const std::string& n : names) {
    std::vector<C> made;  // empty where this rank refused
    std::string refused;
    try {
      made.push_back(make(n));
    } catch (const InputError& e) {
      refused = e.what();
    }
    try {
      throw_if_any(comm, refused);
      out.push_back(std::move(made.front()));
    } catch (const InputError& e) {
      if (asked) throw;
      if (say) log << "skipping " << n << ": " << e.what() << "\n";
    }
  }
  return out;
}

/// The interleaved sweep: every candidate's warm-up (`run(c, false)`, `warmup`
/// times), then rounds while `rule` says so, each `before_round(r)`
/// (progress, probes measured once per round) and then every candidate
/// still in the race once (`run(c, true)`). Interleaving spreads drifts in machine load over all
/// candidates instead of biasing the one that happened to run during them,
/// and makes sample r of every candidate a pair; each round runs them in its
/// own shuffled order (round_order), so none always runs right after the
/// same neighbour (whose cache footprint it would inherit).
template <class C, class Round, class Run>
void interleave(const Repetition& rep, std::vector<C>& cands, Round&& before_round, Run&& run,
                RoundsRule& rule, const std::function<Ranking()>& rank_now) {
  for (C& c : cands)
    for (int w = 0; w < rep.warmup; ++w) run(c, false);
  const size_t n = cands.size();
  for (int r = 0; rule.another(r, rank_now); ++r) {
    before_round(r);
    for (size_t c : round_order(n, r))
      if (rule.active(c)) run(cands[c], true);
  }
}

/// "[bench <what>] <case>: round <rule.round_text(r)>" on `log`, flushed,
/// when `say`.
void progress_line(std::ostream& log, bool say, const std::string& what, const std::string& case_text,
                   const std::string& round_text);

}  // namespace haloex
