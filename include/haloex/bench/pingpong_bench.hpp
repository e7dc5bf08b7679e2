#pragma once
// `haloex bench pingpong`: half round-trip latency and bandwidth between
// ranks 0 and 1 (IMB PingPong's definitions) for a range of message sizes.
#include <mpi.h>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "haloex/halo/pack.hpp"
#include "haloex/measure/stats.hpp"
#include "haloex/measure/sweep.hpp"

namespace haloex {

/// What to measure. Sizes of `large_bytes` and more use the "large"
/// iteration and warm-up counts (OSU's convention: fewer, longer trips).
struct PingPongOptions {
  std::vector<size_t> sizes;  ///< bytes; empty: powers of two from 1 B to 16 MiB
  /// Round trips per sample, below and from large_bytes.
  /// @{
  int iterations = 1000, iterations_large = 100;
  /// @}
  /// Untimed round trips, below and from large_bytes.
  /// @{
  int warmup = 100, warmup_large = 10;
  /// @}
  size_t large_bytes = 8192;  ///< the size from which the large counts apply
  int repeats = 5;            ///< samples per size, sizes interleaved (with precision: the fewest)
  double precision = 0;       ///< --ci: rounds until every size's median is known to within this
  double budget_s = 60;       ///< --budget: seconds those rounds may take
  /// --buffers: "osu" (each rank sends from a buffer it never writes and
  /// receives into another, as osu_latency and IMB PingPong do) or "one"
  /// (each rank sends back the buffer it has just received into).
  std::string buffers = "osu";
  bool progress = true;  ///< progress lines on `log` (rank 0)
};

/// One message size: raw samples and what follows from them.
struct PingPongResult {
  size_t bytes = 0;                  ///< message size
  int round_trips = 0;               ///< round trips per sample
  std::vector<double> latency_s;     ///< seconds per sample: round-trip time / 2
  Summary summary;                   ///< statistics of latency_s
  double bandwidth_bytes_per_s = 0;  ///< bytes / median latency
  RoundsOutcome rounds;              ///< how many rounds ran and why they stopped
};

/// One rank's memory for the ping-pong, page-aligned as the halo's buffers.
/// "osu": a send buffer filled with pingpong_pattern(rank, i) and never
/// written again, and a receive buffer filled with zeros. "one": a single
/// buffer, filled with the pattern, that is both (send() == recv()).
class PingPongBuffers {
 public:
  /// `bytes` each; `mode` "osu" or "one", else InputError.
  PingPongBuffers(const std::string& mode, size_t bytes, int rank);
  /// Where this rank sends from.
  std::byte* send() { return send_.data(); }
  /// Where this rank receives into (send() with "one").
  std::byte* recv() { return one_ ? send_.data() : recv_.data(); }
  /// Bytes of each buffer.
  size_t size() const { return send_.size(); }

 private:
  Buffer send_, recv_;
  bool one_ = false;
};

/// Byte i of rank `rank`'s send buffer (ranks 0 and 1 differ at every i).
inline std::byte pingpong_pattern(int rank, size_t i) {
  return static_cast<std::byte>((i * 7 + 1 + 128 * static_cast<size_t>(rank)) & 0xff);
}

/// `trips` blocking round trips of `bytes` between ranks 0 and 1 of `comm`:
/// rank 0 sends from send() and receives into recv(), rank 1 receives into
/// recv() and sends from send(). Other ranks return at once.
void pingpong_round_trips(MPI_Comm comm, PingPongBuffers& buffers, size_t bytes, int trips);

/// Message sizes from "MIN:MAX" (powers of two from MIN to MAX) or a list
/// "1,64,4K"; K, M and G suffixes are binary (4K = 4096). Throws InputError.
std::vector<size_t> parse_message_sizes(const std::string& text);

/// Run the benchmark (collective; ranks above 1 wait). Rank 0 gets the results.
std::vector<PingPongResult> run_pingpong_bench(MPI_Comm comm, const PingPongOptions& opt, std::ostream& log);

/// Aligned table of the results.
std::string format_pingpong_table(const std::vector<PingPongResult>& results);

/// JSON records, each with the run's metadata.
std::vector<nlohmann::json> pingpong_records(MPI_Comm comm, const PingPongOptions& opt,
                                             const std::vector<PingPongResult>& results);

}  // namespace haloex
