#include "haloex/bench/halo_bench.hpp"

#include <omp.h>

#include <iomanip>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "haloex/bench/busy_wait.hpp"
#include "haloex/bench/halo_check.hpp"
#include "haloex/bench/link_probe.hpp"
#include "haloex/halo/memory_bound.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/lb/velocity_set.hpp"
#include "haloex/measure/record.hpp"
#include "haloex/measure/sweep.hpp"

namespace haloex {

double cubic_halo_bytes(long L, int ncomp, size_t element_bytes) {
  return box_halo_sites(L, L, L) * ncomp * static_cast<double>(element_bytes);
}

double box_halo_sites(long a, long b, long c) {
  const double x = static_cast<double>(a), y = static_cast<double>(b), z = static_cast<double>(c);
  return 2 * (x * y + y * z + z * x) + 4 * (x + y + z) + 8;
}

std::array<long, max_dims> subdomain_extents(const std::string& shape, long L, int ndim) {
  if (L < 1) throw InputError("subdomain size " + std::to_string(L) + " must be at least 1");
  std::array<long, max_dims> e{1, 1, 1};
  if (shape == "cubic") {
    for (int d = 0; d < ndim; ++d) e[d] = L;
  } else if (shape == "noncubic") {
    if (L % 2 != 0)
      throw InputError("a non-cubic L x 1.5L x 2L subdomain needs an even L (1.5L must be whole), got L=" +
                       std::to_string(L));
    const std::array<long, max_dims> n{L, 3 * L / 2, 2 * L};
    for (int d = 0; d < ndim; ++d) e[d] = n[d];
  } else {
    throw InputError("unknown subdomain shape '" + shape + "' (valid: cubic, noncubic)");
  }
  return e;
}

ComponentPredicate travels_for_plan(const std::string& plan, const std::string& velocity_set, int ncomp,
                                    int ndim) {
  if (plan == "full" || plan == "faces") return {};
  if (plan != "reduced") throw InputError("unknown halo plan '" + plan + "' (valid: full, faces, reduced)");
  const lb::VelocitySet vs = lb::velocity_set(velocity_set);
  if (vs.q != ncomp || vs.ndim != ndim)
    throw InputError("the reduced plan of " + vs.name + " needs --ncomp " + std::to_string(vs.q) +
                     " and --dims " + std::to_string(vs.ndim) + ", got " + std::to_string(ncomp) + " and " +
                     std::to_string(ndim));
  return crossing_components(vs.c);
}

PlanOptions plan_options_for(const std::string& plan, PackThreads pack_threads) {
  PlanOptions o;
  o.regions = plan == "faces" ? Regions::faces : Regions::all;
  o.pack_threads = pack_threads;
  return o;
}

namespace {

// Each rank's node: the lowest rank of comm on its host (the same on every
// rank).
std::vector<int> node_of_ranks(MPI_Comm comm) {
  Comm node = node_comm(comm);
  int leader = comm_rank(comm);
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node.get()), "MPI_Allreduce");
  std::vector<int> out(static_cast<size_t>(comm_size(comm)));
  mpi_check(MPI_Allgather(&leader, 1, MPI_INT, out.data(), 1, MPI_INT, comm), "MPI_Allgather");
  return out;
}

