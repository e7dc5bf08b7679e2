#pragma once
// Durable files: written under a temporary name, flushed to storage and
// renamed into place, so that a crash at any moment leaves either the old
// file or the complete new one, never a half-written file under the name.
#include <string>

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

/// Test hook for crash-safety tests: when the environment variable
/// HALOEX_IO_KILL_AT is `<stage>@<step>` and both match, the process
/// SIGKILLs itself here, as a node failure would.
void kill_point(const char* stage, long step);

}  // namespace haloex
