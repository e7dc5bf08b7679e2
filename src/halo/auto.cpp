// `auto`: times every strategy that can serve the plan, on scratch copies of
// its fields, in paired rounds until the fastest is decided (AutoOptions),
// and runs it. The choice is the same on every rank: all ranks time the
// same candidates in the same rounds and decide on the slowest rank's
// times, which one reduction per round gives to all.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "haloex/halo/strategy.hpp"
#include "haloex/measure/stats.hpp"

namespace haloex {

std::unique_ptr<Strategy> make_auto_default(const Plan& plan, std::string_view name);

namespace {

class Auto final : public Strategy {
 public:
  Auto(const Plan& plan, std::string_view name, const AutoOptions& opt) : Strategy(plan, name), opt_(opt) {
    if (opt.samples < 1 || opt.max_calls < 1 || opt.max_rounds < 1 || !(opt.sample_s > 0) ||
        !(opt.budget_s > 0) || opt.recheck_every < 0 || !(opt.drift > 0) || !(opt.min_window_s >= 0))
      throw InputError(
          "auto: samples, max_calls, max_rounds, sample_s, budget_s and drift must be positive, "
          "recheck_every and min_window_s >= 0");
    agree_on_memory(plan, plan.decomposition().comm());
    min_window_ = opt.min_window_s;
    choose();
    decision_ = last_race_;
    forward_only();
  }

  std::string decision() const override { return decision_; }
  std::string_view resolved_name() const override { return chosen_->name(); }
  std::vector<CandidateTime> candidates() const override { return measured_; }
  const HaloTimes& times() const override {
    if (past_.exchanges == 0) return chosen_->times();
    combined_ = past_;
    combined_ += chosen_->times();
    return combined_;
  }
  void reset_times() override {
    chosen_->reset_times();
    past_ = HaloTimes{};
    window_ = HaloTimes{};
  }

 private:
  // Times every candidate on scratch fields of the plan's shapes and keeps
  // the fastest in chosen_ (collective). Scratch fields are allocated as
  // Field allocates: timing on the caller's fields could change them (a
  // transposed plan writes into the interior), `shm` runs another way on
  // node memory, and strided copies run slower on 4 KiB pages than on a heap
  // field's huge pages (which once made auto prefer staged-types where shm
  // was faster).
  void choose() {
    MPI_Comm comm = plan_.decomposition().comm();
    std::vector<std::unique_ptr<std::byte[], AlignedFree>> scratch;
    std::vector<std::unique_ptr<NodeMemory>> node_scratch;
    std::vector<FieldView> views;
    for (const FieldSpec& f : plan_.fields()) {
      const size_t bytes = static_cast<size_t>(f.shape.elements()) * element_size(f.shape.type);
      if (f.memory == FieldMemory::node) {
        node_scratch.push_back(NodeMemory::per_node(comm, bytes));
        views.push_back(FieldView{f.shape, node_scratch.back()->data(), node_scratch.back().get()});
      } else {
        scratch.push_back(allocate_aligned<std::byte>(bytes));
        views.push_back(FieldView{f.shape, scratch.back().get()});
      }
    }
    std::vector<std::unique_ptr<Strategy>> cands = candidates_for(plan_, comm, make_auto_default);
    if (cands.empty()) throw InputError("auto: no registered strategy can serve this plan");

    auto exchange = [&](Strategy& s, int calls) {
      for (int i = 0; i < calls; ++i) s.exchange(views);
    };
    for (auto& c : cands) exchange(*c, 2);  // warm-up: first-touch, eager/rendezvous set-up
    // Calls per sample: enough for sample_s on the slowest rank.
    std::vector<double> once(cands.size());
    for (size_t c = 0; c < cands.size(); ++c) once[c] = timed(comm, [&] { exchange(*cands[c], 1); });
    mpi_check(
        MPI_Allreduce(MPI_IN_PLACE, once.data(), static_cast<int>(once.size()), MPI_DOUBLE, MPI_MAX, comm),
        "MPI_Allreduce");
    std::vector<int> calls(cands.size());
    for (size_t c = 0; c < cands.size(); ++c)
      calls[c] =
          std::clamp(static_cast<int>(std::ceil(opt_.sample_s / std::max(once[c], 1e-9))), 1, opt_.max_calls);
    views_ = views;
    const std::vector<size_t> order = race(cands, calls, comm);
    views_.clear();  // the scratch goes with this function
    measured_.clear();
    for (size_t c : order) measured_.push_back({std::string(cands[c]->name()), median_of(samples_[c])});
    noise_ = round_to_round(samples_[order.front()]);
    chosen_ = std::move(cands[order.front()]);
    chosen_->reset_times();
    window_ = HaloTimes{};
    windows_.clear();
  }

