#include "haloex/io/metadata.hpp"

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>

#include "haloex/build_info.hpp"
#include "haloex/core/error.hpp"

namespace haloex {

std::string to_string(IoType t) {
  return t == IoType::f64 ? "float64" : t == IoType::f32 ? "float32" : "uint8";
}

std::string to_string(IoFormat f) {
  return f == IoFormat::binary ? "binary" : f == IoFormat::ascii ? "ascii" : "hdf5";
}

IoType parse_io_type(const std::string& s) {
  if (s == "float64" || s == "double") return IoType::f64;
  if (s == "float32" || s == "float") return IoType::f32;
  if (s == "uint8") return IoType::u8;
  throw InputError("unknown element type '" + s + "' (valid: float64, float32, uint8)");
}

IoFormat parse_io_format(const std::string& s) {
  if (s == "binary") return IoFormat::binary;
  if (s == "ascii") return IoFormat::ascii;
  if (s == "hdf5") return IoFormat::hdf5;
  throw InputError("unknown output format '" + s + "' (valid: binary, ascii, hdf5)");
}

size_t io_type_size(IoType t) { return t == IoType::f64 ? 8 : t == IoType::f32 ? 4 : 1; }

IoType io_type_of(ElementType t) { return t == ElementType::f64 ? IoType::f64 : IoType::f32; }

// "%24.16e" holds any double with 17 significant digits (which read back to
// the same bits), "%15.8e" any float with 9; one separator follows.
size_t ascii_width(IoType t) { return t == IoType::f64 ? 25 : t == IoType::f32 ? 16 : 4; }

size_t IoElement::record_bytes(IoFormat format) const {
  return static_cast<size_t>(ncomp) * (format == IoFormat::ascii ? ascii_width(type) : io_type_size(type));
}

std::string native_endianness() { return std::endian::native == std::endian::little ? "little" : "big"; }

namespace {

[[noreturn]] void bad(const std::string& source, const std::string& what) {
  throw InputError(source + ": " + what);
}

// The value `v` of `key` as T, with a message naming the key when it has the
// wrong type. An integer must be one and fit T: nlohmann converts any number
// to any arithmetic type with a plain cast, where 1e300 to an int is undefined
// behaviour (found by fuzzing) and 2^32 + 1 becomes 1.
template <class T>
T as(const nlohmann::json& v, const char* key, const std::string& source) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!v.is_number_integer()) bad(source, std::string("\"") + key + "\" has the wrong type");
    using limits = std::numeric_limits<T>;
    if (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(limits::max())
                               : v.get<int64_t>() < limits::min() || v.get<int64_t>() > limits::max())
      bad(source, std::string("\"") + key + "\" is out of range");
  }
  try {
    return v.get<T>();
  } catch (const nlohmann::json::exception&) {
    bad(source, std::string("\"") + key + "\" has the wrong type");
  }
}

// j[key] with a message naming the key when it is missing or of the wrong type.
template <class T>
T get(const nlohmann::json& j, const char* key, const std::string& source) {
  if (!j.contains(key))
    bad(source, std::string("no \"") + key + "\" entry (not a haloex output metadata file?)");
  return as<T>(j.at(key), key, source);
}

template <class T>
std::array<T, 3> triple(const nlohmann::json& j, const char* key, const std::string& source) {
  const auto v = get<std::vector<nlohmann::json>>(j, key, source);
  if (v.size() != 3) bad(source, std::string("\"") + key + "\" must have 3 entries");
  return {as<T>(v[0], key, source), as<T>(v[1], key, source), as<T>(v[2], key, source)};
}

}  // namespace

std::string checksum_text(uint64_t c) {
  char s[24];
  std::snprintf(s, sizeof s, "0x%016llx", static_cast<unsigned long long>(c));
  return s;
}

uint64_t parse_checksum(const std::string& s, const std::string& where) {
  if (s.size() != 18 || s.compare(0, 2, "0x") != 0 ||
      s.find_first_not_of("0123456789abcdef", 2) != std::string::npos)
    bad(where, "checksum \"" + s + "\" is not 0x and 16 hex digits");
  return std::stoull(s.substr(2), nullptr, 16);
}

std::string to_string(SiteOrder o) { return o == SiteOrder::x_fastest ? "x_fastest" : "x_slowest"; }

std::array<int, 3> slowest_first(SiteOrder o) {
  return o == SiteOrder::x_fastest ? std::array<int, 3>{2, 1, 0} : std::array<int, 3>{0, 1, 2};
}

long site_index(SiteOrder o, const std::array<long, 3>& p, const std::array<long, 3>& extent) {
  const auto [a, b, c] = slowest_first(o);
  return (p[a] * extent[b] + p[b]) * extent[c] + p[c];
}

