#include "haloex/bench/halo_bench.hpp"

#include <omp.h>

#include <iomanip>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>

#include "haloex/bench/busy_wait.hpp"
#include "haloex/bench/halo_check.hpp"
#include "haloex/bench/link_probe.hpp"
#include "haloex/bench/memory_bound.hpp"
#include "haloex/bench/record.hpp"
#include "haloex/bench/sweep.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/lb/velocity_set.hpp"

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

// --check on the field as the timed exchanges left it, then on each
// strategy alone (a fresh encoding each): wrong elements summed over the
// ranks, one per candidate and the after-timing count last.
template <class T>
std::vector<long> check_exchanges(const Decomposition& dec, Field<T>& f, std::vector<Candidate>& cands,
                                  const HaloPromise& promise) {
  const long after = count_wrong_halo(f, dec, promise, "after the timed exchanges");
  std::vector<long> wrong;
  for (Candidate& c : cands) {
    encode_global_index(f, dec);
    const FieldView v = f.view();
    c.strategy->exchange({&v, 1});
    wrong.push_back(count_wrong_halo(f, dec, promise, c.name));
  }
  wrong.push_back(after);
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, wrong.data(), static_cast<int>(wrong.size()), MPI_LONG, MPI_SUM,
                          dec.comm()),
            "MPI_Allreduce");
  return wrong;
}

}  // namespace