  // The median |ln(x[i+1] / x[i])| over consecutive rounds: how much one
  // candidate's time moves from round to round (as the report's calibration).
  static double round_to_round(const std::vector<double>& x) {
    std::vector<double> d;
    for (size_t i = 1; i < x.size(); ++i)
      if (x[i] > 0 && x[i - 1] > 0) d.push_back(std::fabs(std::log(x[i] / x[i - 1])));
    return median_of(d);
  }

  // Every recheck_every exchanges (the same count on every rank) a check:
  // once the slowest rank has spent min_window_ seconds in exchanges since
  // the last window closed, that stretch closes as a window, its time per
  // exchange the slowest rank's. The median of the first three windows after
  // a choice is the baseline; from the fifth on, the race runs again when
  // the last two both lie beyond it on the same side by more than the
  // threshold (drifted()). A race that keeps the same strategy doubles
  // min_window_, so a machine that keeps moving is not raced ever more often.
  void recheck() {
    if (opt_.recheck_every == 0 || ++since_check_ < opt_.recheck_every) return;
    since_check_ = 0;
    exchanges_ += opt_.recheck_every;
    const HaloTimes& now = chosen_->times();  // Auto::reset_times() resets window_ with it
    const long calls = now.exchanges - window_.exchanges;
    double per = calls > 0 ? (now.begin_s + now.end_s - window_.begin_s - window_.end_s) / calls : 0;
    if (opt_.timing && calls > 0) per = opt_.timing(chosen_->name(), per);
    // The slowest rank's time per exchange and window, and the fewest calls.
    double worst[3] = {per, per * static_cast<double>(calls), -static_cast<double>(calls)};
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, worst, 3, MPI_DOUBLE, MPI_MAX, plan_.decomposition().comm()),
              "MPI_Allreduce");
    if (worst[2] >= 0 || worst[1] < min_window_) return;  // too short yet: the window stays open
    window_ = now;
    windows_.push_back(std::max(worst[0], 1e-12));
    if (drifted()) race_again();
  }

  // Whether the last two windows lie beyond the baseline (the median of the
  // first three), on the same side, by more than opt_.drift, three times the
  // race's round-to-round variation and three times the windows' own
  // variation before those two.
  bool drifted() const {
    const size_t n = windows_.size();
    if (n < 5) return false;
    const double base = median_of({windows_.begin(), windows_.begin() + 3});
    const double limit = std::max(
        {std::log1p(opt_.drift), 3 * noise_, 3 * round_to_round({windows_.begin(), windows_.end() - 2})});
    const double a = std::log(windows_[n - 2] / base), b = std::log(windows_[n - 1] / base);
    return std::fabs(a) > limit && std::fabs(b) > limit && (a > 0) == (b > 0);
  }

  // Race again (collective) and say so in decision().
  void race_again() {
    const std::string before(chosen_->name());
    const double factor = windows_.back() / median_of({windows_.begin(), windows_.begin() + 3});
    const HaloTimes old = chosen_->times();
    const double t0 = MPI_Wtime();
    choose();
    past_ += old;
    const bool kept = chosen_->name() == before;
    if (kept) min_window_ = std::min(2 * min_window_, 64 * opt_.min_window_s);
    std::ostringstream text;
    text << std::fixed << std::setprecision(2) << "; after " << exchanges_ << " exchanges " << before
         << " took " << factor << "x its first windows: raced again (" << MPI_Wtime() - t0 << " s), "
         << (kept ? "kept " : "now ") << chosen_->name() << " (" << last_race_ << ")";
    decision_ += text.str();
  }

  // Node scratch is allocated collectively: every rank must want it for the
  // same fields, or the ranks would pair up unrelated collectives.
  static void agree_on_memory(const Plan& plan, MPI_Comm comm) {
    std::vector<int> lo, hi;
    for (const FieldSpec& f : plan.fields()) lo.push_back(f.memory == FieldMemory::node ? 1 : 0);
    hi = lo;
    const int n = static_cast<int>(lo.size());
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, lo.data(), n, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, hi.data(), n, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
    std::string error;
    for (size_t i = 0; i < lo.size(); ++i)
      if (lo[i] != hi[i])
        error =
            "auto: field " + std::to_string(i) + " is in node memory on some ranks and on the heap on others";
    throw_if_any(comm, error);
  }

