#include "haloex/core/paths.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace haloex {

namespace {

namespace fs = std::filesystem;

// 'path', quoted for a message. (Built by append: GCC 12 warns falsely
// (-Wrestrict) about "'" + std::string.)
std::string quoted(const std::string& path) {
  std::string q(1, '\'');
  q.append(path).push_back('\'');
  return q;
}

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
  if (!fs::is_directory(have, ec)) return quoted(have.string()) + " is not a folder";
  if (::access(have.c_str(), W_OK | X_OK) != 0)
    return "cannot create files in " + quoted(have.string()) + ": " + std::strerror(errno);
  return {};
}

}  // namespace

std::string output_file_problem(const std::string& path) {
  if (path.empty()) return "the output path is empty";
  std::error_code ec;
  const fs::path p(path);
  const fs::file_status st = fs::status(p, ec);
  if (fs::is_directory(st)) return quoted(path) + " is a folder; give a file name";
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st)) return quoted(path) + " exists and is not a regular file";
    if (::access(path.c_str(), W_OK) != 0)
      return "cannot overwrite " + quoted(path) + ": " + std::strerror(errno);
  }
  // The file is written under a temporary name in the same folder and
  // renamed: the folder must take new files.
  return writable_dir_problem(p.has_parent_path() ? p.parent_path() : fs::path("."));
}

std::string output_dir_problem(const std::string& dir) {
  if (dir.empty()) return "the output folder is empty";
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) return quoted(dir) + " exists and is not a folder";
  return writable_dir_problem(dir);
}

std::string make_parent_dirs(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) return {};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create folder " + quoted(dir.string()) + ": " + ec.message();
  return {};
}

std::vector<std::string> remove_stale_parts(const std::string& dir,
                                            const std::vector<std::string>& prefixes) {
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

}  // namespace haloex