// What one stage sends to other ranks (each message's bytes too: a model
// charges a face and an edge different latencies, and a message that leaves
// the node another link's), the same per peer rank (what strategies that
// send one message per peer send) and what it copies locally.
nlohmann::json stage_messages(const Stage& st, const std::vector<int>& node_of, int me) {
  const auto off_node = [&](int peer) {
    return node_of[static_cast<size_t>(peer)] != node_of[static_cast<size_t>(me)];
  };
  long n = 0, n_off = 0;
  size_t remote = 0, remote_off = 0;
  std::vector<size_t> sizes, sizes_off;
  std::map<int, size_t> per_peer;
  for (const Link& l : st.links) {
    if (l.self || l.send.empty()) continue;
    ++n, remote += l.send.bytes, sizes.push_back(l.send.bytes);
    per_peer[l.peer] += l.send.bytes;
    if (off_node(l.peer)) ++n_off, remote_off += l.send.bytes, sizes_off.push_back(l.send.bytes);
  }
  std::vector<size_t> peer_sizes, peer_sizes_off;
  for (const auto& [peer, bytes] : per_peer) {
    peer_sizes.push_back(bytes);
    if (off_node(peer)) peer_sizes_off.push_back(bytes);
  }
  return {{"messages", n},
          {"remote_bytes", remote},
          {"message_bytes", sizes},
          {"off_node_messages", n_off},
          {"off_node_bytes", remote_off},
          {"off_node_message_bytes", sizes_off},
          {"peer_message_bytes", peer_sizes},
          {"off_node_peer_message_bytes", peer_sizes_off},
          {"local_bytes", st.local_bytes}};
}

// The plan's message list (see HaloBenchResult::message_list).
nlohmann::json message_list(const Plan& plan, const std::vector<int>& node_of, int me) {
  nlohmann::json staged = nlohmann::json::array();
  for (const Stage& st : plan.staged()) staged.push_back(stage_messages(st, node_of, me));
  return {{"direct", stage_messages(plan.direct(), node_of, me)}, {"staged", staged}};
}

// The busiest node's network traffic (see HaloBenchResult::node_traffic);
// collective, the answer on rank 0. Each rank sends its node's leader one
// (node, messages, bytes) triple per other node it messages, so no rank
// holds more than its node's few dozen.
nlohmann::json node_traffic(MPI_Comm comm, const Plan& plan, const std::vector<int>& node_of) {
  const int me = comm_rank(comm);
  std::map<int, std::pair<double, double>> to;  // node (its leader) -> (messages, bytes)
  for (const Link& l : plan.direct().links) {
    const int node = node_of[static_cast<size_t>(l.peer)];
    if (l.self || l.send.empty() || node == node_of[static_cast<size_t>(me)]) continue;
    to[node].first += 1, to[node].second += static_cast<double>(l.send.bytes);
  }
  std::vector<double> mine;
  for (const auto& [node, mb] : to) mine.insert(mine.end(), {static_cast<double>(node), mb.first, mb.second});

  Comm node = node_comm(comm);
  const int n_node = comm_size(node.get()), leader = comm_rank(node.get()) == 0;
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(leader ? static_cast<size_t>(n_node) : 0), offsets(counts.size());
  mpi_check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, node.get()), "MPI_Gather");
  for (size_t i = 1; i < counts.size(); ++i) offsets[i] = offsets[i - 1] + counts[i - 1];
  std::vector<double> all(leader ? static_cast<size_t>(offsets.back() + counts.back()) : 0);
  mpi_check(MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                        0, node.get()),
            "MPI_Gatherv");
  // On the node's leader: its messages, bytes and peer nodes; the most of each over the nodes.
  std::set<int> peers;
  double here[4] = {0, 0, 0, static_cast<double>(leader)};  // messages, bytes, peer nodes, nodes
  for (size_t i = 0; i < all.size(); i += 3)
    peers.insert(static_cast<int>(all[i])), here[0] += all[i + 1], here[1] += all[i + 2];
  here[2] = static_cast<double>(peers.size());
  double most[4] = {0, 0, 0, 0}, nodes = 0;
  mpi_check(MPI_Reduce(here, most, 3, MPI_DOUBLE, MPI_MAX, 0, comm), "MPI_Reduce");
  mpi_check(MPI_Reduce(&here[3], &nodes, 1, MPI_DOUBLE, MPI_SUM, 0, comm), "MPI_Reduce");
  if (me != 0) return {};
  return {{"nodes", static_cast<long>(nodes)},
          {"messages_per_node", most[0]},
          {"bytes_per_node", most[1]},
          {"peer_nodes", static_cast<long>(most[2])}};
}