  // Rounds of every candidate still in the race, in a shuffled order; the
  // slowest rank's times by one reduction per round, so every rank holds the
  // same samples and reaches the same decision. Returns the candidates in
  // the order of the choice: the chosen one first, then by median.
  std::vector<size_t> race(std::vector<std::unique_ptr<Strategy>>& cands, const std::vector<int>& calls,
                           MPI_Comm comm) {
    const AutoOptions& opt = opt_;
    const size_t n = cands.size();
    samples_.assign(n, {});
    std::vector<size_t> racing(n);
    for (size_t c = 0; c < n; ++c) racing[c] = c;
    const double start = MPI_Wtime();
    std::vector<size_t> tied;
    size_t leader = 0;
    int rounds = 0;
    std::string stop;
    for (; stop.empty(); ++rounds) {
      std::vector<double> t(racing.size());
      for (size_t i : round_order(racing.size(), rounds)) {
        const size_t c = racing[i];
        double s = timed(comm,
                         [&] {
                           for (int j = 0; j < calls[c]; ++j) cands[c]->exchange(views_);
                         }) /
                   calls[c];
        if (opt.timing) s = opt.timing(cands[c]->name(), s);
        t[i] = s;
      }
      double elapsed = MPI_Wtime() - start;
      t.push_back(elapsed);  // the ranks agree on the budget too
      mpi_check(MPI_Allreduce(MPI_IN_PLACE, t.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX, comm),
                "MPI_Allreduce");
      elapsed = t.back();
      for (size_t i = 0; i < racing.size(); ++i) samples_[racing[i]].push_back(t[i]);
      if (rounds + 1 < opt.samples) continue;
      leader = *std::min_element(racing.begin(), racing.end(), [&](size_t a, size_t b) {
        return median_of(samples_[a]) < median_of(samples_[b]);
      });
      // Those decidedly slower leave the race; the rest are tied or open.
      std::vector<size_t> still{leader}, open;
      tied.clear();
      for (size_t c : racing) {
        if (c == leader) continue;
        const Verdict v = compare_paired(samples_[c], samples_[leader]).verdict;
        if (v == Verdict::slower) continue;
        still.push_back(c);
        (v == Verdict::tied ? tied : open).push_back(c);
      }
      racing = still;
      if (open.empty())
        stop = "decided";
      else if (elapsed >= opt.budget_s)
        stop = "budget";
      else if (rounds + 1 >= opt.max_rounds)
        stop = "rounds";
    }
    return settle(cands, leader, tied, racing, rounds, stop);
  }

