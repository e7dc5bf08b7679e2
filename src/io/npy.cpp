#include "haloex/io/npy.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string_view>

#include "haloex/core/durable.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/core/paths.hpp"
#include "haloex/io/aggregator.hpp"

namespace haloex {

static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian machine");

namespace {

constexpr char magic[] = "\x93NUMPY";

// Where the value of each "'key':" in a .npy header dictionary starts, spaces
// after the colon skipped. (The header is read by hand: libstdc++'s std::regex
// recursed once per character it matched, and a long run of spaces or digits
// in a legal 64 KiB header overflowed the stack.)
std::vector<std::string_view> header_values(std::string_view dict, std::string_view key) {
  std::vector<std::string_view> values;
  for (size_t k = dict.find(key); k != std::string_view::npos; k = dict.find(key, k + 1))
    values.push_back(dict.substr(std::min(dict.find_first_not_of(' ', k + key.size()), dict.size())));
  return values;
}

// Python's tuple syntax: "(128, 128, 64)", "(5,)".
std::string shape_text(const std::vector<long>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The element type of 'descr': '<f8' (or '|f8', '=f8', 'f8'; f4 alike).
ElementType parse_descr(const std::string& dict, const std::string& path) {
  for (std::string_view v : header_values(dict, "'descr':")) {
    if (!v.starts_with('\'')) continue;
    v.remove_prefix(1);
    if (v.starts_with('<') || v.starts_with('|') || v.starts_with('=')) v.remove_prefix(1);
    if (v.starts_with("f8'") || v.starts_with("f4'"))
      return v[1] == '8' ? ElementType::f64 : ElementType::f32;
  }
  throw InputError("'" + path + "' holds a type other than little-endian float64/float32: " + dict);
}

// The dimensions of 'shape': (digits, commas and spaces).
std::vector<long> parse_shape(const std::string& dict, const std::string& path) {
  constexpr const char* digits = "0123456789";
  std::string_view dims;
  bool shaped = false;
  for (std::string_view v : header_values(dict, "'shape':")) {
    const size_t close = v.starts_with('(') ? v.find_first_not_of(", 0123456789", 1) : std::string_view::npos;
    if (close != std::string_view::npos && v[close] == ')') {
      dims = v.substr(1, close - 1);
      shaped = true;
      break;
    }
  }
  if (!shaped) throw InputError("'" + path + "' has no shape in its header");
  std::vector<long> shape;
  for (size_t i = 0; (i = dims.find_first_of(digits, i)) != std::string_view::npos;) {
    const size_t end = std::min(dims.find_first_not_of(digits, i), dims.size());
    // A dimension beyond a long is an InputError (std::stol threw
    // std::out_of_range).
    long n = 0;
    if (std::from_chars(dims.data() + i, dims.data() + end, n).ec != std::errc())
      throw InputError("'" + path + "' has a dimension too large: " + std::string(dims.substr(i, end - i)));
    shape.push_back(n);
    i = end;
  }
  return shape;
}

// Throws InputError when the file is shorter than its header promises.
void check_complete(const NpyInfo& info, uintmax_t file_size, const std::string& path) {
  double count = 1;
  for (long n : info.shape) count *= static_cast<double>(n);
  const double want =
      static_cast<double>(info.data_offset) + count * static_cast<double>(element_size(info.type));
  const auto have = static_cast<double>(file_size);
  // (Printed as a double: the byte count of a shape of huge dimensions does
  // not fit a long, and converting it to one was undefined behaviour.)
  if (have < want) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(0) << "'" << path << "' is truncated: its header promises " << want
       << " bytes, the file has " << have;
    throw InputError(os.str());
  }
}

// The array's shape: the global lattice, x first, then the components.
std::vector<long> array_shape(const Decomposition& dec, int ncomp) {
  const int nd = dec.ndim();
  std::vector<long> shape;
  shape.reserve(static_cast<size_t>(nd) + 1);
  for (int d = 0; d < nd; ++d) shape.push_back(dec.global_size(d));
  shape.push_back(ncomp);
  return shape;
}

// This rank's block of the array in the file, its interior with all
// components: a committed subarray of `elem`s.
Datatype interior_block(const Decomposition& dec, int ncomp, MPI_Datatype elem) {
  const int nd = dec.ndim();
  std::vector<int> sizes, sub, starts;
  for (int d = 0; d < nd; ++d) {
    sizes.push_back(static_cast<int>(dec.global_size(d)));
    sub.push_back(static_cast<int>(dec.local_size(d)));
    starts.push_back(static_cast<int>(dec.offset(d)));
  }
  sizes.push_back(ncomp);
  sub.push_back(ncomp);
  starts.push_back(0);
  MPI_Datatype block = MPI_DATATYPE_NULL;
  mpi_check(
      MPI_Type_create_subarray(nd + 1, sizes.data(), sub.data(), starts.data(), MPI_ORDER_C, elem, &block),
      "MPI_Type_create_subarray");
  mpi_check(MPI_Type_commit(&block), "MPI_Type_commit");
  return Datatype(block);
}

// The header (rank 0) and every rank's interior written into the open file,
// which is then closed: the first failing MPI return code, or MPI_SUCCESS.
int write_contents(MPI_File& fh, const Decomposition& dec, const FieldShape& s, const std::string& header,
                   Aggregator& agg, size_t mpi_count_limit) {
  int rc = MPI_SUCCESS;
  if (dec.rank() == 0)
    rc =
        MPI_File_write_at(fh, 0, header.data(), static_cast<int>(header.size()), MPI_BYTE, MPI_STATUS_IGNORE);
  const MPI_Datatype elem = mpi_type(s.type);
  const Datatype block = interior_block(dec, s.ncomp, elem);
  int rc2 = MPI_File_set_view(fh, static_cast<MPI_Offset>(header.size()), elem, block.get(), "native",
                              MPI_INFO_NULL);
  if (rc2 == MPI_SUCCESS) {
    // Above the limit (2^31 - 1 elements) still one write, of a derived type
    // of `elem`s, so that it matches the view's etype.
    const LargeCount count(static_cast<size_t>(dec.local_volume()) * static_cast<size_t>(s.ncomp), elem,
                           mpi_count_limit);
    // Independent, not collective: Open MPI 4.1's ompio collective writer
    // (fcoll vulcan) intermittently dropped a block of a small float array
    // written this way (1 run in 4 on 3 ranks); the independent path and
    // ROMIO never did.
    rc2 = large_file_write(fh, agg.data(), count, MPI_STATUS_IGNORE);
  }
  const int rc3 = MPI_File_close(&fh);
  return rc != MPI_SUCCESS ? rc : (rc2 != MPI_SUCCESS ? rc2 : rc3);
}

// Rank 0 makes the file's folders and removes a stale part file `tmp`;
// every rank learns whether that failed.
void prepare_part(MPI_Comm comm, const Decomposition& dec, const std::string& path, const std::string& tmp) {
  std::string dir_err;
  if (dec.rank() == 0) {
    dir_err = make_parent_dirs(path);
    std::remove(tmp.c_str());
  }
  throw_if_any(comm, dir_err.empty() ? dir_err : "cannot write '" + path + "': " + dir_err);
}

// The complete part file `tmp` renamed to `path` (rank 0); every rank
// learns whether that failed.
void commit_part(MPI_Comm comm, const Decomposition& dec, const std::string& path, const std::string& tmp) {
  std::string why;
  if (dec.rank() == 0) {
    // Flushed to storage before the rename, so that a crash cannot leave a
    // complete-looking name over missing data.
    why = fsync_path(tmp);
    if (why.empty()) why = durable_rename(tmp, path);
    if (!why.empty()) {
      std::remove(tmp.c_str());
      why = "cannot write '" + path + "': renaming " + tmp + " into place failed: " + why;
    }
  }
  throw_if_any(comm, why);
}

}  // namespace

std::string npy_header(ElementType type, const std::vector<long>& shape) {
  std::string dict = std::string("{'descr': '") + (type == ElementType::f64 ? "<f8" : "<f4") +
                     "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // magic (6) + version (2) + length (2) + dictionary + padding + '\n'.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  if (dict.size() > 65535) throw InputError("the .npy header is too long for format 1.0");
  std::string h(magic, 6);
  h += '\x01';
  h += '\x00';
  h += static_cast<char>(dict.size() & 0xff);
  h += static_cast<char>(dict.size() >> 8);
  return h + dict;
}

NpyInfo read_npy_info(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open '" + path + "'");
  std::string head(10 + 65535, '\0');  // the longest header of format 1.0
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  return parse_npy_header(head, ec ? head.size() : size, path);
}

NpyInfo parse_npy_header(const std::string& head, uintmax_t file_size, const std::string& path) {
  if (head.size() < 10 || std::memcmp(head.data(), magic, 6) != 0)
    throw InputError("'" + path + "' is not a .npy file (no \\x93NUMPY magic)");
  const char* pre = head.data();
  if (pre[6] != 1)
    throw InputError("'" + path + "' is .npy format " + std::to_string(int(pre[6])) + ", only 1.0 is read");
  const size_t len =
      static_cast<unsigned char>(pre[8]) | (static_cast<size_t>(static_cast<unsigned char>(pre[9])) << 8);
  if (head.size() - 10 < len) throw InputError("'" + path + "' is truncated inside its header");
  const std::string dict = head.substr(10, len);
  NpyInfo info;
  info.type = parse_descr(dict, path);
  for (std::string_view v : header_values(dict, "'fortran_order':"))
    if (v.starts_with("True")) throw InputError("'" + path + "' is in Fortran order; only C order is read");
  info.shape = parse_shape(dict, path);
  info.data_offset = 10 + len;
  check_complete(info, file_size, path);
  return info;
}

void write_npy(const std::string& path, const Decomposition& dec, const FieldView& field,
               size_t mpi_count_limit) {
  check_count_limit(mpi_count_limit);  // before any collective call
  MPI_Comm comm = dec.comm();
  const FieldShape& s = field.shape;
  const std::string header = npy_header(s.type, array_shape(dec, s.ncomp));

  // This rank's interior in the array's C order (x slowest, components last).
  Aggregator agg(dec, {io_type_of(s.type), s.ncomp, {}, ""}, SiteOrder::x_slowest);
  agg.pack(field);

  // Every rank learns the same outcome, so all throw (or none) together.
  auto agree = [&](int rc, const std::string& what) {
    throw_if_any(comm, rc == MPI_SUCCESS
                           ? std::string()
                           : "cannot write '" + path + "': " + what + " (" + mpi_error_string(rc) + ")");
  };
  const std::string tmp = part_name(path);
  prepare_part(comm, dec, path, tmp);
  MPI_File fh = MPI_FILE_NULL;
  agree(MPI_File_open(comm, tmp.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
        "cannot create " + tmp);
  const int failed = write_contents(fh, dec, s, header, agg, mpi_count_limit);
  try {
    agree(failed, "writing the data failed");
  } catch (...) {
    if (dec.rank() == 0) std::remove(tmp.c_str());
    throw;
  }
  commit_part(comm, dec, path, tmp);
}

}  // namespace haloex