std::vector<HaloBenchResult> run_halo_bench(MPI_Comm comm, const HaloBenchOptions& opt, std::ostream& log) {
  const Repetition rep{opt.iterations, opt.repeats, opt.warmup, opt.precision, opt.budget_s};
  check_repetition(rep);
  if (opt.work_s < 0) throw InputError("--work-us must not be negative");
  if (opt.global < 0) throw InputError("--global must be positive");
  if (opt.global == 0 && opt.sizes.empty()) throw InputError("give at least one subdomain size");
  for (long L : opt.sizes) subdomain_extents(opt.shape, L, opt.ndim);  // throws for a bad size
  const ComponentPredicate travels = travels_for_plan(opt.plan, opt.velocity_set, opt.ncomp, opt.ndim);

  const int rank = comm_rank(comm);
  const int threads = omp_get_max_threads();
  const std::vector<std::string> names = candidate_names(opt.strategies);
  const std::vector<long> cases = opt.global > 0 ? std::vector<long>{opt.global} : opt.sizes;
  std::vector<HaloBenchResult> results;

  for (long L : cases) {
    Decomposition dec(comm, spec_for(comm, opt, L));
    // One field per element type keeps the exchange code path the real one.
    std::unique_ptr<Field<double>> fd;
    std::unique_ptr<Field<float>> ff;
    FieldView view;
    if (opt.type == ElementType::f64) {
      fd = std::make_unique<Field<double>>(dec, opt.ncomp, opt.halo, opt.layout, opt.field_memory);
      opt.check ? encode_global_index(*fd, dec) : fill(*fd);
      view = fd->view();
    } else {
      ff = std::make_unique<Field<float>>(dec, opt.ncomp, opt.halo, opt.layout, opt.field_memory);
      opt.check ? encode_global_index(*ff, dec) : fill(*ff);
      view = ff->view();
    }
    Plan plan(dec, {FieldSpec{view.shape, travels, opt.field_memory}},
              plan_options_for(opt.plan, opt.pack_threads));

    std::vector<Candidate> cands = build_candidates<Candidate>(
        dec.comm(), names, !opt.strategies.empty(),
        [&](const std::string& n) {
          return Candidate{n, make_strategy(n, plan)};
        },
        log, rank == 0);

    const std::span<const FieldView> fields(&view, 1);
    for (const Candidate& c : cands)
      if (rank == 0 && !auto_choice_text(*c.strategy).empty())
        log << "[bench halo] L=" << L << ": " << auto_choice_text(*c.strategy) << "\n" << std::flush;

    // The copy probe: 256 MiB per array over all ranks, beyond the caches.
    CopySweep copy((size_t{256} << 20) / 8 / static_cast<size_t>(dec.size()));
    copy.measure(dec.comm(), 1);
    std::vector<double> copy_bw, link;
    LinkProbe probe;
    const bool overlap = opt.work_s > 0;
    std::vector<double> work;  // the work alone, once per repeat: it is the same for every strategy
    RoundsRule rule(rep, dec.comm(), cands.size());
    const auto before_round = [&](int r) {
      progress_line(log, opt.progress && rank == 0, "halo", "L=" + std::to_string(L), rule.round_text(r));
      if (overlap) work.push_back(timed(dec.comm(), opt.iterations, [&] { busy_wait(opt.work_s); }));
      copy_bw.push_back(copy.measure(dec.comm(), 3));
      if (dec.size() > 1) link.push_back(probe.measure(dec.comm()));
    };
    const auto run = [&](Candidate& c, bool timed_run) {
      Strategy& st = *c.strategy;
      if (!timed_run) return st.exchange(fields);  // one warm-up call
      st.reset_times();
      c.plain.push_back(timed(dec.comm(), opt.iterations, [&] { st.exchange(fields); }));
      const HaloTimes& t = st.times();
      const double mine[3] = {t.pack_s / opt.iterations, t.mpi_s() / opt.iterations,
                              t.unpack_s / opt.iterations};
      double worst[3] = {0, 0, 0};
      mpi_check(MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, dec.comm()), "MPI_Reduce");
      for (int k = 0; k < 3; ++k) c.phases[k].push_back(worst[k]);
      if (!overlap) return;
      c.both.push_back(timed(dec.comm(), opt.iterations, [&] {
        st.begin(fields);
        busy_wait(opt.work_s);
        st.end();
      }));
    };
    // `auto` runs one of the others: it is not ranked (it would be compared
    // with its own choice) and runs to the end, as a reference.
    const auto rank_now = [&] {
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
      return rank_candidates(samples, ranked, names, opt.precision);
    };
    interleave(rep, cands, before_round, run, rule, rank_now);
    std::vector<long> wrong;
    double elements = static_cast<double>(view.shape.nsites) * opt.ncomp;
    if (opt.check) {
      const HaloPromise promise{travels, plan_options_for(opt.plan, opt.pack_threads).regions};
      wrong = fd ? check_exchanges(dec, *fd, cands, promise) : check_exchanges(dec, *ff, cands, promise);
      MPI_Allreduce(MPI_IN_PLACE, &elements, 1, MPI_DOUBLE, MPI_SUM, dec.comm());
    }

    double bytes = static_cast<double>(plan.halo_bytes()), bytes_sum = 0;
    MPI_Reduce(&bytes, &bytes_sum, 1, MPI_DOUBLE, MPI_SUM, 0, dec.comm());
    const double line_bytes = max_over(dec.comm(), exchange_line_bytes(plan));
    const std::vector<int> node_of = node_of_ranks(dec.comm());
    const nlohmann::json msg_list = message_list(plan, node_of, comm_rank(dec.comm()));
    const nlohmann::json traffic = node_traffic(dec.comm(), plan, node_of);
    int msgs = plan.direct_messages(), msgs_max = 0;
    MPI_Reduce(&msgs, &msgs_max, 1, MPI_INT, MPI_MAX, 0, dec.comm());
    if (rank != 0) continue;

    double global_sites = 1;
    for (int d = 0; d < opt.ndim; ++d) global_sites *= static_cast<double>(dec.global_size(d));
    const double sites = global_sites / dec.size();
    double staged_median = 0;
    const size_t first = results.size();
    for (size_t s = 0; s < cands.size(); ++s) {
      HaloBenchResult res;
      res.strategy = cands[s].name;
      res.resolved = std::string(cands[s].strategy->resolved_name());
      res.auto_decision = cands[s].strategy->decision();
      for (const CandidateTime& c : cands[s].strategy->candidates())
        res.auto_times.emplace_back(c.strategy, c.median_s);
      res.size = L;
      for (int d = 0; d < opt.ndim; ++d) {
        res.global[d] = dec.global_size(d);
        res.local[d] = dec.local_size(d);
      }
      res.sites_per_rank = sites;
      res.time_per_call_s = cands[s].plain;
      res.summary = summarize(cands[s].plain);
      res.rounds = rule.outcome();
      res.pack_s = cands[s].phases[0], res.mpi_s = cands[s].phases[1], res.unpack_s = cands[s].phases[2];
      res.pack = summarize(res.pack_s), res.mpi = summarize(res.mpi_s), res.unpack = summarize(res.unpack_s);
      res.halo_bytes = bytes_sum / dec.size();
      res.messages = msgs_max;
      res.message_list = msg_list;
      res.node_traffic = traffic;
      res.line_bytes = line_bytes;
      res.copy_bytes_per_s = copy_bw;
      res.link_probe_s = link;
      res.line_bound_s = line_bytes / (summarize(copy_bw).median / dec.size());
      res.bound_fraction = res.line_bound_s / res.summary.median;
      res.beff_bytes_per_s = effective_bandwidth(res.halo_bytes, res.summary.median);
      res.updates_per_core_per_s = updates_per_core(sites, res.summary.median, threads);
      if (overlap) {
        res.overlap_time_per_call_s = cands[s].both;
        res.work_time_per_call_s = work;
        res.overlap_summary = summarize(cands[s].both);
        res.overlap_fraction =
            hidden_fraction(res.summary.median, summarize(work).median, res.overlap_summary.median);
      }
      if (opt.check) {
        res.check_wrong = wrong[s];
        res.check_after_timing_wrong = wrong.back();
        res.check_elements = elements;
      }
      if (res.strategy == "staged") staged_median = res.summary.median;
      results.push_back(std::move(res));
    }
    if (staged_median > 0)
      for (size_t i = first; i < results.size(); ++i)
        results[i].ratio_to_staged = results[i].summary.median / staged_median;
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
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
