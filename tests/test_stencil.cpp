// The 2-D diffusion application: every strategy against the serial
// reference, bit for bit, on every grid the rank count allows; one step
// against a direct evaluation of the 13-point biharmonic formula; the serial
// halo copies and the .npy writer against a global-index encoding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <unistd.h>

#include "haloex/core/mpi.hpp"
#include "haloex/io/npy.hpp"
#include "haloex/stencil/diffusion.hpp"
#include "world.hpp"

namespace haloex::test {
namespace {

using stencil::Diffusion;
using stencil::DiffusionConfig;

// The interior of every rank's field in global order [x][y][z] on rank 0
// (gathered by hand from the decomposition's offsets, not with the writer).
template <class T>
std::vector<T> gather_global(const Diffusion<T>& app) {
  const Decomposition& dec = app.decomposition();
  const DiffusionConfig& c = app.config();
  const Field<T>& f = app.field();
  std::vector<T> mine;
  for (long i = 0; i < dec.local_size(0); ++i)
    for (long j = 0; j < dec.local_size(1); ++j)
      for (long k = 0; k < c.nz; ++k) mine.push_back(f(i, j, 0, static_cast<int>(k)));
  const long box[4] = {dec.offset(0), dec.offset(1), dec.local_size(0), dec.local_size(1)};
  const int n = dec.size();
  std::vector<long> boxes(4 * static_cast<size_t>(n));
  MPI_Gather(box, 4, MPI_LONG, boxes.data(), 4, MPI_LONG, 0, dec.comm());
  std::vector<int> counts(n), displs(n);
  for (int r = 0; r < n; ++r) {
    counts[r] = static_cast<int>(boxes[4 * r + 2] * boxes[4 * r + 3] * c.nz);
    displs[r] = r ? displs[r - 1] + counts[r - 1] : 0;
  }
  std::vector<T> all(static_cast<size_t>(c.nx * c.ny * c.nz));
  std::vector<T> flat(all.size());
  const MPI_Datatype t = sizeof(T) == 8 ? MPI_DOUBLE : MPI_FLOAT;
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), t, flat.data(), counts.data(), displs.data(), t, 0,
              dec.comm());
  if (dec.rank() != 0) return {};
  for (int r = 0; r < n; ++r) {
    const T* src = flat.data() + displs[r];
    for (long i = 0; i < boxes[4 * r + 2]; ++i)
      for (long j = 0; j < boxes[4 * r + 3]; ++j)
        for (long k = 0; k < c.nz; ++k)
          all[static_cast<size_t>(((boxes[4 * r] + i) * c.ny + boxes[4 * r + 1] + j) * c.nz + k)] = *src++;
  }
  return all;
}

// The serial reference on rank 0 alone.
template <class T>
std::vector<T> serial_result(DiffusionConfig cfg, long iterations) {
  if (world_rank() != 0) return {};
  cfg.strategy = "serial";
  cfg.procs = {0, 0};
  Diffusion<T> app(MPI_COMM_SELF, cfg);
  app.run(iterations);
  return gather_global(app);
}

// Whether red-black must refuse this grid: an odd number of ranks along a
// dimension that has more than one (computed from MPI_Dims_create here).
bool red_black_refuses(std::array<int, 2> procs) {
  int dims[2] = {procs[0], procs[1]};
  MPI_Dims_create(world_size(), 2, dims);
  return (dims[0] > 1 && dims[0] % 2) || (dims[1] > 1 && dims[1] % 2);
}

// Every test rank agrees on a failure count so that no rank leaves a
// collective sequence early.
long total(long mine) {
  long all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

template <class T>
void expect_bit_identical(const std::string& strategy, std::array<int, 2> procs, long nx, long ny, long nz,
                          long iterations) {
  DiffusionConfig cfg;
  cfg.nx = nx;
  cfg.ny = ny;
  cfg.nz = nz;
  cfg.strategy = strategy;
  cfg.procs = procs;
  const std::vector<T> want = serial_result<T>(cfg, iterations);
  if (strategy == "red-black" && red_black_refuses(procs)) {
    try {
      Diffusion<T> app(MPI_COMM_WORLD, cfg);
      ADD_FAILURE() << "red-black accepted an odd process grid";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("red-black needs an even number of ranks"), std::string::npos)
          << e.what();
    }
    return;
  }
  Diffusion<T> app(MPI_COMM_WORLD, cfg);
  app.run(iterations);
  const std::vector<T> got = gather_global(app);
  long wrong = 0;
  if (world_rank() == 0) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t e = 0; e < got.size(); ++e)
      if (std::memcmp(&got[e], &want[e], sizeof(T)) != 0) {  // NOLINT(bugprone-suspicious-memory-comparison)
        if (wrong < 3)
          ADD_FAILURE() << strategy << " grid " << app.decomposition().describe() << ": element " << e
                        << " is " << got[e] << ", serial has " << want[e];
        ++wrong;
      }
  }
  EXPECT_EQ(total(wrong), 0) << strategy;
}