namespace {

// The legacy "order" text of haloex 0.1.0's x-slowest files, which have no "site_order".
constexpr const char* legacy_order = "C: x slowest, then y, z; the components of a site together";

std::string order_words(SiteOrder o) {
  return o == SiteOrder::x_fastest ? "x fastest, then y, then z (Fortran order over sites, as XDMF and "
                                     "VTK read them); the components of a site together"
                                   : legacy_order;
}

// Element strides of x, y, z and the component in a block of `extent` sites.
std::array<long, 4> strides(SiteOrder o, const std::array<long, 3>& extent, int ncomp) {
  std::array<long, 4> s{0, 0, 0, 1};
  long n = ncomp;
  const std::array<int, 3> axes = slowest_first(o);
  for (int i = 2; i >= 0; --i) {
    s[static_cast<size_t>(axes[static_cast<size_t>(i)])] = n;
    n *= extent[static_cast<size_t>(axes[static_cast<size_t>(i)])];
  }
  return s;
}

SiteOrder order_of(const nlohmann::json& j, const std::string& source) {
  if (j.contains("site_order")) {
    const std::string o = get<std::string>(j, "site_order", source);
    if (o == "x_fastest") return SiteOrder::x_fastest;
    if (o == "x_slowest") return SiteOrder::x_slowest;
    bad(source, "\"site_order\" must be \"x_fastest\" or \"x_slowest\", not \"" + o + "\"");
  }
  // haloex 0.1.0 wrote x slowest and said so only in words.
  if (j.contains("order") && j["order"] == legacy_order) return SiteOrder::x_slowest;
  bad(source,
      "no \"site_order\" entry, and \"order\" is not one haloex wrote: the order of the sites is unknown");
}

// The quantity's name, step, format and element (type, components and
// record bytes, which must agree).
void read_element(const nlohmann::json& j, const std::string& source, IoMetadata& m) {
  m.name = get<std::string>(j, "name", source);
  m.element.name = m.name;
  m.step = get<long>(j, "step", source);
  try {
    m.format = parse_io_format(get<std::string>(j, "format", source));
    m.element.type = parse_io_type(get<std::string>(j, "type", source));
  } catch (const InputError& e) {
    bad(source, e.what());
  }
  m.element.ncomp = get<int>(j, "ncomp", source);
  if (m.element.ncomp < 1) bad(source, "\"ncomp\" must be >= 1");
  m.element.components = get<std::vector<std::string>>(j, "components", source);
  if (get<long>(j, "record_bytes", source) != static_cast<long>(m.element.record_bytes(m.format)))
    bad(source, "\"record_bytes\" does not match the type, ncomp and format");
}

// The site order, byte order and lattice, and its sites, which with the
// bytes of a file holding them all must fit a long: the checks of the files
// multiply extents (a "size" of [2^62, 2^62, 1] overflowed).
long read_lattice(const nlohmann::json& j, const std::string& source, IoMetadata& m) {
  m.order = order_of(j, source);
  m.endianness = get<std::string>(j, "endianness", source);
  if (m.endianness != "little" && m.endianness != "big")
    bad(source, "\"endianness\" must be \"little\" or \"big\"");
  m.ndim = get<int>(j, "ndim", source);
  if (m.ndim != 2 && m.ndim != 3) bad(source, "\"ndim\" must be 2 or 3");
  m.size = triple<long>(j, "size", source);
  m.periodic = triple<bool>(j, "periodic", source);
  m.io_grid = triple<int>(j, "io_grid", source);
  m.process_grid = triple<int>(j, "process_grid", source);
  const long record = static_cast<long>(m.element.record_bytes(m.format));
  long sites = 1;
  for (int d = 0; d < 3; ++d) {
    if (m.size[d] < 1) bad(source, "\"size\" entries must be >= 1");
    if (m.size[d] > std::numeric_limits<long>::max() / record / sites) bad(source, "\"size\" is too large");
    sites *= m.size[d];
    if (m.io_grid[d] < 1 || m.io_grid[d] > m.size[d])
      bad(source, "\"io_grid\" entries must lie in [1, size]");
  }
  return sites;
}

// The sites of a file's block (inside the lattice, so the product fits a long).
long block_sites(const FileEntry& f) { return f.extent[0] * f.extent[1] * f.extent[2]; }

// One entry of "files": a file beside the metadata, its block inside the
// lattice and, outside HDF5, its bytes those of the block.
FileEntry read_file_entry(const nlohmann::json& e, const std::string& where, const IoMetadata& m) {
  FileEntry f;
  f.path = get<std::string>(e, "path", where);
  if (f.path.empty() || f.path.find('/') != std::string::npos)
    bad(where, "\"path\" must be a file name beside the metadata");
  f.extent = triple<long>(e, "extent", where);
  f.offset = triple<long>(e, "offset", where);
  f.bytes = get<long>(e, "bytes", where);
  f.checksum = parse_checksum(get<std::string>(e, "checksum", where), where);
  for (int d = 0; d < 3; ++d)
    // (extent > size - offset, not offset + extent > size: that sum
    // overflowed for an offset near 2^63.)
    if (f.extent[d] < 1 || f.offset[d] < 0 || f.extent[d] > m.size[d] - f.offset[d])
      bad(where, "the block lies outside the lattice");
  if (m.format != IoFormat::hdf5 &&
      f.bytes != block_sites(f) * static_cast<long>(m.element.record_bytes(m.format)))
    bad(where, "\"bytes\" does not match the block's extent");
  return f;
}

// The files, one per block of the I/O grid, covering the lattice's `sites`
// exactly once.
void read_files(const nlohmann::json& j, const std::string& source, long sites, IoMetadata& m) {
  if (!j.contains("files") || !j["files"].is_array()) bad(source, "no \"files\" list");
  long volume = 0;
  for (size_t i = 0; i < j["files"].size(); ++i) {
    const FileEntry f = read_file_entry(j["files"][i], source + ": files[" + std::to_string(i) + "]", m);
    const long v = block_sites(f);
    if (v > sites - volume) bad(source, "the files do not cover the lattice exactly once");
    volume += v;
    m.files.push_back(f);
  }
  if (m.files.size() != static_cast<size_t>(long{m.io_grid[0]} * m.io_grid[1] * m.io_grid[2]))
    bad(source, "the number of files does not match the io_grid");
  if (volume != sites) bad(source, "the files do not cover the lattice exactly once");
}

}  // namespace

