#include "haloex/halo/strategy.hpp"

#include "stage_ops.hpp"

namespace haloex {

void Strategy::do_progress() {
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, plan_.decomposition().comm(), &flag, MPI_STATUS_IGNORE);
}

void Strategy::begin(std::span<const FieldView> fields) {
  if (active_) throw Error(std::string(name()) + ": begin() called again before end()");
  if (forwarding_) {
    do_begin(fields);
    active_ = true;
    return;
  }
  plan_.check(fields);
  fields_.assign(fields.begin(), fields.end());
  const double t0 = MPI_Wtime();
  do_begin(fields_);
  times_.begin_s += MPI_Wtime() - t0;
  ++times_.exchanges;
  active_ = true;
}

void Strategy::end() {
  if (!active_) throw Error(std::string(name()) + ": end() called without begin()");
  if (forwarding_) {
    do_end({});
    active_ = false;
    return;
  }
  const double t0 = MPI_Wtime();
  do_end(fields_);
  times_.end_s += MPI_Wtime() - t0;
  active_ = false;
}

void Strategy::pack(std::span<const PackJob> jobs, std::span<const FieldView> fields) {
  const double t0 = MPI_Wtime();
  haloex::pack(jobs, fields, plan_.options().pack_threads);
  times_.pack_s += MPI_Wtime() - t0;
}

void Strategy::unpack(std::span<const PackJob> jobs, std::span<const FieldView> fields) {
  const double t0 = MPI_Wtime();
  haloex::unpack(jobs, fields, plan_.options().pack_threads);
  times_.unpack_s += MPI_Wtime() - t0;
}

void Strategy::copy_self(const Stage& stage, std::span<const FieldView> fields) {
  const double t0 = MPI_Wtime();
  detail::copy_self(stage, fields, plan_.options().pack_threads);
  times_.pack_s += MPI_Wtime() - t0;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const StrategyInfo& s : strategies()) out.emplace_back(s.name);
  return out;
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, const Plan& plan) {
  for (const StrategyInfo& s : strategies())
    if (name == s.name) return s.make(plan, s.name);
  std::string valid;
  for (const StrategyInfo& s : strategies()) valid += (valid.empty() ? "" : ", ") + std::string(s.name);
  throw InputError("unknown halo strategy '" + std::string(name) + "'; valid strategies: " + valid);
}

}  // namespace haloex