// The decomposition of one benchmark case: an edge L per rank, or the fixed
// global lattice N^d.
DecompositionSpec spec_for(MPI_Comm comm, const HaloBenchOptions& opt, long size) {
  DecompositionSpec spec;
  spec.ndim = opt.ndim;
  spec.periodic = opt.periodic;
  spec.procs = resolve_process_grid(comm_size(comm), opt.ndim, opt.procs);
  if (opt.global > 0) {
    for (int d = 0; d < opt.ndim; ++d) spec.global[d] = opt.global;
  } else {
    const auto ext = subdomain_extents(opt.shape, size, opt.ndim);
    for (int d = 0; d < opt.ndim; ++d) spec.global[d] = ext[d] * spec.procs[d];
  }
  return spec;
}

// One strategy and its samples, per repeat: the plain exchange, the exchange
// around the work, and the slowest rank's pack, MPI and unpack times.
struct Candidate {
  std::string name;
  std::unique_ptr<Strategy> strategy;
  std::vector<double> plain{}, both{};
  std::array<std::vector<double>, 3> phases{};
  long wrong = 0;  // --check: wrong elements after its timed exchanges, this rank
};

template <class T>
void fill(Field<T>& f) {
  // Any finite values: the benchmark measures movement, not arithmetic.
  // Folded memory is left as it is (zero): every rank shares it, and writing
  // every rank's whole field touched each page of each rank's mapping of it,
  // minutes at 4096 simulated ranks of 64^3 sites.
  if (f.memory() == FieldMemory::folded) return;
  T* p = f.data();
  for (size_t i = 0; i < f.size(); ++i) p[i] = static_cast<T>(i % 1000) * T(0.001);
}

// The slowest rank's time of `calls` calls of `body`, started together.
template <class Body>
double timed(MPI_Comm comm, int calls, Body&& body) {
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < calls; ++i) body();
  const double local = MPI_Wtime() - t0;
  double slowest = 0;
  MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  return slowest / calls;
}

// The field of one case in the element type asked for: one field per element
// type keeps the exchange code path the real one. It holds global-index
// values under --check, any finite values otherwise.
struct BenchField {
  std::unique_ptr<Field<double>> fd;
  std::unique_ptr<Field<float>> ff;
  FieldView view;
};

BenchField make_bench_field(const Decomposition& dec, const HaloBenchOptions& opt) {
  BenchField f;
  if (opt.type == ElementType::f64) {
    f.fd = std::make_unique<Field<double>>(dec, opt.ncomp, opt.halo, opt.layout, opt.field_memory);
    opt.check ? encode_global_index(*f.fd, dec) : fill(*f.fd);
    f.view = f.fd->view();
  } else {
    f.ff = std::make_unique<Field<float>>(dec, opt.ncomp, opt.halo, opt.layout, opt.field_memory);
    opt.check ? encode_global_index(*f.ff, dec) : fill(*f.ff);
    f.view = f.ff->view();
  }
  return f;
}

// --check: before a strategy's timed exchanges the field gets a fresh
// encoding (its halos sentinels), after them every element is checked, so
// each sample is an exchange checked by its own strategy. (A separate
// checked exchange per strategy would cost a simulation at 8192 ranks as
// much again as the timed ones.)
class HaloChecker {
 public:
  HaloChecker(const Decomposition& dec, BenchField& field, HaloPromise promise)
      : dec_(dec), field_(field), promise_(std::move(promise)) {}
  void fresh() { field_.fd ? encode_global_index(*field_.fd, dec_) : encode_global_index(*field_.ff, dec_); }
  long count(const std::string& label) const {
    return field_.fd ? count_wrong_halo(*field_.fd, dec_, promise_, label)
                     : count_wrong_halo(*field_.ff, dec_, promise_, label);
  }

 private:
  const Decomposition& dec_;
  BenchField& field_;
  HaloPromise promise_;
};

// The options of one run turned into what every case uses: checked once,
// before any case runs, so a bad size fails before the first is measured.
struct HaloRun {
  const HaloBenchOptions& opt;
  Repetition rep;
  ComponentPredicate travels;
  bool say;     // rank 0 of the run's communicator: it logs and gets the results
  int threads;  // OpenMP threads per rank, for updates per core
  std::vector<std::string> names;
};