  // The choice. Decided: the leader, or with ties the first registered of
  // them (the registry lists the simpler strategies first). Undecided: the
  // safest of those still racing (safest()). Then the text that says how
  // sure it is.
  std::vector<size_t> settle(const std::vector<std::unique_ptr<Strategy>>& cands, size_t leader,
                             const std::vector<size_t>& tied, const std::vector<size_t>& racing, int rounds,
                             const std::string& stop) {
    size_t chosen = leader;
    std::ostringstream text;
    text << std::fixed << std::setprecision(3);
    if (stop == "decided") {
      for (size_t c : tied) chosen = std::min(chosen, c);  // candidates are in registry order
      text << "decided in " << rounds << " rounds";
      if (!tied.empty()) {
        text << "; within 2% of each other:";
        for (size_t c : tied) text << " " << cands[c]->name();
        text << " and " << cands[leader]->name() << ", took the first registered";
      }
    } else {
      text << "undecided after " << rounds << " rounds ("
           << (stop == "budget" ? "time budget" : "round limit") << " spent)";
      chosen = safest(cands, racing, text);
    }
    std::vector<size_t> order(cands.size());
    for (size_t c = 0; c < order.size(); ++c) order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if ((a == chosen) != (b == chosen)) return a == chosen;
      return median_of(samples_[a]) < median_of(samples_[b]);
    });
    if (order.size() > 1) {
      const size_t next = order[1];
      const Comparison c = compare_paired(samples_[next], samples_[chosen]);
      text << "; next " << cands[next]->name() << " " << c.ratio << "x [" << c.low << ", " << c.high
           << "] over " << c.rounds << " paired rounds";
    }
    last_race_ = text.str();
    return order;
  }

  // An undecided race's choice among those still racing (every one ran in
  // every round, so all pairs are paired). None that the rounds put
  // decidedly behind another of them; of the rest, the one whose median
  // paired ratio against each other one is lowest at its worst: the best
  // worst case, measured by the same rounds' ratios, which a machine
  // jumping between a fast and a slow state moves far less than it moves
  // one candidate's median. Simulated races (docs/statistics.md, "auto")
  // found this rule safest: within 1.25x of the best in every trial, where
  // the lowest median and the worst round's ratio took strategies up to 1.4
  // and 1.7 times slower.
  size_t safest(const std::vector<std::unique_ptr<Strategy>>& cands, const std::vector<size_t>& racing,
                std::ostringstream& text) const {
    std::vector<size_t> fair;
    for (size_t a : racing) {
      bool behind = false;
      for (size_t b : racing)
        behind = behind || (a != b && compare_paired(samples_[a], samples_[b]).verdict == Verdict::slower);
      if (!behind) fair.push_back(a);
    }
    if (fair.empty()) fair = racing;      // (a cycle of verdicts: none is safe from all)
    std::sort(fair.begin(), fair.end());  // registry order: on equal worst cases, the simpler
    size_t best = fair.front();
    double best_worst = INFINITY;
    for (size_t a : fair) {
      double worst = 0;
      for (size_t b : fair)
        if (a != b) worst = std::max(worst, compare_paired(samples_[a], samples_[b]).ratio);
      if (worst < best_worst) best = a, best_worst = worst;
    }
    text << ": " << fair.size() << " not told apart (";
    for (size_t i = 0; i < fair.size(); ++i) text << (i ? " " : "") << cands[fair[i]]->name();
    text << "), took " << cands[best]->name() << ", the best worst case: its median paired ratio at most "
         << best_worst << "x any of them";
    if (racing.size() > fair.size())
      text << " (" << racing.size() - fair.size() << " more decidedly behind one of them)";
    return best;
  }

  // Every other registered strategy that every rank could build.
  static std::vector<std::unique_ptr<Strategy>> candidates_for(const Plan& plan, MPI_Comm comm,
                                                               decltype(StrategyInfo::make) self) {
    std::vector<std::unique_ptr<Strategy>> built;
    std::vector<int> ok;
    for (const StrategyInfo& s : strategies()) {
      if (s.make == self) continue;
      try {
        built.push_back(s.make(plan, s.name));
        ok.push_back(1);
      } catch (const InputError&) {
        // Some refusals depend on this rank's place in the grid (a staged
        // plan next to a wall), so the ranks agree below.
        built.push_back(nullptr);
        ok.push_back(0);
      }
    }
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, ok.data(), static_cast<int>(ok.size()), MPI_INT, MPI_MIN, comm),
              "MPI_Allreduce");
    std::vector<std::unique_ptr<Strategy>> out;
    for (size_t i = 0; i < built.size(); ++i)
      if (ok[i]) out.push_back(std::move(built[i]));
    return out;
  }

  template <class Body>
  static double timed(MPI_Comm comm, Body&& body) {
    mpi_check(MPI_Barrier(comm), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    body();
    return MPI_Wtime() - t0;
  }

  void do_begin(std::span<const FieldView> fields) override { chosen_->begin(fields); }
  void do_end(std::span<const FieldView>) override {
    chosen_->end();
    recheck();
  }
  void do_progress() override { chosen_->progress(); }

  AutoOptions opt_;
  std::unique_ptr<Strategy> chosen_;
  std::vector<CandidateTime> measured_;
  std::string last_race_;  // how the last race ended
  double noise_ = 0;       // the chosen one's round-to-round variation in that race
  // Re-deciding: exchanges since the last check and in all, the chosen
  // one's times at the last check, the times of the strategies chosen
  // before, and each window's time per exchange since the choice.
  long since_check_ = 0, exchanges_ = 0;
  HaloTimes window_, past_;
  mutable HaloTimes combined_;
  std::vector<double> windows_;
  double min_window_ = 0;                     // seconds (slowest rank) a window must span
  std::vector<FieldView> views_;              // the scratch fields, while racing
  std::vector<std::vector<double>> samples_;  // per candidate, one per round it ran
  std::string decision_;
};

}  // namespace

std::unique_ptr<Strategy> make_auto(const Plan& plan, const AutoOptions& options) {
  return std::make_unique<Auto>(plan, "auto", options);
}

std::unique_ptr<Strategy> make_auto_default(const Plan& plan, std::string_view name) {
  return std::make_unique<Auto>(plan, name, AutoOptions{});
}

std::string auto_choice_text(const Strategy& s) {
  const std::vector<CandidateTime> c = s.candidates();
  if (c.empty()) return {};
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << "auto chose " << c.front().strategy << ": "
      << c.front().median_s * 1e6 << " us per exchange (median of the slowest rank)";
  if (c.size() > 1)
    out << "; slowest " << c.back().strategy << " " << c.back().median_s / c.front().median_s << "x, of "
        << c.size() << " strategies timed";
  if (!s.decision().empty()) out << "; " << s.decision();
  return out.str();
}

}  // namespace haloex
