// Tests of the io layer against independent expectations: file bytes equal
// to a global-index encoding written out by the test itself (so files are
// the same for every rank count and I/O grid), read-back into other
// layouts, asynchronous writes, rejected files, and LB restarts across rank
// counts that must match an uninterrupted run to the last bit.
#include <gtest/gtest.h>
#include <mpi.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include <unistd.h>

#include "haloex/field/field_checksum.hpp"
#include "haloex/io/field_io.hpp"
#include "haloex/io/xdmf.hpp"
#include "haloex/lb/files.hpp"
#include "world.hpp"

using namespace haloex;
using haloex::test::world_rank;
using haloex::test::world_size;
namespace fs = std::filesystem;

namespace {

// A fresh directory shared by every rank.
std::string scratch_dir(const std::string& name) { return test::scratch_dir("io", name); }

bool everyone(bool ok) {
  int v = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

// The value of (global site g, component c): unique, exact in float.
double encode(long g, int c, int ncomp) { return static_cast<double>(g * ncomp + c) + 0.25; }

const std::array<long, 3> global_size{10, 9, 7};

// The 10x9x7 lattice over every rank, periodic (process grid from MPI_Dims_create).
Decomposition lattice() {
  DecompositionSpec spec;
  spec.global = global_size;
  return Decomposition(MPI_COMM_WORLD, spec);
}

long global_index(long i, long j, long k) { return (i * global_size[1] + j) * global_size[2] + k; }

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What file `box` of the lattice must hold, built here from the encoding:
// x fastest, then y, then z (the order XDMF and VTK read).
template <class T>
std::string expected_file(const Box& box, int ncomp, IoFormat format) {
  std::string out;
  for (long k = box.lo[2]; k < box.hi[2]; ++k)
    for (long j = box.lo[1]; j < box.hi[1]; ++j)
      for (long i = box.lo[0]; i < box.hi[0]; ++i)
        for (int c = 0; c < ncomp; ++c) {
          const T v = static_cast<T>(encode(global_index(i, j, k), c, ncomp));
          if (format == IoFormat::binary) {
            out.append(reinterpret_cast<const char*>(&v), sizeof v);
          } else {
            char s[40];
            std::snprintf(s, sizeof s, sizeof(T) == 8 ? "%24.16e" : "%15.8e", static_cast<double>(v));
            out.append(s).push_back(c + 1 == ncomp ? '\n' : ' ');
          }
        }
  return out;
}

template <class T>
void fill(Field<T>& f, const Decomposition& dec) {
  for (long i = 0; i < f.local_size(0); ++i)
    for (long j = 0; j < f.local_size(1); ++j)
      for (long k = 0; k < f.local_size(2); ++k)
        for (int c = 0; c < f.ncomp(); ++c)
          f(i, j, k, c) = static_cast<T>(
              encode(global_index(i + dec.offset(0), j + dec.offset(1), k + dec.offset(2)), c, f.ncomp()));
}

// The I/O grids to try: one file, 2 along each dimension the process grid
// allows, and one file per rank.
std::vector<std::array<int, 3>> io_grids(const Decomposition& dec) {
  std::vector<std::array<int, 3>> g{{1, 1, 1}};
  for (int d = 0; d < 3; ++d)
    if (dec.procs(d) % 2 == 0) {
      std::array<int, 3> x{1, 1, 1};
      x[d] = 2;
      g.push_back(x);
    }
  if (dec.size() > 2) g.push_back({dec.procs(0), dec.procs(1), dec.procs(2)});
  return g;
}

template <class T>
void round_trip(Layout layout, IoFormat format) {
  const std::string dir = scratch_dir("rt");
  const Decomposition dec = lattice();
  const int ncomp = 3;
  Field<T> f(dec, ncomp, 1, layout);
  fill(f, dec);
  for (const auto& grid : io_grids(dec)) {
    FieldIo io(dec, {io_type_of(element_type_of<T>()), ncomp, {"a", "b", "c"}}, {format, grid});
    const std::string stem = dir + "/q-" + extents_text(grid, 3);
    io.write_begin(stem, 5, f.view());
    const IoEvent ev2 = io.write_end();
    const std::string tag = to_string(format) + " " + to_string(layout) + " " + extents_text(grid, 3) +
                            " on " + std::to_string(dec.size()) + " ranks";
    // Every file's bytes against the encoding, on rank 0.
    bool same = true;
    if (dec.rank() == 0) {
      const IoMetadata m = read_metadata(stem + ".json");
      EXPECT_EQ(m.files.size(), static_cast<size_t>(io.grid().files())) << tag;
      long total = 0;
      for (int file = 0; file < io.grid().files(); ++file) {
        const std::string got = file_bytes(dir + "/" + m.files[static_cast<size_t>(file)].path);
        same = same && got == expected_file<T>(io.grid().file_box(file), ncomp, format);
        total += static_cast<long>(got.size());
      }
      EXPECT_EQ(total, ev2.bytes) << tag;
      EXPECT_EQ(m.step, 5);
      EXPECT_EQ(m.size, global_size);
      EXPECT_EQ(m.io_grid, grid);
    }
    ASSERT_TRUE(everyone(same)) << "file bytes differ from the encoding: " << tag;
    // Back into a field of the other layout, wider halo, filled with a sentinel.
    Field<T> g(dec, ncomp, 2, layout == Layout::aos ? Layout::soa : Layout::aos);
    std::fill(g.elements().begin(), g.elements().end(), T(-7));
    io.read(stem + ".json", g.view());
    bool ok = true;
    const FieldShape& s = g.shape();
    for (long i = -2; i < s.local[0] + 2; ++i)
      for (long j = -2; j < s.local[1] + 2; ++j)
        for (long k = -2; k < s.local[2] + 2; ++k)
          for (int c = 0; c < ncomp; ++c) {
            const bool inside =
                i >= 0 && i < s.local[0] && j >= 0 && j < s.local[1] && k >= 0 && k < s.local[2];
            const T want =
                inside ? static_cast<T>(encode(
                             global_index(i + dec.offset(0), j + dec.offset(1), k + dec.offset(2)), c, ncomp))
                       : T(-7);
            ok = ok && g(i, j, k, c) == want;
          }
    ASSERT_TRUE(everyone(ok)) << "read-back differs: " << tag;
  }
}

}  // namespace

TEST(IoRoundTrip, DoubleAosBinary) { round_trip<double>(Layout::aos, IoFormat::binary); }
TEST(IoRoundTrip, DoubleSoaBinary) { round_trip<double>(Layout::soa, IoFormat::binary); }
TEST(IoRoundTrip, FloatAosBinary) { round_trip<float>(Layout::aos, IoFormat::binary); }
TEST(IoRoundTrip, FloatSoaBinary) { round_trip<float>(Layout::soa, IoFormat::binary); }
TEST(IoRoundTrip, DoubleSoaAscii) { round_trip<double>(Layout::soa, IoFormat::ascii); }
TEST(IoRoundTrip, FloatAosAscii) { round_trip<float>(Layout::aos, IoFormat::ascii); }

TEST(IoAsync, WritesTheDataOfWriteBegin) {
  const std::string dir = scratch_dir("async");
  const Decomposition dec = lattice();
  Field<double> f(dec, 2, 1);
  fill(f, dec);
  FieldIo io(dec, {IoType::f64, 2, {}});
  io.write_begin(dir + "/a", 1, f.view());
  EXPECT_THROW(io.aggregator(), Error);                       // the buffer is in flight
  std::fill(f.elements().begin(), f.elements().end(), -1.0);  // the time loop goes on
  io.write_end();
  bool same = true;
  if (dec.rank() == 0)
    same =
        file_bytes(dir + "/a.bin") == expected_file<double>(Box{{0, 0, 0}, global_size}, 2, IoFormat::binary);
  EXPECT_TRUE(everyone(same));
}

TEST(IoGridTest, MustDivideTheProcessGrid) {
  const Decomposition dec = lattice();
  try {
    IoGrid g(dec, {dec.procs(0) + 1, 1, 1});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("does not divide the process grid"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_io_grid("2x1x3"), (std::array<int, 3>{2, 1, 3}));
  EXPECT_EQ(parse_io_grid("2"), (std::array<int, 3>{2, 1, 1}));
  EXPECT_THROW(parse_io_grid("2x0"), InputError);
  EXPECT_THROW(parse_io_grid("two"), InputError);
}

namespace {

// Copy an output's files into a new directory, changing one with `edit`.
void copy_output(const std::string& from, const std::string& to, const std::string& file,
                 const std::function<void(std::string&)>& edit) {
  if (world_rank() == 0) {
    fs::create_directories(to);
    for (const auto& e : fs::directory_iterator(from)) {
      std::string bytes = file_bytes(e.path().string());
      if (e.path().filename() == file) edit(bytes);
      std::ofstream(to + "/" + e.path().filename().string(), std::ios::binary) << bytes;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void expect_refused(FieldIo& io, const std::string& meta, const std::string& words) {
  try {
    io.read(meta);
    ADD_FAILURE() << meta << " was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << "message: " << e.what();
  }
}

// Writes the encoded lattice of ncomp doubles to `stem` (step 3) with a
// FieldIo of these options, which it returns.
std::unique_ptr<FieldIo> write_encoded(const Decomposition& dec, const std::string& stem, int ncomp,
                                       const IoOptions& options = {}) {
  Field<double> f(dec, ncomp, 1);
  fill(f, dec);
  auto io = std::make_unique<FieldIo>(dec, IoElement{IoType::f64, ncomp, {}}, options);
  io->write_begin(stem, 3, f.view());
  io->write_end();
  return io;
}

}  // namespace

TEST(IoRejects, TruncatedCorruptedAndMismatchedFiles) {
  const std::string dir = scratch_dir("bad");
  const Decomposition dec = lattice();
  const std::unique_ptr<FieldIo> written = write_encoded(dec, dir + "/ok/q", 2);
  FieldIo& io = *written;
  copy_output(dir + "/ok", dir + "/short", "q.bin", [](std::string& b) { b.resize(b.size() - 1); });
  expect_refused(io, dir + "/short/q.json", "is truncated: it has");
  copy_output(dir + "/ok", dir + "/flip", "q.bin", [](std::string& b) { b[b.size() / 2] ^= 0x10; });
  expect_refused(io, dir + "/flip/q.json", "is corrupted: its checksum");
  copy_output(dir + "/ok", dir + "/json", "q.json", [](std::string& b) { b.resize(b.size() / 2); });
  expect_refused(io, dir + "/json/q.json", "not valid JSON");
  copy_output(dir + "/ok", dir + "/nosize", "q.json",
              [](std::string& b) { b.replace(b.find("\"size\""), 6, "\"sise\""); });
  expect_refused(io, dir + "/nosize/q.json", "no \"size\" entry");
  copy_output(dir + "/ok", dir + "/gone", "q.bin", [](std::string&) {});
  if (world_rank() == 0) fs::remove(dir + "/gone/q.bin");
  MPI_Barrier(MPI_COMM_WORLD);
  expect_refused(io, dir + "/gone/q.json", "cannot open data file");
  expect_refused(io, dir + "/missing.json", "cannot open metadata file");

  FieldIo three(dec, {IoType::f64, 3, {}});
  expect_refused(three, dir + "/ok/q.json", "components per site mismatch: the file has 2, this run needs 3");
  FieldIo single(dec, {IoType::f32, 2, {}});
  expect_refused(single, dir + "/ok/q.json", "element type mismatch: the file has float64");
  DecompositionSpec other;
  other.global = {10, 9, 8};
  const Decomposition dec2(MPI_COMM_WORLD, other);
  FieldIo bigger(dec2, {IoType::f64, 2, {}});
  expect_refused(bigger, dir + "/ok/q.json",
                 "lattice size mismatch: the file has 10x9x7, this run needs 10x9x8");
}

// haloex 0.1.0 wrote files with x slowest, said so only in its "order"
// words, and summed checksums over x-slowest indices. Such a file, written
// here byte by byte, is read back into the right sites on any decomposition.
TEST(IoLegacy, XSlowestFilesAreStillRead) {
  const std::string dir = scratch_dir("legacy");
  const Decomposition dec = lattice();
  const int nc = 2;
  if (world_rank() == 0) {
    std::string bytes;
    uint64_t sum = 0;
    for (long i = 0; i < global_size[0]; ++i)
      for (long j = 0; j < global_size[1]; ++j)
        for (long k = 0; k < global_size[2]; ++k)
          for (int c = 0; c < nc; ++c) {
            const double v = encode(global_index(i, j, k), c, nc);
            const auto index = static_cast<uint64_t>(global_index(i, j, k) * nc + c);
            sum += element_checksum(index, reinterpret_cast<const std::byte*>(&v), sizeof v);
            bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
          }
    std::ofstream(dir + "/old.bin", std::ios::binary) << bytes;
    nlohmann::json m = {{"haloex_io", 1},
                        {"name", "old"},
                        {"step", 9},
                        {"format", "binary"},
                        {"type", "float64"},
                        {"ncomp", nc},
                        {"components", {"a", "b"}},
                        {"record_bytes", 16},
                        {"endianness", native_endianness()},
                        {"order", "C: x slowest, then y, z; the components of a site together"},
                        {"ndim", 3},
                        {"size", global_size},
                        {"periodic", {true, true, true}},
                        {"io_grid", {1, 1, 1}},
                        {"process_grid", {1, 1, 1}},
                        {"version", "0.1.0"},
                        {"files",
                         {{{"path", "old.bin"},
                           {"extent", global_size},
                           {"offset", {0, 0, 0}},
                           {"bytes", bytes.size()},
                           {"checksum", checksum_text(sum)}}}}};
    std::ofstream(dir + "/old.json") << m.dump(1);
    m.erase("order");
    std::ofstream(dir + "/unknown.json") << m.dump(1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  FieldIo io(dec, {IoType::f64, nc, {}});
  Field<double> g(dec, nc, 1, Layout::soa);
  const IoMetadata m = io.read(dir + "/old.json", g.view());
  EXPECT_EQ(m.order, SiteOrder::x_slowest);
  Field<double> want(dec, nc, 1, Layout::soa);
  fill(want, dec);
  bool ok = true;
  for (long i = 0; i < g.local_size(0); ++i)
    for (long j = 0; j < g.local_size(1); ++j)
      for (long k = 0; k < g.local_size(2); ++k)
        for (int c = 0; c < nc; ++c) ok = ok && g(i, j, k, c) == want(i, j, k, c);
  EXPECT_TRUE(everyone(ok)) << "an x-slowest file was read into the wrong sites";
  expect_refused(io, dir + "/unknown.json", "the order of the sites is unknown");
}

// The metadata states the order in words and in numbers (element strides).
TEST(IoMetadataOrder, WordsAndStrides) {
  const std::string dir = scratch_dir("order");
  const Decomposition dec = lattice();
  write_encoded(dec, dir + "/q", 3);
  std::ifstream in(dir + "/q.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["site_order"], "x_fastest");
  EXPECT_EQ(j["order"].get<std::string>().rfind("x fastest, then y, then z", 0), 0u) << j["order"];
  // x: 3 components; y: 10 sites of x; z: 9 rows of y; component: 1.
  EXPECT_EQ(j["files"][0]["strides"], (nlohmann::json{3, 30, 270, 1}));
}

TEST(IoHdf5, RoundTripAndXdmf) {
  if (!hdf5_available()) GTEST_SKIP() << "built without parallel HDF5";
  const std::string dir = scratch_dir("h5");
  const Decomposition dec = lattice();
  Field<double> f(dec, 3, 1, Layout::soa);
  fill(f, dec);
  for (const auto& grid : io_grids(dec)) {
    FieldIo io(dec, {IoType::f64, 3, {"ux", "uy", "uz"}}, {IoFormat::hdf5, grid});
    const std::string stem = dir + "/velocity-" + extents_text(grid, 3);
    io.write_begin(stem, 4, f.view());
    io.write_end();
    Field<double> g(dec, 3, 1, Layout::aos);
    io.read(stem + ".json", g.view());
    bool ok = true;
    for (long i = 0; i < g.local_size(0); ++i)
      for (long j = 0; j < g.local_size(1); ++j)
        for (long k = 0; k < g.local_size(2); ++k)
          for (int c = 0; c < 3; ++c) ok = ok && g(i, j, k, c) == f(i, j, k, c);
    ASSERT_TRUE(everyone(ok)) << extents_text(grid, 3);
    const std::string x = xdmf_text({read_metadata(stem + ".json")});
    EXPECT_NE(x.find("AttributeType=\"Vector\""), std::string::npos);
    // XDMF lists z, y, x: the data of a 10x9x7 lattice are 7 9 10 (x 3 components).
    EXPECT_NE(x.find(io.grid().files() > 1 ? "CollectionType=\"Spatial\"" : "Dimensions=\"7 9 10 3\""),
              std::string::npos)
        << x;
  }
}

// ------------------------------------------------------------------ restart

namespace {

// A case that touches everything the state depends on: walls, a moving
// wall, an obstacle across a periodic boundary, a body force, TRT.
lb::LbConfig restart_case(const std::string& kernel) {
  lb::LbConfig c;
  c.velocity_set = "D3Q19";
  c.size = {12, 10, 8};
  c.periodic = {true, false, true};
  c.tau = 0.7;
  c.collision = lb::Collision::trt;
  c.force = {1e-5, 0, 2e-6};
  c.velocity = {0.01, 0, 0};
  c.moving_wall = "y+";
  c.wall_velocity = {0.02, 0, 0.01};
  lb::Obstacle o;
  o.shape = "sphere";
  o.center = {0, 4, 3};
  o.radius = 2.2;
  c.obstacles.push_back(o);
  c.kernel = lb::parse_choice<lb::Kernel>(kernel, "kernel");
  c.strategy = "direct";
  c.monitor_mode = "nonblocking";
  return c;
}

// The first n ranks of the world (MPI_COMM_NULL elsewhere).
Comm first_ranks(int n) {
  Comm c;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() < n ? 0 : MPI_UNDEFINED, world_rank(), c.out());
  return c;
}

std::vector<std::array<int, 3>> grids_of(const Decomposition& dec) {
  std::vector<std::array<int, 3>> g;
  for (int a = 1; a <= dec.procs(0); ++a)
    for (int b = 1; b <= dec.procs(1); ++b)
      if (dec.procs(0) % a == 0 && dec.procs(1) % b == 0) g.push_back({a, b, 1});
  return g;
}

// Number of I/O grids the leg on n ranks offers (same on every rank).
int grid_count(int n) {
  int count = 0;
  Comm c = first_ranks(n);
  if (c.get() != MPI_COMM_NULL) {
    lb::Solver s(restart_case("aa"), c.get());
    count = static_cast<int>(grids_of(s.decomposition()).size());
  }
  MPI_Bcast(&count, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return count;
}

void restart_across_ranks(long split, const std::string& kernel_b, const std::string& kernel_c) {
  const int n = world_size();
  const int na = std::min(4, n), nb = std::min(2, n), nc = std::min(3, n);
  const long total = 20;
  const std::string dir = scratch_dir("restart-" + std::to_string(split) + kernel_b + kernel_c);
  // The uninterrupted run: 0 -> 20 on na ranks.
  std::vector<double> ref;
  {
    Comm c = first_ranks(na);
    if (c.get() != MPI_COMM_NULL) {
      lb::Solver s(restart_case("aa"), c.get());
      s.advance(total);
      ref = s.global_populations(0);
      // Its checkpoint with every I/O grid reads back to the same state.
      for (const auto& g : grids_of(s.decomposition())) {
        const std::string d = dir + "/a-" + extents_text(g, 3);
        write_checkpoint(s, d, g, 1);
        lb::Solver t(restart_case("pull"), c.get());
        EXPECT_EQ(restart_from(t, find_checkpoint(d)), total);
        const auto back = t.global_populations(0);
        if (world_rank() == 0)
          EXPECT_EQ(0, std::memcmp(back.data(), ref.data(), ref.size() * 8)) << extents_text(g, 3);
      }
    }
  }
  const int gb = grid_count(nb), gc = grid_count(nc);
  for (int ib = 0; ib < gb; ++ib)
    for (int ic = 0; ic < gc; ++ic) {
      const std::string d = dir + "/b" + std::to_string(ib) + "c" + std::to_string(ic);
      {  // 0 -> split on nb ranks, checkpoint with I/O grid ib
        Comm c = first_ranks(nb);
        if (c.get() != MPI_COMM_NULL) {
          lb::Solver s(restart_case(kernel_b), c.get());
          s.advance(split);
          write_checkpoint(s, d, grids_of(s.decomposition())[static_cast<size_t>(ib)], 2);
        }
      }
      MPI_Barrier(MPI_COMM_WORLD);
      std::vector<double> got;
      {  // split -> 20 on nc ranks, through a checkpoint with I/O grid ic
        Comm c = first_ranks(nc);
        if (c.get() != MPI_COMM_NULL) {
          lb::Solver s(restart_case(kernel_c), c.get());
          EXPECT_EQ(restart_from(s, find_checkpoint(d)), split);
          s.advance(total - split);
          const auto g = grids_of(s.decomposition())[static_cast<size_t>(ic)];
          write_checkpoint(s, d + "-end", g, 2);
          lb::Solver t(restart_case("aa"), c.get());
          restart_from(t, find_checkpoint(d + "-end"));
          got = t.global_populations(0);
        }
      }
      bool same = true;
      if (world_rank() == 0)
        same = got.size() == ref.size() && std::memcmp(got.data(), ref.data(), ref.size() * 8) == 0;
      ASSERT_TRUE(everyone(same)) << "0->" << split << " on " << nb << " ranks (" << kernel_b << ", grid "
                                  << ib << ") + " << split << "->20 on " << nc << " ranks (" << kernel_c
                                  << ", grid " << ic << ") differs from 0->20 on " << na << " ranks";
    }
}

}  // namespace

TEST(LbRestart, EvenStepAcrossRankCountsAndIoGrids) { restart_across_ranks(10, "aa", "aa"); }
TEST(LbRestart, OddStepOtherKernels) { restart_across_ranks(7, "pull", "aa"); }

TEST(LbRestart, RefusesADifferentCase) {
  const std::string dir = scratch_dir("refuse");
  lb::Solver s(restart_case("aa"), MPI_COMM_WORLD);
  s.advance(2);
  write_checkpoint(s, dir, {1, 1, 1}, 2);
  auto expect = [&](const lb::LbConfig& c, const std::string& words) {
    lb::Solver t(c, MPI_COMM_WORLD);
    try {
      restart_from(t, find_checkpoint(dir));
      ADD_FAILURE() << "restarted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  lb::LbConfig c = restart_case("aa");
  c.tau = 0.8;
  expect(c, "tau differs: the checkpoint has 0.7, this run has 0.8");
  c = restart_case("aa");
  c.obstacles[0].radius = 3;
  expect(c, "the geometry (obstacles, mask file, walls) differs");
  c = restart_case("aa");
  c.velocity_set = "D3Q27";
  expect(c, "the checkpoint is D3Q19, this run is D3Q27");
  c = restart_case("aa");
  c.size = {12, 10, 9};
  expect(c, "size differs");
  EXPECT_THROW(find_checkpoint(dir + "/none"), InputError);
}

// MPI-IO hints: parsed strictly, passed to the open, recorded in the
// metadata with what the library reported; the data are the same.
TEST(IoHints, ParsedPassedAndRecorded) {
  EXPECT_TRUE(parse_io_hints("none", "h").empty());
  EXPECT_TRUE(parse_io_hints("", "h").empty());
  const IoHints h = parse_io_hints("cb_nodes=1,romio_cb_write=enable", "h");
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0], (std::pair<std::string, std::string>{"cb_nodes", "1"}));
  EXPECT_EQ(io_hints_text(h), "cb_nodes=1,romio_cb_write=enable");
  for (const char* bad : {"cb_nodes", "cb_nodes=", "=1", "Cb_nodes=1", "cb_nodes=1,cb_nodes=2", "a=1,,b=2"})
    EXPECT_THROW(parse_io_hints(bad, "h"), InputError) << bad;

  const std::string dir = scratch_dir("hints");
  const Decomposition dec = lattice();
  IoOptions o;
  o.hints = h;
  Field<double> f(dec, 2, 1);
  fill(f, dec);
  FieldIo io(dec, {IoType::f64, 2, {}}, o);
  io.write_begin(dir + "/q", 1, f.view());
  const IoEvent ev = io.write_end();  // (the event, which write_encoded does not keep)
  EXPECT_TRUE(ev.hints_applied.contains("cb_nodes")) << ev.hints_applied.dump();
  bool same = true;
  if (dec.rank() == 0) {
    const IoMetadata m = read_metadata(dir + "/q.json");
    EXPECT_EQ(m.hints, "cb_nodes=1,romio_cb_write=enable");
    EXPECT_EQ(m.hints_applied, ev.hints_applied);
    same =
        file_bytes(dir + "/q.bin") == expected_file<double>(Box{{0, 0, 0}, global_size}, 2, IoFormat::binary);
  }
  EXPECT_TRUE(everyone(same));
}

namespace {

// field_checksum on any decomposition is the sum, computed here over the
// whole lattice without one, of each element's hash of its global index and
// bits; and one value changed by one ulp on one rank changes it.
TEST(FieldChecksum, EqualsTheWholeLatticeSumOnAnyDecomposition) {
  const Decomposition dec = lattice();
  const int nc = 3;
  Field<double> f(dec, nc, 1);
  for (long i = 0; i < f.local_size(0); ++i)
    for (long j = 0; j < f.local_size(1); ++j)
      for (long k = 0; k < f.local_size(2); ++k)
        for (int c = 0; c < nc; ++c)
          f(i, j, k, c) =
              encode(global_index(dec.offset(0) + i, dec.offset(1) + j, dec.offset(2) + k), c, nc);
  uint64_t want = 0;
  for (long g = 0; g < global_size[0] * global_size[1] * global_size[2]; ++g)
    for (int c = 0; c < nc; ++c) {
      const double v = encode(g, c, nc);
      want += splitmix64(static_cast<uint64_t>(g * nc + c) ^ splitmix64(std::bit_cast<uint64_t>(v)));
    }
  EXPECT_EQ(field_checksum(dec, f.view()), want);
  if (dec.rank() == dec.size() - 1) f(0, 0, 0, 1) = std::nextafter(f(0, 0, 0, 1), 1e300);
  EXPECT_NE(field_checksum(dec, f.view()), want);
}

}  // namespace