HaloRun prepare_run(MPI_Comm comm, const HaloBenchOptions& opt) {
  const Repetition rep{opt.iterations, opt.repeats, opt.warmup, opt.precision, opt.budget_s};
  check_repetition(rep);
  if (opt.work_s < 0) throw InputError("--work-us must not be negative");
  if (opt.global < 0) throw InputError("--global must be positive");
  if (opt.global == 0 && opt.sizes.empty()) throw InputError("give at least one subdomain size");
  for (long L : opt.sizes) subdomain_extents(opt.shape, L, opt.ndim);  // throws for a bad size
  ComponentPredicate travels = travels_for_plan(opt.plan, opt.velocity_set, opt.ncomp, opt.ndim);
  const bool say = comm_rank(comm) == 0;
  const int threads = omp_get_max_threads();
  return {opt, rep, std::move(travels), say, threads, candidate_names(opt.strategies, {}, strategy_names())};
}

// What one case measured besides each candidate's own samples, shared by
// all its results.
struct CaseMeasures {
  RoundsOutcome rounds;
  std::vector<double> copy_bw, link;  // per round: the copy bandwidth and the link probe
  std::vector<double> work;           // the work alone, once per round: the same for every strategy
  std::vector<long> wrong;            // --check, summed over the ranks: each candidate's, then after timing
  double elements = 0;                // --check: elements per exchange over all ranks
  double bytes_sum = 0;               // halo bytes per exchange, summed over the ranks
  double line_bytes = 0;              // the most on any rank (exchange_line_bytes)
  nlohmann::json message_list, node_traffic;
  int messages = 0;  // direct-pattern messages, the most on any rank
};

// The ranking of the plain exchange times so far. `auto` runs one of the
// others: it is not ranked (it would be compared with its own choice) and
// runs to the end, as a reference.
Ranking rank_plain_times(const std::vector<Candidate>& cands, const RoundsRule& rule, double precision) {
  std::vector<std::vector<double>> samples;
  std::vector<bool> ranked;
  std::vector<std::string> names;
  // A candidate that left the race was decidedly slower than a leader:
  // it keeps that answer, and no longer ranks or holds the decision up.
  for (size_t i = 0; i < cands.size(); ++i) {
    samples.push_back(cands[i].plain);
    ranked.push_back(cands[i].strategy->candidates().empty() && rule.active(i));
    names.push_back(cands[i].name);
  }
  return rank_candidates(samples, ranked, names, precision);
}

// The interleaved rounds of one case (collective): before each round the
// work alone, the copy bandwidth and the link probe; in it each candidate's
// plain exchange, its phases and, with work, the exchange around the work.
void sweep_case(const Decomposition& dec, const HaloRun& run, long L, std::vector<Candidate>& cands,
                const FieldView& view, HaloChecker* check, CaseMeasures& m, std::ostream& log) {
  const HaloBenchOptions& opt = run.opt;
  const std::span<const FieldView> fields(&view, 1);
  // The copy probe: 256 MiB per array over all ranks, beyond the caches.
  CopySweep copy((size_t{256} << 20) / 8 / static_cast<size_t>(dec.size()));
  copy.measure(dec.comm(), 1);
  LinkProbe probe;
  const bool overlap = opt.work_s > 0;
  RoundsRule rule(run.rep, dec.comm(), cands.size());
  const auto before_round = [&](int r) {
    progress_line(log, opt.progress && run.say, "halo", "L=" + std::to_string(L), rule.round_text(r));
    if (overlap) m.work.push_back(timed(dec.comm(), opt.iterations, [&] { busy_wait(opt.work_s); }));
    m.copy_bw.push_back(copy.measure(dec.comm(), 3));
    if (dec.size() > 1) m.link.push_back(probe.measure(dec.comm()));
  };
  const auto run_candidate = [&](Candidate& c, bool timed_run) {
    Strategy& st = *c.strategy;
    if (!timed_run) return st.exchange(fields);  // one warm-up call
    st.reset_times();
    if (check) check->fresh();
    c.plain.push_back(timed(dec.comm(), opt.iterations, [&] { st.exchange(fields); }));
    if (check) c.wrong += check->count(c.name);
    const HaloTimes& t = st.times();
    const double mine[3] = {t.pack_s / opt.iterations, t.mpi_s() / opt.iterations,
                            t.unpack_s / opt.iterations};
    double worst[3] = {0, 0, 0};
    mpi_check(MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, dec.comm()), "MPI_Reduce");
    for (int k = 0; k < 3; ++k) c.phases[k].push_back(worst[k]);
    if (!overlap) return;
    if (check) check->fresh();
    c.both.push_back(timed(dec.comm(), opt.iterations, [&] {
      st.begin(fields);
      busy_wait(opt.work_s);
      st.end();
    }));
    if (check) c.wrong += check->count(c.name + " (begin, work, end)");
  };
  const auto rank_now = [&] { return rank_plain_times(cands, rule, opt.precision); };
  interleave(run.rep, cands, before_round, run_candidate, rule, rank_now);
  m.rounds = rule.outcome();
}