class StencilBitIdentical : public ::testing::TestWithParam<std::string> {};

// 26 x 22 splits unevenly over every rank count from 1 to 8; the grids are
// MPI_Dims_create's choice and the two one-dimensional splits.
TEST_P(StencilBitIdentical, EveryGridMatchesSerial) {
  const int n = world_size();
  for (std::array<int, 2> procs : {std::array<int, 2>{0, 0}, {n, 1}, {1, n}})
    expect_bit_identical<double>(GetParam(), procs, 26, 22, 5, 6);
}

TEST_P(StencilBitIdentical, SinglePrecisionAndOneColumn) {
  expect_bit_identical<float>(GetParam(), {0, 0}, 23, 18, 3, 4);
  expect_bit_identical<double>(GetParam(), {0, 0}, 17, 16, 1, 3);
}

INSTANTIATE_TEST_SUITE_P(AllStrategies, StencilBitIdentical, ::testing::ValuesIn(strategy_names()),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& ch : s)
                             if (ch == '-') ch = '_';
                           return s;
                         });

// A reproducible value in [0, 1) per global (x, y, z), independent of ranks.
double random_value(long x, long y, long z) {
  std::uint64_t h = static_cast<std::uint64_t>((x * 1000003L + y) * 1009L + z) + 0x9E3779B97F4A7C15ULL;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return static_cast<double>(h >> 11) / 9007199254740992.0;
}

// One step on a random field against the biharmonic stencil written out:
// lap(lap u) = 20 u - 8 (4 nearest) + 2 (4 diagonal) + (4 two away).
TEST(StencilKernel, OneStepIsTheThirteenPointBiharmonic) {
  const long nx = 19, ny = 14, nz = 6;
  for (const std::string& strategy : {"staged", "direct", "serial"}) {
    if (strategy == "serial" && world_size() > 1) continue;
    DiffusionConfig cfg;
    cfg.nx = nx;
    cfg.ny = ny;
    cfg.nz = nz;
    cfg.strategy = strategy;
    Diffusion<double> app(MPI_COMM_WORLD, cfg);
    const Decomposition& dec = app.decomposition();
    Field<double>& f = app.field();
    for (long i = 0; i < dec.local_size(0); ++i)
      for (long j = 0; j < dec.local_size(1); ++j)
        for (int k = 0; k < nz; ++k) f(i, j, 0, k) = random_value(dec.offset(0) + i, dec.offset(1) + j, k);
    app.run(1);
    auto u = [&](long x, long y, long z) { return random_value((x % nx + nx) % nx, (y % ny + ny) % ny, z); };
    double worst = 0;
    for (long i = 0; i < dec.local_size(0); ++i)
      for (long j = 0; j < dec.local_size(1); ++j)
        for (int k = 0; k < nz; ++k) {
          const long x = dec.offset(0) + i, y = dec.offset(1) + j;
          const double near = u(x - 1, y, k) + u(x + 1, y, k) + u(x, y - 1, k) + u(x, y + 1, k);
          const double diag =
              u(x - 1, y - 1, k) + u(x - 1, y + 1, k) + u(x + 1, y - 1, k) + u(x + 1, y + 1, k);
          const double far = u(x - 2, y, k) + u(x + 2, y, k) + u(x, y - 2, k) + u(x, y + 2, k);
          const double want = u(x, y, k) - (20 * u(x, y, k) - 8 * near + 2 * diag + far) / 32;
          worst = std::max(worst, std::abs(app.field()(i, j, 0, k) - want));
        }
    double all = 0;
    MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_LT(all, 1e-13) << strategy;
  }
}

