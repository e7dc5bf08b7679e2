#include "haloex/io/durable.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "haloex/core/error.hpp"

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

namespace {

namespace fs = std::filesystem;

// The nearest folder above `p` (or `p` itself) that exists.
fs::path nearest_existing(fs::path p) {
  std::error_code ec;
  p = fs::absolute(p, ec);
  while (!p.empty() && !fs::exists(p, ec) && p != p.parent_path()) p = p.parent_path();
  return p;
}

std::string writable_dir_problem(const fs::path& dir) {
  std::error_code ec;
  const fs::path have = nearest_existing(dir);
  if (!fs::is_directory(have, ec)) return "'" + have.string() + "' is not a folder";
  if (::access(have.c_str(), W_OK | X_OK) != 0)
    return "cannot create files in '" + have.string() + "': " + std::strerror(errno);
  return {};
}

}  // namespace

std::string output_file_problem(const std::string& path) {
  if (path.empty()) return "the output path is empty";
  std::error_code ec;
  const fs::path p(path);
  const fs::file_status st = fs::status(p, ec);
  if (fs::is_directory(st)) return "'" + path + "' is a folder; give a file name";
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st)) return "'" + path + "' exists and is not a regular file";
    if (::access(path.c_str(), W_OK) != 0) return "cannot overwrite '" + path + "': " + std::strerror(errno);
  }
  // The file is written under a temporary name in the same folder and
  // renamed: the folder must take new files.
  return writable_dir_problem(p.has_parent_path() ? p.parent_path() : fs::path("."));
}

std::string output_dir_problem(const std::string& dir) {
  if (dir.empty()) return "the output folder is empty";
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) return "'" + dir + "' exists and is not a folder";
  return writable_dir_problem(dir);
}

std::string make_parent_dirs(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) return {};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create folder '" + dir.string() + "': " + ec.message();
  return {};
}

std::vector<std::string> remove_stale_parts(const std::string& dir, const std::vector<std::string>& prefixes) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".part") != 0) continue;
    for (const std::string& p : prefixes)
      if (name.rfind(p, 0) == 0) {
        std::error_code rm;
        if (fs::remove(e.path(), rm)) removed.push_back(e.path().string());
        break;
      }
  }
  std::sort(removed.begin(), removed.end());
  return removed;
}

void write_durable_text(const std::string& path, const std::string& text) {
  const std::string tmp = part_name(path);
  if (std::string err = make_parent_dirs(path); !err.empty()) throw InputError("cannot write '" + path + "': " + err);
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