// The elements one exchange checks over all ranks; with --check, each
// candidate's wrong elements (HaloChecker) and those of the field as the
// last timed exchanges left it, summed over the ranks. Collective.
void check_case(const Decomposition& dec, const HaloRun& run, const BenchField& field,
                const HaloChecker* check, const std::vector<Candidate>& cands, CaseMeasures& m) {
  m.elements = static_cast<double>(field.view.shape.nsites) * run.opt.ncomp;
  if (!check) return;
  for (const Candidate& c : cands) m.wrong.push_back(c.wrong);
  m.wrong.push_back(check->count("after the timed exchanges"));
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, m.wrong.data(), static_cast<int>(m.wrong.size()), MPI_LONG, MPI_SUM,
                          dec.comm()),
            "MPI_Allreduce");
  MPI_Allreduce(MPI_IN_PLACE, &m.elements, 1, MPI_DOUBLE, MPI_SUM, dec.comm());
}

// What the plan sends: its bytes, lines and messages, with rank 0's message
// list and the busiest node's traffic. Collective, the sums and maxima on
// rank 0.
void measure_plan(const Decomposition& dec, const Plan& plan, CaseMeasures& m) {
  double bytes = static_cast<double>(plan.halo_bytes());
  MPI_Reduce(&bytes, &m.bytes_sum, 1, MPI_DOUBLE, MPI_SUM, 0, dec.comm());
  m.line_bytes = max_over(dec.comm(), exchange_line_bytes(plan));
  const std::vector<int> node_of = node_of_ranks(dec.comm());
  m.message_list = message_list(plan, node_of, comm_rank(dec.comm()));
  m.node_traffic = node_traffic(dec.comm(), plan, node_of);
  int msgs = plan.direct_messages();
  MPI_Reduce(&msgs, &m.messages, 1, MPI_INT, MPI_MAX, 0, dec.comm());
}

// The memory bound and the derived rates of a result whose summary is set.
void put_rates(HaloBenchResult& res, const Decomposition& dec, const CaseMeasures& m, double sites,
               int threads) {
  res.halo_bytes = m.bytes_sum / dec.size();
  res.messages = m.messages;
  res.message_list = m.message_list;
  res.node_traffic = m.node_traffic;
  res.line_bytes = m.line_bytes;
  res.copy_bytes_per_s = m.copy_bw;
  res.link_probe_s = m.link;
  res.line_bound_s = m.line_bytes / (summarize(m.copy_bw).median / dec.size());
  res.bound_fraction = res.line_bound_s / res.summary.median;
  res.beff_bytes_per_s = effective_bandwidth(res.halo_bytes, res.summary.median);
  res.updates_per_core_per_s = updates_per_core(sites, res.summary.median, threads);
}

