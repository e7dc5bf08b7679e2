#include "haloex/measure/counters.hpp"

#include <linux/perf_event.h>
#include <omp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace haloex {

namespace {

// One thread's counter of its own user-space instructions (any CPU), or -1.
int open_counter(int& err) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_INSTRUCTIONS;
  a.disabled = 1;
  a.exclude_kernel = 1;  // allowed at perf_event_paranoid 2, Debian's default
  a.exclude_hv = 1;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  const long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  err = fd < 0 ? errno : 0;
  return static_cast<int>(fd);
}

}  // namespace

InstructionCounter::InstructionCounter(int threads) : fds_(static_cast<size_t>(threads), -1) {
  std::vector<int> errs(fds_.size(), 0);
#pragma omp parallel num_threads(threads)
  {
    const auto t = static_cast<size_t>(omp_get_thread_num());
    if (t < fds_.size()) fds_[t] = open_counter(errs[t]);
  }
  for (size_t t = 0; t < fds_.size(); ++t)
    if (fds_[t] < 0) {
      // ENOENT/EOPNOTSUPP: no such counter here (a VM without a virtual
      // PMU); EACCES/EPERM: perf_event_paranoid forbids it.
      why_not_ = "no hardware instruction counter (perf_event_open: " + std::string(std::strerror(errs[t])) +
                 (errs[t] == EACCES || errs[t] == EPERM ? "; see /proc/sys/kernel/perf_event_paranoid" : "") +
                 ")";
      break;
    }
}

InstructionCounter::~InstructionCounter() {
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

void InstructionCounter::start() {
  if (!available()) return;
  for (int fd : fds_) {
    ioctl(fd, PERF_EVENT_IOC_RESET, 0);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  }
}

std::optional<double> InstructionCounter::stop() {
  if (!available()) return std::nullopt;
  double sum = 0;
  for (int fd : fds_) {
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    uint64_t v[3] = {0, 0, 0};  // value, time enabled, time running
    if (read(fd, v, sizeof v) != static_cast<ssize_t>(sizeof v) || v[2] == 0) return std::nullopt;
    if (v[2] < v[1]) return std::nullopt;  // shared with other events: an estimate, not a count
    sum += static_cast<double>(v[0]);
  }
  return sum;
}

}  // namespace haloex
