#include "haloex/core/durable.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "haloex/core/error.hpp"
#include "haloex/core/paths.hpp"

namespace haloex {

std::string fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return "cannot open " + path + " to sync it: " + std::strerror(errno);
  // Directories on some file systems refuse fsync (EINVAL); nothing more can be done there.
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL) return "fsync of " + path + " failed: " + std::strerror(err);
  return {};
}

std::string durable_rename(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    return "renaming " + from + " to " + to + " failed: " + std::strerror(errno);
  std::filesystem::path dir = std::filesystem::path(to).parent_path();
  return fsync_path(dir.empty() ? "." : dir.string());
}

void write_durable_text(const std::string& path, const std::string& text) {
  const std::string tmp = part_name(path);
  if (std::string err = make_parent_dirs(path); !err.empty())
    throw InputError("cannot write '" + path + "': " + err);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError("cannot create '" + tmp + "'");
    out << text;
    out.flush();
    if (!out) throw InputError("writing '" + tmp + "' failed (disk full?)");
  }
  std::string err = fsync_path(tmp);
  if (err.empty()) err = durable_rename(tmp, path);
  if (!err.empty()) {
    std::remove(tmp.c_str());
    throw InputError("cannot write '" + path + "': " + err);
  }
}

void kill_point(const char* stage, long step) {
  const char* want = std::getenv("HALOEX_IO_KILL_AT");
  if (!want) return;
  const std::string here = std::string(stage).append("@").append(std::to_string(step));
  if (here == want) std::raise(SIGKILL);
}

}  // namespace haloex