// Candidate `s`'s result at edge L (rank 0).
HaloBenchResult candidate_result(const Candidate& c, size_t s, const Decomposition& dec, const HaloRun& run,
                                 long L, double sites, const CaseMeasures& m) {
  const HaloBenchOptions& opt = run.opt;
  HaloBenchResult res;
  res.strategy = c.name;
  res.resolved = std::string(c.strategy->resolved_name());
  res.auto_decision = c.strategy->decision();
  for (const CandidateTime& t : c.strategy->candidates()) res.auto_times.emplace_back(t.strategy, t.median_s);
  res.size = L;
  for (int d = 0; d < opt.ndim; ++d) {
    res.global[d] = dec.global_size(d);
    res.local[d] = dec.local_size(d);
  }
  res.sites_per_rank = sites;
  res.time_per_call_s = c.plain;
  res.summary = summarize(c.plain);
  res.rounds = m.rounds;
  res.pack_s = c.phases[0], res.mpi_s = c.phases[1], res.unpack_s = c.phases[2];
  res.pack = summarize(res.pack_s), res.mpi = summarize(res.mpi_s), res.unpack = summarize(res.unpack_s);
  put_rates(res, dec, m, sites, run.threads);
  if (opt.work_s > 0) {
    res.overlap_time_per_call_s = c.both;
    res.work_time_per_call_s = m.work;
    res.overlap_summary = summarize(c.both);
    res.overlap_fraction =
        hidden_fraction(res.summary.median, summarize(m.work).median, res.overlap_summary.median);
  }
  if (opt.check) {
    res.check_wrong = m.wrong[s];
    res.check_after_timing_wrong = m.wrong.back();
    res.check_elements = m.elements;
  }
  return res;
}

// Every candidate's result of one case (rank 0), each compared with
// staged's median when staged ran.
std::vector<HaloBenchResult> case_results(const Decomposition& dec, const HaloRun& run, long L,
                                          const std::vector<Candidate>& cands, const CaseMeasures& m) {
  double global_sites = 1;
  for (int d = 0; d < run.opt.ndim; ++d) global_sites *= static_cast<double>(dec.global_size(d));
  const double sites = global_sites / dec.size();
  double staged_median = 0;
  std::vector<HaloBenchResult> out;
  for (size_t s = 0; s < cands.size(); ++s) {
    out.push_back(candidate_result(cands[s], s, dec, run, L, sites, m));
    if (out.back().strategy == "staged") staged_median = out.back().summary.median;
  }
  if (staged_median > 0)
    for (HaloBenchResult& r : out) r.ratio_to_staged = r.summary.median / staged_median;
  return out;
}

// One case, subdomain edge L (or global edge N): its results on rank 0,
// nothing on the other ranks. Collective.
std::vector<HaloBenchResult> run_halo_case(MPI_Comm comm, const HaloRun& run, long L, std::ostream& log) {
  const HaloBenchOptions& opt = run.opt;
  Decomposition dec(comm, spec_for(comm, opt, L));
  BenchField field = make_bench_field(dec, opt);
  Plan plan(dec, {FieldSpec{field.view.shape, run.travels, opt.field_memory}},
            plan_options_for(opt.plan, opt.pack_threads));
  std::vector<Candidate> cands = build_candidates<Candidate>(
      dec.comm(), run.names, !opt.strategies.empty(),
      [&](const std::string& n) {
        return Candidate{n, make_strategy(n, plan)};
      },
      log, run.say);
  for (const Candidate& c : cands)
    if (run.say && !auto_choice_text(*c.strategy).empty())
      log << "[bench halo] L=" << L << ": " << auto_choice_text(*c.strategy) << "\n" << std::flush;

  std::optional<HaloChecker> checker;
  if (opt.check)
    checker.emplace(dec, field,
                    HaloPromise{run.travels, plan_options_for(opt.plan, opt.pack_threads).regions});
  HaloChecker* check = checker ? &*checker : nullptr;
  CaseMeasures m;
  sweep_case(dec, run, L, cands, field.view, check, m, log);
  check_case(dec, run, field, check, cands, m);
  measure_plan(dec, plan, m);
  if (!run.say) return {};
  return case_results(dec, run, L, cands, m);
}

}  // namespace

