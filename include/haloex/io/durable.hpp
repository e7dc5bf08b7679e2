#pragma once
// Durable files: written under a temporary name, flushed to storage and
// renamed into place, so that a crash at any moment leaves either the old
// file or the complete new one, never a half-written file under the name.
#include <string>
#include <vector>

namespace haloex {

/// The temporary name a file is written under before its rename.
inline std::string part_name(const std::string& path) { return path + ".part"; }

/// fsync a file or directory by path; returns an error text or "".
std::string fsync_path(const std::string& path);

/// Rename `from` to `to` and fsync the directory that holds `to`, so the
/// rename itself survives a crash; returns an error text or "".
std::string durable_rename(const std::string& from, const std::string& to);

/// Write `text` to `path` durably (temporary name, fsync, rename, fsync of
/// the directory). Throws InputError naming the file when it cannot.
void write_durable_text(const std::string& path, const std::string& text);

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

/// Test hook for crash-safety tests: when the environment variable
/// HALOEX_IO_KILL_AT is "<stage>@<step>" and both match, the process
/// SIGKILLs itself here, as a node failure would.
void kill_point(const char* stage, long step);

}  // namespace haloex
