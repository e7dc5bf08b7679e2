// `auto`: times every strategy that can serve the plan, on scratch copies of
// its fields, and runs the fastest. The choice is the same on every rank:
// all ranks time the same candidates the same number of times and decide on
// the slowest rank's times, which one reduction gives to all.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "haloex/halo/strategy.hpp"

namespace haloex {

std::unique_ptr<Strategy> make_auto_default(const Plan& plan, std::string_view name);

namespace {

// Strategies within this factor of the fastest after the first round are
// timed again, twice as long; the choice goes by the median of all samples.
constexpr double final_margin = 1.15;

double median(std::vector<double> v) {
  const size_t k = v.size();
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k / 2), v.end());
  double m = v[k / 2];
  if (k % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + static_cast<long>(k / 2))) / 2;
  return m;
}

class Auto final : public Strategy {
 public:
  Auto(const Plan& plan, std::string_view name, AutoOptions opt) : Strategy(plan, name) {
    if (opt.samples < 1 || opt.max_calls < 1 || !(opt.sample_s > 0))
      throw InputError("auto: samples, max_calls and sample_s must be positive");
    MPI_Comm comm = plan.decomposition().comm();
    // Scratch fields of the plan's shapes, allocated as Field allocates:
    // timing on the caller's fields could change them (a transposed plan
    // writes into the interior), `shm` runs another way on node memory, and
    // strided copies run slower on 4 KiB pages than on a heap field's huge
    // pages (which once made auto prefer staged-types where shm was faster).
    agree_on_memory(plan, comm);
    std::vector<std::unique_ptr<std::byte[], AlignedFree>> scratch;
    std::vector<std::unique_ptr<NodeMemory>> node_scratch;
    std::vector<FieldView> views;
    for (const FieldSpec& f : plan.fields()) {
      const size_t bytes = static_cast<size_t>(f.shape.elements()) * element_size(f.shape.type);
      if (f.memory == FieldMemory::node) {
        node_scratch.push_back(NodeMemory::per_node(comm, bytes));
        views.push_back(FieldView{f.shape, node_scratch.back()->data(), node_scratch.back().get()});
      } else {
        scratch.push_back(allocate_aligned<std::byte>(bytes));
        views.push_back(FieldView{f.shape, scratch.back().get()});
      }
    }
    std::vector<std::unique_ptr<Strategy>> cands = candidates_for(plan, comm, make_auto_default);
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
          std::clamp(static_cast<int>(std::ceil(opt.sample_s / std::max(once[c], 1e-9))), 1, opt.max_calls);
    // Samples, candidates interleaved so drifts in load touch them alike;
    // each rank's times, then the slowest rank's by one reduction per round.
    const size_t n = cands.size();
    std::vector<std::vector<double>> samples(n);
    auto measure = [&](const std::vector<size_t>& who, int rounds) {
      const size_t k = static_cast<size_t>(rounds);
      std::vector<double> t(who.size() * k);
      for (size_t r = 0; r < k; ++r)
        for (size_t i = 0; i < who.size(); ++i) {
          Strategy& c = *cands[who[i]];
          double s = timed(comm, [&] { exchange(c, calls[who[i]]); }) / calls[who[i]];
          if (opt.timing) s = opt.timing(c.name(), s);
          t[i * k + r] = s;
        }
      mpi_check(MPI_Allreduce(MPI_IN_PLACE, t.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX, comm),
                "MPI_Allreduce");
      for (size_t i = 0; i < who.size(); ++i)
        samples[who[i]].insert(samples[who[i]].end(), t.begin() + static_cast<long>(i * k),
                               t.begin() + static_cast<long>((i + 1) * k));
    };
    // Fastest first; stable, so ties go to the earlier registry entry on
    // every rank alike.
    auto ranked = [&](std::vector<size_t> who) {
      std::stable_sort(who.begin(), who.end(),
                       [&](size_t a, size_t b) { return median(samples[a]) < median(samples[b]); });
      return who;
    };
    std::vector<size_t> all(n);
    for (size_t c = 0; c < n; ++c) all[c] = c;
    measure(all, opt.samples);
    std::vector<size_t> order = ranked(all);
    // A final round between the few that came close: one noisy sample in the
    // first round must not decide between strategies a few percent apart.
    std::vector<size_t> finalists;
    for (size_t c : order)
      if (finalists.size() < 4 && median(samples[c]) <= final_margin * median(samples[order.front()]))
        finalists.push_back(c);
    if (finalists.size() > 1) {
      measure(finalists, 2 * opt.samples);
      order = ranked(all);  // by every sample each has
    }
    for (size_t c : order) measured_.push_back({std::string(cands[c]->name()), median(samples[c])});
    chosen_ = std::move(cands[order.front()]);
    chosen_->reset_times();
  }

  std::string_view resolved_name() const override { return chosen_->name(); }
  std::vector<CandidateTime> candidates() const override { return measured_; }
  const HaloTimes& times() const override { return chosen_->times(); }
  void reset_times() override { chosen_->reset_times(); }

 private:
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
  void do_end(std::span<const FieldView>) override { chosen_->end(); }
  void do_progress() override { chosen_->progress(); }

  std::unique_ptr<Strategy> chosen_;
  std::vector<CandidateTime> measured_;
};

}  // namespace

std::unique_ptr<Strategy> make_auto(const Plan& plan, AutoOptions options) {
  return std::make_unique<Auto>(plan, "auto", std::move(options));
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
    out << "; next " << c[1].strategy << " " << c[1].median_s / c.front().median_s << "x, slowest "
        << c.back().strategy << " " << c.back().median_s / c.front().median_s << "x, of " << c.size()
        << " strategies timed";
  return out.str();
}

}  // namespace haloex
