#pragma once
/// @file
/// Hardware instruction counts of a stretch of code on every OpenMP thread,
/// from the kernel's performance counters (Linux perf_event_open). Many
/// virtual machines do not expose them: the counter then says why, and
/// its readings are absent rather than zero.
#include <optional>
#include <string>
#include <vector>

namespace haloex {

/// User-space instructions retired by the threads of the next OpenMP
/// parallel regions, one counter per thread, opened on construction (inside
/// a parallel region of `threads` threads) and closed on destruction.
class InstructionCounter {
 public:
  /// Open one counter on each of `threads` OpenMP threads; a counter that
  /// does not open leaves the object usable but unavailable().
  explicit InstructionCounter(int threads);
  ~InstructionCounter();
  InstructionCounter(const InstructionCounter&) = delete;
  InstructionCounter& operator=(const InstructionCounter&) = delete;

  /// Whether every thread's counter opened; if not, why_not() says why.
  bool available() const { return why_not_.empty(); }
  /// Why the counters are not available (the first failing thread's
  /// perf_event_open error), or empty when they are.
  const std::string& why_not() const { return why_not_; }
  /// Zero and start every thread's counter.
  void start();
  /// Stop them; the instructions since start() summed over the threads, or
  /// nothing when the counters are not available (or were multiplexed away).
  std::optional<double> stop();

 private:
  std::vector<int> fds_;  // one per thread, -1 where it did not open
  std::string why_not_;
};

}  // namespace haloex
