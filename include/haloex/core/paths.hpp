#pragma once
// Output paths checked before any work starts, the folders above a file
// created by every writer alike, and the temporary files a killed writer
// left behind. Plain file-system facts, used by io/, lb/ and cli/.
#include <string>
#include <vector>

namespace haloex {

/// Why a file cannot be written at `path`, or "" when it can: the name is
/// taken by a folder or by something other than a regular file, or the file
/// or its folder is not writable. Folders that do not exist yet are fine:
/// every writer creates the missing folders above its file.
std::string output_file_problem(const std::string& path);

/// Why files cannot be written into the folder `dir`, or "" when they can
/// (a folder that does not exist yet is fine when it can be created).
std::string output_dir_problem(const std::string& dir);

/// Create the folders above `path` that do not exist; returns an error text
/// or "".
std::string make_parent_dirs(const std::string& path);

/// Remove the temporary files (`*.part`) in `dir` whose names start with one
/// of `prefixes`: what a killed writer left behind. Returns their paths.
std::vector<std::string> remove_stale_parts(const std::string& dir, const std::vector<std::string>& prefixes);

}  // namespace haloex