std::vector<HaloBenchResult> run_halo_bench(MPI_Comm comm, const HaloBenchOptions& opt, std::ostream& log) {
  const HaloRun run = prepare_run(comm, opt);
  const std::vector<long> cases = opt.global > 0 ? std::vector<long>{opt.global} : opt.sizes;
  std::vector<HaloBenchResult> results;
  for (long L : cases) {
    std::vector<HaloBenchResult> at_L = run_halo_case(comm, run, L, log);
    results.insert(results.end(), std::make_move_iterator(at_L.begin()), std::make_move_iterator(at_L.end()));
  }
  return results;
}

std::string format_halo_table(const HaloBenchOptions& opt, const std::vector<HaloBenchResult>& results) {
  std::ostringstream out;
  long current = -1;
  const bool overlap = opt.work_s > 0;
  for (const HaloBenchResult& r : results) {
    if (r.size != current) {
      current = r.size;
      const std::string global = opt.global > 0 ? "global " + extents_text(r.global, opt.ndim) + ", " : "";
      out << (out.tellp() > 0 ? "\n" : "") << "# " << global << "subdomain "
          << extents_text(r.local, opt.ndim) << " (" << opt.ncomp << " x " << to_string(opt.type) << " "
          << to_string(opt.layout) << ", " << opt.plan << " plan, halo " << opt.halo << ", " << std::fixed
          << std::setprecision(3) << r.halo_bytes / 1e6 << " MB halo per rank, " << opt.iterations
          << " calls x " << r.rounds.rounds << " rounds";
      if (opt.precision > 0)
        out << " (" << (r.rounds.stop == "decided" ? "decided" : "undecided, stopped by " + r.rounds.stop)
            << (r.rounds.ranking.why.empty() ? "" : ": " + r.rounds.ranking.why) << ")";
      if (overlap)
        out << ", " << std::setprecision(1) << opt.work_s * 1e6 << " us work between begin and end";
      out << ")\n";
      out << std::left << std::setw(16) << "strategy" << std::right << std::setw(12) << "median_us"
          << std::setw(12) << "mean_us" << std::setw(10) << "std_us" << std::setw(12) << "min_us"
          << std::setw(12) << "B_eff_GB/s" << std::setw(14) << "Mupd/core/s" << std::setw(11) << "vs_staged"
          << std::setw(10) << "pack_us" << std::setw(10) << "mpi_us" << std::setw(11) << "unpack_us"
          << std::setw(10) << "bound_us" << std::setw(7) << "bound";
      if (overlap) out << std::setw(15) << "overlap_med_us" << std::setw(9) << "hidden";
      out << "\n";
    }
    const Summary& s = r.summary;
    const std::string label = r.resolved == r.strategy ? r.strategy : r.strategy + ">" + r.resolved;
    out << std::left << std::setw(16) << label << std::right << std::fixed << std::setprecision(2)
        << std::setw(12) << s.median * 1e6 << std::setw(12) << s.mean * 1e6 << std::setw(10) << s.stddev * 1e6
        << std::setw(12) << s.min * 1e6 << std::setw(12) << r.beff_bytes_per_s / 1e9 << std::setw(14)
        << r.updates_per_core_per_s / 1e6 << std::setw(11) << std::setprecision(3);
    if (r.ratio_to_staged > 0)
      out << r.ratio_to_staged;
    else
      out << "-";
    out << std::setprecision(2) << std::setw(10) << r.pack.median * 1e6 << std::setw(10) << r.mpi.median * 1e6
        << std::setw(11) << r.unpack.median * 1e6 << std::setw(10) << r.line_bound_s * 1e6 << std::setw(7)
        << r.bound_fraction;
    if (overlap)
      out << std::setw(15) << std::setprecision(2) << r.overlap_summary.median * 1e6 << std::setw(9)
          << std::setprecision(3) << r.overlap_fraction;
    out << "\n";
  }
  return out.str();
}