// Initial block and conservation: the 13-point operator sums to zero, so the
// total stays the block's volume to rounding. The block spans [n/4, 3n/4):
// 30 -> [7, 22), 20 -> [5, 15), 10 -> [2, 7) (n - n/4 would give 23 and 8).
TEST(StencilDiffusion, StartsWithTheCentralBlockAndConservesTheSum) {
  DiffusionConfig cfg;
  cfg.nx = 30;
  cfg.ny = 20;
  cfg.nz = 10;
  Diffusion<double> app(MPI_COMM_WORLD, cfg);
  auto sum = [&] {
    double s = 0, all = 0;
    const Decomposition& dec = app.decomposition();
    for (long i = 0; i < dec.local_size(0); ++i)
      for (long j = 0; j < dec.local_size(1); ++j)
        for (int k = 0; k < cfg.nz; ++k) s += app.field()(i, j, 0, k);
    MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all;
  };
  const double block = 15 * 10 * 5;
  EXPECT_EQ(sum(), block);
  app.run(20);
  EXPECT_NEAR(sum(), block, 1e-9);
  const stencil::DiffusionTimes& t = app.times();
  EXPECT_EQ(t.iterations, 20);
  EXPECT_GE(t.total_s + 1e-9, t.halo_s + t.work_s);  // the run encloses every iteration
}

TEST(StencilDiffusion, RefusesBadConfigurations) {
  DiffusionConfig cfg;
  cfg.nz = 0;
  EXPECT_THROW(Diffusion<double>(MPI_COMM_WORLD, cfg), InputError);
  cfg.nz = 4;
  cfg.strategy = "serial";
  if (world_size() > 1) EXPECT_THROW(Diffusion<double>(MPI_COMM_WORLD, cfg), InputError);
  cfg.strategy = "staged";
  cfg.nx = 2 * world_size() - 1;  // some rank gets 1 site along x; a halo of 2 needs 2
  cfg.procs = {world_size(), 1};
  if (world_size() > 1) {
    try {
      Diffusion<double> app(MPI_COMM_WORLD, cfg);
      ADD_FAILURE() << "a 1-site subdomain was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("halo is 2 sites wide"), std::string::npos) << e.what();
    }
  }
}

// The serial halo copies against the global-index encoding, corners included.
TEST(StencilSerialHalo, PlainCopiesFillThePeriodicImage) {
  DecompositionSpec spec;
  spec.ndim = 2;
  spec.global = {7, 5, 1};
  Decomposition dec(MPI_COMM_SELF, spec);
  Field<double> f(dec, 3, stencil::halo_width);
  auto value = [](long x, long y, int k) { return 1000.0 * x + 10.0 * y + k; };
  for (long i = 0; i < 7; ++i)
    for (long j = 0; j < 5; ++j)
      for (int k = 0; k < 3; ++k) f(i, j, 0, k) = value(i, j, k);
  stencil::fill_periodic_halo(f.data(), stencil::Columns::of(f.shape()));
  for (long i = -2; i < 9; ++i)
    for (long j = -2; j < 7; ++j)
      for (int k = 0; k < 3; ++k)
        ASSERT_EQ(f(i, j, 0, k), value((i + 7) % 7, (j + 5) % 5, k)) << i << "," << j;
}

// Reads the data of a .npy file as doubles or floats widened to double.
std::vector<double> read_npy_values(const std::string& path, const NpyInfo& info) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(info.data_offset));
  size_t n = 1;
  for (long s : info.shape) n *= static_cast<size_t>(s);
  std::vector<double> out(n);
  for (size_t e = 0; e < n; ++e) {
    if (info.type == ElementType::f64) {
      in.read(reinterpret_cast<char*>(&out[e]), 8);
    } else {
      float x = 0;
      in.read(reinterpret_cast<char*>(&x), 4);
      out[e] = x;
    }
  }
  return out;
}

std::string temp_name(const std::string& stem) {
  // Rank 0's pid names the file for every rank.
  long pid = static_cast<long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(pid) + ".npy")).string();
}

