#include "haloex/measure/sweep.hpp"

#include <algorithm>
#include <array>
#include <sstream>

#include "haloex/core/mpi.hpp"

namespace haloex {

void check_repetition(const Repetition& r) {
  if (r.iterations < 1) throw InputError("--iterations must be at least 1");
  if (r.repeats < 1) throw InputError("--repeats must be at least 1");
  if (r.warmup < 0) throw InputError("--warmup must not be negative");
  if (!(r.precision >= 0 && r.precision < 1))
    throw InputError("--ci must be a relative half-width between 0 and 100%, e.g. 5%");
  if (!(r.budget_s > 0)) throw InputError("--budget must be a positive number of seconds");
}

RoundsRule::RoundsRule(const Repetition& rep, MPI_Comm comm, size_t n)
    : rep_(rep), comm_(comm), active_(n, 1) {}

bool RoundsRule::another(int done, const std::function<Ranking()>& rank_now) {
  out_.rounds = done;
  if (done == 0) start_ = MPI_Wtime();  // the budget counts rounds, not the warm-up before them
  if (rep_.precision <= 0) return done < rep_.repeats;
  // Rank 0 decides: only it holds the slowest rank's samples.
  // One broadcast: whether to go on (0) or why not, then which candidates run.
  static constexpr std::array<const char*, 4> stops{"", "decided", "budget", "max-repeats"};
  std::vector<unsigned char> msg(active_.size() + 1, 0);
  if (comm_rank(comm_) == 0) {
    std::string stop;
    if (done >= rep_.repeats) {
      out_.ranking = rank_now();
      if (out_.ranking.decided) stop = "decided";
      for (size_t c : out_.ranking.slower) active_[c] = 0;
    }
    // A round takes about as long as the last one did on average.
    const double elapsed = MPI_Wtime() - start_, per_round = done > 0 ? elapsed / done : 0;
    if (stop.empty() && done >= rep_.repeats && elapsed + per_round > rep_.budget_s) stop = "budget";
    if (stop.empty() && done >= rep_.max_repeats) stop = "max-repeats";
    msg[0] = static_cast<unsigned char>(std::find(stops.begin(), stops.end(), stop) - stops.begin());
    std::copy(active_.begin(), active_.end(), msg.begin() + 1);
  }
  mpi_check(MPI_Bcast(msg.data(), static_cast<int>(msg.size()), MPI_UNSIGNED_CHAR, 0, comm_), "MPI_Bcast");
  std::copy(msg.begin() + 1, msg.end(), active_.begin());
  if (msg[0] == 0) return true;
  out_.stop = stops[static_cast<size_t>(msg[0])];
  return false;
}

std::string RoundsRule::round_text(int round) const {
  std::ostringstream s;
  s << round + 1;
  if (rep_.precision <= 0)
    s << "/" << rep_.repeats;
  else
    s << " (at least " << rep_.repeats << ", until decided within ±" << 100 * rep_.precision << "% or "
      << rep_.budget_s << " s)";
  return s.str();
}

std::vector<std::string> candidate_names(const std::vector<std::string>& asked,
                                         const std::vector<std::string>& always,
                                         const std::vector<std::string>& registered) {
  if (!asked.empty()) return asked;
  std::vector<std::string> names = always;
  for (const std::string& n : registered) names.push_back(n);
  return names;
}

void progress_line(std::ostream& log, bool say, const std::string& what, const std::string& case_text,
                   const std::string& round_text) {
  if (say) log << "[bench " << what << "] " << case_text << ": round " << round_text << "\n" << std::flush;
}

}  // namespace haloex