nlohmann::json IoMetadata::to_json() const {
  nlohmann::json j;
  j["haloex_io"] = 1;
  j["name"] = name;
  j["step"] = step;
  j["format"] = to_string(format);
  j["type"] = to_string(element.type);
  j["ncomp"] = element.ncomp;
  j["components"] = element.components;
  j["record_bytes"] = element.record_bytes(format);
  j["endianness"] = endianness;
  j["order"] = order_words(order);
  j["site_order"] = to_string(order);
  j["ndim"] = ndim;
  j["size"] = size;
  j["periodic"] = periodic;
  j["io_grid"] = io_grid;
  j["process_grid"] = process_grid;
  if (format == IoFormat::hdf5) j["dataset"] = dataset;
  nlohmann::json fs = nlohmann::json::array();
  for (const FileEntry& f : files)
    fs.push_back({{"path", f.path},
                  {"extent", f.extent},
                  {"offset", f.offset},
                  {"strides", strides(order, f.extent, element.ncomp)},
                  {"bytes", f.bytes},
                  {"checksum", checksum_text(f.checksum)}});
  j["files"] = fs;
  j["hints"] = hints;
  j["hints_applied"] = hints_applied;
  j["version"] = version.empty() ? std::string(build::version) : version;
  j["extra"] = extra;
  return j;
}

IoMetadata IoMetadata::from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) bad(source, "not a JSON object");
  if (get<int>(j, "haloex_io", source) != 1)
    bad(source, "\"haloex_io\" must be 1 (written by a newer haloex?)");
  IoMetadata m;
  read_element(j, source, m);
  const long sites = read_lattice(j, source, m);
  if (m.format == IoFormat::hdf5) m.dataset = get<std::string>(j, "dataset", source);
  read_files(j, source, sites, m);
  m.version = get<std::string>(j, "version", source);
  if (j.contains("hints") && j["hints"].is_string()) m.hints = j["hints"].get<std::string>();
  if (j.contains("hints_applied") && j["hints_applied"].is_object()) m.hints_applied = j["hints_applied"];
  if (j.contains("extra")) m.extra = j["extra"];
  return m;
}

IoMetadata read_metadata(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot open metadata file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_metadata(ss.str(), path);
}

IoMetadata parse_metadata(const std::string& text, const std::string& source) {
  // Nesting is limited: nlohmann parses any depth, but copies, compares and
  // writes a document recursively, and copying the "extra" of a file nested
  // 200000 deep overflowed the stack.
  constexpr int max_depth = 100;
  const auto shallow = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > max_depth) bad(source, "nested deeper than " + std::to_string(max_depth) + " levels");
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, shallow);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e400
    bad(source, std::string("not valid JSON (truncated or corrupted?): ") + e.what());
  }
  return IoMetadata::from_json(j, source);
}

std::string metadata_dir(const std::string& metadata_path) {
  const auto dir = std::filesystem::path(metadata_path).parent_path();
  return dir.empty() ? "." : dir.string();
}

}  // namespace haloex