// Every rank writes its block; the file must hold each (site, component) at
// its global C-order position, for 2-D and 3-D, AoS and SoA, double and float.
TEST(Npy, WriterPutsEveryValueAtItsGlobalIndex) {
  struct Case {
    int ndim;
    std::array<long, 3> global;
    int ncomp;
    Layout layout;
    bool single;
  };
  for (const Case& c :
       {Case{2, {13, 10, 1}, 3, Layout::aos, false}, Case{3, {9, 7, 5}, 2, Layout::soa, false},
        Case{3, {8, 9, 10}, 1, Layout::aos, true}}) {
    DecompositionSpec spec;
    spec.ndim = c.ndim;
    spec.global = c.global;
    Decomposition dec(MPI_COMM_WORLD, spec);
    auto value = [&](long x, long y, long z, int k) {
      return static_cast<double>(((x * c.global[1] + y) * c.global[2] + z) * c.ncomp + k) + 0.5;
    };
    const std::string path = temp_name("haloex-npy-test-" + std::to_string(c.ndim) + std::to_string(c.ncomp));
    std::vector<double> got;
    NpyInfo info;
    if (c.single) {
      Field<float> f(dec, c.ncomp, 1, c.layout);
      for (long i = 0; i < dec.local_size(0); ++i)
        for (long j = 0; j < dec.local_size(1); ++j)
          for (long k = 0; k < dec.local_size(2); ++k)
            for (int q = 0; q < c.ncomp; ++q)
              f(i, j, k, q) =
                  static_cast<float>(value(dec.offset(0) + i, dec.offset(1) + j, dec.offset(2) + k, q));
      write_npy(path, dec, f.view());
    } else {
      Field<double> f(dec, c.ncomp, 1, c.layout);
      for (long i = 0; i < dec.local_size(0); ++i)
        for (long j = 0; j < dec.local_size(1); ++j)
          for (long k = 0; k < dec.local_size(2); ++k)
            for (int q = 0; q < c.ncomp; ++q)
              f(i, j, k, q) = value(dec.offset(0) + i, dec.offset(1) + j, dec.offset(2) + k, q);
      write_npy(path, dec, f.view());
    }
    long wrong = 0;
    if (world_rank() == 0) {
      info = read_npy_info(path);
      EXPECT_EQ(info.data_offset % 64, 0u);
      EXPECT_EQ(info.type, c.single ? ElementType::f32 : ElementType::f64);
      std::vector<long> shape(c.global.begin(), c.global.begin() + c.ndim);
      shape.push_back(c.ncomp);
      EXPECT_EQ(info.shape, shape);
      got = read_npy_values(path, info);
      for (size_t e = 0; e < got.size(); ++e)
        if (got[e] != static_cast<double>(e) + 0.5 && wrong++ < 3)  // value() is the C-order index + 0.5
          ADD_FAILURE() << "element " << e << " holds " << got[e];
      EXPECT_FALSE(std::filesystem::exists(path + ".part"));
      std::filesystem::remove(path);
    }
    EXPECT_EQ(total(wrong), 0) << c.ndim << "-D ncomp " << c.ncomp;
  }
}

// The bytes numpy.save writes for np.zeros((4, 3, 2)) and for a float32
// vector of 5: magic, version 1.0, length 118, dictionary padded to 128.
TEST(Npy, HeaderIsWhatNumpyWrites) {
  auto numpy = [](const std::string& dict) {
    std::string h("\x93NUMPY\x01\x00\x76\x00", 10);
    h += dict;
    h.append(127 - h.size(), ' ');
    return h + "\n";
  };
  EXPECT_EQ(npy_header(ElementType::f64, {4, 3, 2}),
            numpy("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 3, 2), }"));
  EXPECT_EQ(npy_header(ElementType::f32, {5}),
            numpy("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }"));
}

TEST(Npy, ReaderRefusesTruncatedAndForeignFiles) {
  if (world_rank() != 0) return;
  const std::string path = (std::filesystem::temp_directory_path() / "haloex-npy-bad.npy").string();
  {
    std::ofstream out(path, std::ios::binary);
    const std::string h = npy_header(ElementType::f64, {10, 10});
    out << h << std::string(799, '\0');  // one byte short of 800
  }
  try {
    read_npy_info(path);
    ADD_FAILURE() << "a truncated file was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  {
    std::ofstream out(path, std::ios::binary);
    out << "P6 not numpy at all";
  }
  EXPECT_THROW(read_npy_info(path), InputError);
  std::filesystem::remove(path);
  EXPECT_THROW(read_npy_info(path), InputError);
}

}  // namespace
}  // namespace haloex::test
