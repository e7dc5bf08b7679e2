#include "haloex/io/npy.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "haloex/core/mpi.hpp"
#include "haloex/core/paths.hpp"
#include "haloex/io/aggregator.hpp"
#include "haloex/io/durable.hpp"

namespace haloex {

static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian machine");

namespace {

constexpr char magic[] = "\x93NUMPY";

// Python's tuple syntax: "(128, 128, 64)", "(5,)".
std::string shape_text(const std::vector<long>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
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
  char pre[10] = {};
  in.read(pre, 10);
  if (in.gcount() != 10 || std::memcmp(pre, magic, 6) != 0)
    throw InputError("'" + path + "' is not a .npy file (no \\x93NUMPY magic)");
  if (pre[6] != 1)
    throw InputError("'" + path + "' is .npy format " + std::to_string(int(pre[6])) + ", only 1.0 is read");
  const size_t len =
      static_cast<unsigned char>(pre[8]) | (static_cast<size_t>(static_cast<unsigned char>(pre[9])) << 8);
  std::string dict(len, '\0');
  in.read(dict.data(), static_cast<std::streamsize>(len));
  if (static_cast<size_t>(in.gcount()) != len)
    throw InputError("'" + path + "' is truncated inside its header");
  NpyInfo info;
  std::smatch m;
  if (!std::regex_search(dict, m, std::regex("'descr': *'([<|=]?)(f8|f4)'")))
    throw InputError("'" + path + "' holds a type other than little-endian float64/float32: " + dict);
  info.type = m[2] == "f8" ? ElementType::f64 : ElementType::f32;
  if (std::regex_search(dict, std::regex("'fortran_order': *True")))
    throw InputError("'" + path + "' is in Fortran order; only C order is read");
  if (!std::regex_search(dict, m, std::regex("'shape': *\\(([0-9, ]*)\\)")))
    throw InputError("'" + path + "' has no shape in its header");
  const std::string dims = m[1];
  const std::regex number("[0-9]+");
  for (std::sregex_iterator it(dims.begin(), dims.end(), number), end; it != end; ++it)
    info.shape.push_back(std::stol(it->str()));
  info.data_offset = 10 + len;
  double count = 1;
  for (long n : info.shape) count *= static_cast<double>(n);
  const double want =
      static_cast<double>(info.data_offset) + count * static_cast<double>(element_size(info.type));
  const auto have = static_cast<double>(std::filesystem::file_size(path));
  if (have < want)
    throw InputError("'" + path + "' is truncated: its header promises " +
                     std::to_string(static_cast<long>(want)) + " bytes, the file has " +
                     std::to_string(static_cast<long>(have)));
  return info;
}

void write_npy(const std::string& path, const Decomposition& dec, const FieldView& field) {
  MPI_Comm comm = dec.comm();
  const FieldShape& s = field.shape;
  const int nd = dec.ndim();
  std::vector<long> shape;
  for (int d = 0; d < nd; ++d) shape.push_back(dec.global_size(d));
  shape.push_back(s.ncomp);
  const std::string header = npy_header(s.type, shape);

  // This rank's interior in file order (components last).
  Aggregator agg(dec, {io_type_of(s.type), s.ncomp, {}, ""});
  agg.pack(field);

  // Every rank learns the same outcome, so all throw (or none) together.
  auto agree = [&](int rc, const std::string& what) {
    throw_if_any(comm, rc == MPI_SUCCESS
                           ? std::string()
                           : "cannot write '" + path + "': " + what + " (" + mpi_error_string(rc) + ")");
  };
  const std::string tmp = part_name(path);
  std::string dir_err;
  if (dec.rank() == 0) {
    dir_err = make_parent_dirs(path);
    std::remove(tmp.c_str());
  }
  throw_if_any(comm, dir_err.empty() ? dir_err : "cannot write '" + path + "': " + dir_err);
  MPI_File fh = MPI_FILE_NULL;
  agree(MPI_File_open(comm, tmp.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
        "cannot create " + tmp);
  int rc = MPI_SUCCESS;
  if (dec.rank() == 0)
    rc =
        MPI_File_write_at(fh, 0, header.data(), static_cast<int>(header.size()), MPI_BYTE, MPI_STATUS_IGNORE);
  const MPI_Datatype elem = mpi_type(s.type);
  std::vector<int> sizes, sub, starts;
  for (int d = 0; d < nd; ++d) {
    sizes.push_back(static_cast<int>(dec.global_size(d)));
    sub.push_back(static_cast<int>(dec.local_size(d)));
    starts.push_back(static_cast<int>(dec.offset(d)));
  }
  sizes.push_back(s.ncomp);
  sub.push_back(s.ncomp);
  starts.push_back(0);
  MPI_Datatype block = MPI_DATATYPE_NULL;
  mpi_check(
      MPI_Type_create_subarray(nd + 1, sizes.data(), sub.data(), starts.data(), MPI_ORDER_C, elem, &block),
      "MPI_Type_create_subarray");
  mpi_check(MPI_Type_commit(&block), "MPI_Type_commit");
  const Datatype owned(block);
  int rc2 =
      MPI_File_set_view(fh, static_cast<MPI_Offset>(header.size()), elem, block, "native", MPI_INFO_NULL);
  if (rc2 == MPI_SUCCESS) {
    const long count = dec.local_volume() * s.ncomp;
    if (count > 2147483647L) rc2 = MPI_ERR_COUNT;
    // Independent, not collective: Open MPI 4.1's ompio collective writer
    // (fcoll vulcan) intermittently dropped a block of a small float array
    // written this way (1 run in 4 on 3 ranks); the independent path and
    // ROMIO never did.
    else
      rc2 = MPI_File_write(fh, agg.data(), static_cast<int>(count), elem, MPI_STATUS_IGNORE);
  }
  const int rc3 = MPI_File_close(&fh);
  const int failed = rc != MPI_SUCCESS ? rc : (rc2 != MPI_SUCCESS ? rc2 : rc3);
  try {
    agree(failed, "writing the data failed");
  } catch (...) {
    if (dec.rank() == 0) std::remove(tmp.c_str());
    throw;
  }
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

}  // namespace haloex