namespace {

// The case a record describes: the lattice, the field and its plan, and how
// the exchanges were repeated.
void put_halo_case(nlohmann::json& j, const HaloBenchOptions& opt, const std::array<int, max_dims>& grid,
                   const HaloBenchResult& r) {
  j["ndim"] = opt.ndim;
  j["process_grid"] = std::vector<int>(grid.begin(), grid.begin() + opt.ndim);
  j["global_size"] = std::vector<long>(r.global.begin(), r.global.begin() + opt.ndim);
  j["scaling"] = opt.global > 0 ? "strong" : "fixed-subdomain";
  j["shape"] = opt.global > 0 ? "global" : opt.shape;
  j["local_size"] = r.size;
  j["local_extent"] = std::vector<long>(r.local.begin(), r.local.begin() + opt.ndim);
  j["sites_per_rank"] = r.sites_per_rank;
  j["periodic"] = std::vector<bool>(opt.periodic.begin(), opt.periodic.begin() + opt.ndim);
  j["ncomp"] = opt.ncomp;
  j["halo_width"] = opt.halo;
  j["halo_plan"] = opt.plan;
  if (opt.plan == "reduced") j["velocity_set"] = opt.velocity_set;
  j["dtype"] = to_string(opt.type);
  j["layout"] = to_string(opt.layout);
  j["calls_per_sample"] = opt.iterations;
  j["warmup_calls"] = opt.warmup;
}

// What a record measured: the samples, their phases, the memory bound, the
// messages and the rates, with the check and the overlap when they ran.
void put_halo_measures(nlohmann::json& j, const HaloBenchOptions& opt, const HaloBenchResult& r) {
  put_rounds(j, opt.precision, opt.budget_s, r.rounds, true);
  put_samples(j, "time_per_call_s", r.time_per_call_s);
  put_halo_phases(j, r.pack_s, r.mpi_s, r.unpack_s, r.summary.median, r.halo_bytes);
  j["pack_threads"] = to_string(opt.pack_threads);
  j["field_memory"] = to_string(opt.field_memory);
  j["halo_bytes"] = r.halo_bytes;
  j["line_bytes"] = r.line_bytes;
  put_samples(j, "copy_bandwidth_bytes_per_s", r.copy_bytes_per_s);
  if (!r.link_probe_s.empty()) put_samples(j, "link_probe_s", r.link_probe_s);
  j["line_bound_s"] = r.line_bound_s;
  j["bound_fraction"] = r.bound_fraction;
  j["messages"] = r.messages;
  j["message_list"] = r.message_list;
  j["node_traffic"] = r.node_traffic;
  j["beff_bytes_per_s"] = r.beff_bytes_per_s;
  j["updates_per_core_per_s"] = r.updates_per_core_per_s;
  j["ratio_to_staged"] = r.ratio_to_staged;
  j["work_s"] = opt.work_s;
  if (r.check_wrong >= 0)
    j["check"] = {{"wrong_elements", r.check_wrong},
                  {"wrong_elements_after_timing", r.check_after_timing_wrong},
                  {"elements_per_exchange", r.check_elements}};
  if (opt.work_s > 0) {
    put_samples(j, "overlap_time_per_call_s", r.overlap_time_per_call_s);
    put_samples(j, "work_time_per_call_s", r.work_time_per_call_s);
    j["overlap_fraction"] = r.overlap_fraction;
  }
}

}  // namespace

std::vector<nlohmann::json> halo_bench_records(MPI_Comm comm, const HaloBenchOptions& opt,
                                               const std::vector<HaloBenchResult>& results) {
  const nlohmann::json meta = run_metadata(comm, "halo");
  const std::array<int, max_dims> grid = resolve_process_grid(comm_size(comm), opt.ndim, opt.procs);
  std::vector<nlohmann::json> out;
  for (const HaloBenchResult& r : results) {
    nlohmann::json j = meta;
    j["strategy"] = r.strategy;
    j["resolved_strategy"] = r.resolved;
    if (!r.auto_times.empty()) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& [name, t] : r.auto_times) a.push_back({{"strategy", name}, {"median_s", t}});
      j["auto_candidates"] = a;
      j["auto_decision"] = r.auto_decision;
    }
    put_halo_case(j, opt, grid, r);
    put_halo_measures(j, opt, r);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
