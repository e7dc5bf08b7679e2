// Tests of the LB solver against independent expectations: lattice moments,
// analytic flows (shear-wave decay, Poiseuille, Couette), conservation, and a
// serial run on MPI_COMM_SELF that every parallel configuration must match to
// the last bit.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numbers>
#include <random>
#include <set>
#include <sstream>

#include "haloex/core/exact_sum.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/lb/solver.hpp"
#include "world.hpp"

using namespace haloex;
using namespace haloex::lb;
using haloex::test::world_rank;

namespace {

// Every rank agrees that a condition holds on rank 0 (rank 0 checked it).
bool bcast_ok(bool ok) {
  int v = ok ? 1 : 0;
  MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return v == 1;
}

// x-velocity per site of a global population array (u = (sum f c + F/2)/rho).
std::vector<double> velocity_x(const std::vector<double>& f, const VelocitySet& vs, double force_x) {
  std::vector<double> u;
  for (size_t s = 0; s < f.size(); s += static_cast<size_t>(vs.q)) {
    double rho = 0, j = 0;
    for (int i = 0; i < vs.q; ++i) {
      rho += f[s + static_cast<size_t>(i)];
      j += vs.c[i][0] * f[s + static_cast<size_t>(i)];
    }
    u.push_back(rho > 0 ? (j + 0.5 * force_x) / rho : 0.0);
  }
  return u;
}

LbConfig channel(long ny, const std::string& collision, double tau) {
  LbConfig c;
  c.velocity_set = "D2Q9";
  c.size = {4, ny, 1};
  c.periodic = {true, false, true};
  c.collision = parse_choice<Collision>(collision, "collision");
  c.tau = tau;
  c.monitor_mode = "off";
  return c;
}

// Relative L2 error of u_x(y) (x-averaged at x = 0) against an expected profile.
template <class F>
double profile_error(Solver& s, double force_x, F expect) {
  const auto f = s.global_populations(0);
  double err = 0;
  if (world_rank() == 0) {
    const long ny = s.config().size[1];
    const auto u = velocity_x(f, s.velocities(), force_x);
    double num = 0, den = 0;
    for (long y = 0; y < ny; ++y) {
      const double e = expect(static_cast<double>(y));
      num += (u[static_cast<size_t>(y)] - e) * (u[static_cast<size_t>(y)] - e);
      den += e * e;
    }
    err = std::sqrt(num / den);
  }
  MPI_Bcast(&err, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return err;
}

}  // namespace

// ---------------------------------------------------------------- lattices

TEST(VelocitySets, IsotropyMoments) {
  for (const std::string& name : velocity_set_names()) {
    const VelocitySet v = velocity_set(name);
    const int nd = v.ndim;
    double w = 0;
    for (int i = 0; i < v.q; ++i) {
      w += v.w[i];
      EXPECT_EQ(v.c[v.opp[i]], opposite(v.c[i])) << name;
    }
    EXPECT_NEAR(w, 1.0, 1e-15) << name;
    auto moment = [&](std::initializer_list<int> dims) {
      double m = 0;
      for (int i = 0; i < v.q; ++i) {
        double p = v.w[i];
        for (int d : dims) p *= v.c[i][d];
        m += p;
      }
      return m;
    };
    for (int a = 0; a < nd; ++a) {
      EXPECT_NEAR(moment({a}), 0, 1e-15) << name;
      for (int b = 0; b < nd; ++b) {
        EXPECT_NEAR(moment({a, b}), a == b ? cs2 : 0, 1e-15) << name;
        for (int c = 0; c < nd; ++c) {
          EXPECT_NEAR(moment({a, b, c}), 0, 1e-15) << name;
          for (int d = 0; d < nd; ++d) {
            const double iso = cs2 * cs2 * ((a == b && c == d) + (a == c && b == d) + (a == d && b == c));
            EXPECT_NEAR(moment({a, b, c, d}), iso, 1e-15) << name << " " << a << b << c << d;
          }
        }
      }
    }
  }
}

TEST(ExactSum, OrderAndSplitIndependent) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> ex(-60, 60);
  std::vector<double> v;
  v.reserve(20001);
  for (int i = 0; i < 20000; ++i) v.push_back(std::ldexp(mant(rng), ex(rng)));
  v.push_back(1e300);
  v.push_back(-1e300);
  v.push_back(4.9e-324);
  ExactSum a;
  for (double x : v) a.add(x);
  std::shuffle(v.begin(), v.end(), rng);
  ExactSum b, c;
  for (size_t i = 0; i < v.size(); ++i) (i % 3 ? b : c).add(v[i]);
  b += c;
  EXPECT_EQ(a.value(), b.value());
  // Reference: the +-1e300 pair cancels exactly; sum the rest by magnitude
  // in long double.
  long double ref = 0;
  std::sort(v.begin(), v.end(), [](double x, double y) { return std::fabs(x) < std::fabs(y); });
  for (double x : v)
    if (std::fabs(x) < 1e299) ref += x;
  EXPECT_NEAR(a.value(), static_cast<double>(ref), 1e-12 * std::fabs(static_cast<double>(ref)));
  ExactSum n;
  n.add(-3.25);
  n.add(1.0);
  EXPECT_EQ(n.value(), -2.25);
  ExactSum cancel;
  cancel.add(0.1);
  cancel.add(1e20);
  cancel.add(-1e20);
  EXPECT_EQ(cancel.value(), 0.1);  // a plain double sum gives 0
}

// ---------------------------------------------------------------- input

TEST(LbConfig, ParsesAndRejects) {
  const LbConfig c =
      parse_lb_config("[lattice]\nsize = [8, 6, 4]\n[physics]\ntau = 0.9\n[run]\nstrategy = \"direct\"\n",
                      "t.toml", {"run.steps=7", "run.overlap=interior"});
  EXPECT_EQ(c.size[1], 6);
  EXPECT_EQ(c.steps, 7);
  EXPECT_EQ(c.overlap, Overlap::interior);
  EXPECT_EQ(c.strategy, "direct");
  auto msg = [](const std::string& text, const std::vector<std::string>& sets = {}) {
    try {
      parse_lb_config(text, "t.toml", sets);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("[physics]\ntau = 0.5\n").find("tau = 0.500000 must be > 1/2"), std::string::npos);
  EXPECT_NE(msg("[physics]\ntua = 0.7\n").find("physics.tua: unknown key"), std::string::npos);
  EXPECT_NE(msg("[phisics]\ntau = 0.7\n").find("unknown section [phisics]"), std::string::npos);
  EXPECT_NE(msg("[run]\nsteps = \"many\"\n").find("run.steps: expected an integer"), std::string::npos);
  EXPECT_NE(msg("[run]\nkernel = \"fast\"\n").find("run.kernel must be \"aa\" or \"pull\", got \"fast\""),
            std::string::npos);
  EXPECT_NE(
      msg("[run]\nschedule = \"dynamic\"\n").find("run.schedule must be \"worksharing\" or \"taskloop\""),
      std::string::npos);
  EXPECT_NE(msg("[run]\nhalo = \"auto\"\n").find("is now called \"reduced\""), std::string::npos);
  EXPECT_NE(msg("[physics]\ncollision = \"mrt\"\n").find("physics.collision must be \"bgk\" or \"trt\""),
            std::string::npos);
  EXPECT_NE(msg("[boundary]\nmoving_wall = \"y+\"\n").find("lies on a periodic dimension"),
            std::string::npos);
  EXPECT_NE(msg("[lattice\n").find("t.toml:1"), std::string::npos);
  EXPECT_NE(msg("", {"run.steps"}).find("expected key=value"), std::string::npos);
  EXPECT_NE(msg("", {"physics.tau=0.2"}).find("must be > 1/2"), std::string::npos);
  EXPECT_NE(msg("[run]\nfield_memory = \"disk\"\n").find("field memory 'disk' is not one of"),
            std::string::npos);
  EXPECT_NE(
      msg("[run]\nfield_memory = \"node\"\nhalo = \"full\"\noverlap = \"interior\"\n").find("use halo = "),
      std::string::npos);
  EXPECT_EQ(msg("[run]\nfield_memory = \"node\"\nhalo = \"full\"\n"), "no error");
  EXPECT_NE(msg("[run]\nauto_recheck = -5\n").find("run.auto_recheck must be >= 0"), std::string::npos);
  EXPECT_EQ(parse_lb_config("", "t.toml", {"run.auto_recheck=100"}).auto_recheck, 100);
  // The checks of the key table name their key and, for a choice, the choices.
  EXPECT_EQ(msg("", {"init.type=swirl"}),
            "t.toml: init.type must be \"uniform\" or \"shear_wave\", got \"swirl\"");
  EXPECT_EQ(msg("", {"monitor.mode=loud"}),
            "t.toml: monitor.mode must be \"nonblocking\", \"blocking\" or \"off\", got \"loud\"");
  EXPECT_EQ(msg("", {"run.sweep=diagonal"}),
            "t.toml: run.sweep must be \"rows\" or \"flat\", got \"diagonal\"");
  EXPECT_EQ(msg("", {"monitor.every=0"}), "t.toml: monitor.every must be >= 1");
  EXPECT_EQ(msg("", {"checkpoint.keep=0"}), "t.toml: checkpoint.keep must be >= 1");
  EXPECT_EQ(msg("", {"output.fields=[\"density\", \"vorticity\"]"}),
            "t.toml: output.fields: unknown field \"vorticity\" (valid: density, velocity, mask)");
  EXPECT_EQ(msg("", {"lattice.velocity_set=D3Q7"}).rfind("t.toml: lattice.velocity_set: ", 0), 0u);
}

namespace {

// One key of the reference (`haloex lb --keys`): its section, its name and
// its whole line.
struct ReferenceKey {
  std::string section, key, line;
};

std::vector<ReferenceKey> reference_keys() {
  std::vector<ReferenceKey> out;
  std::istringstream ref(lb_config_reference());
  std::string line, section;
  for (std::getline(ref, line); ref; std::getline(ref, line)) {
    if (line.empty()) continue;
    if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    std::string key;
    std::istringstream(line) >> key;
    out.push_back({section, key, line});
  }
  return out;
}

}  // namespace

// Every key the reference lists, given a value of a type no key takes (an
// inline table), is refused with a message that names it; every key that
// does not take free text refuses a word as well. Free text: paths (checked
// where they are used) and the strategy name (checked against the registry
// when the solver starts).
TEST(LbConfig, EveryKeyRefusesWrongTypes) {
  const std::set<std::string> free_text = {"geometry.mask_file", "run.strategy", "output.dir",
                                           "output.summary", "checkpoint.dir"};
  int keys = 0;
  for (const ReferenceKey& k : reference_keys()) {
    const std::string name = k.section + "." + k.key;
    ++keys;
    for (const std::string bad : {"{ a = 1 }", "\"notanumber\""}) {
      if (bad[0] == '"' && free_text.count(name)) continue;
      std::string m = "no error";
      try {
        parse_lb_config("[lattice]\nsize = [8, 8, 8]\n", "t.toml", {name + "=" + bad});
      } catch (const InputError& e) {
        m = e.what();
      }
      EXPECT_NE(m.find(name), std::string::npos) << name << " = " << bad << ": " << m;
    }
  }
  EXPECT_GE(keys, 30);
}

// The defaults are written once, in LbConfig's initialisers; the reference
// (`haloex lb --help-keys`) derives its "(default: X)" from them. Each shown
// default, set alone in a case file, must give the default configuration.
TEST(LbConfig, EveryShownDefaultIsTheDefault) {
  const nlohmann::json want = config_json(LbConfig{});
  int shown = 0;
  for (const ReferenceKey& k : reference_keys()) {
    const std::string& line = k.line;
    const auto at = line.rfind(" (default: ");
    if (at == std::string::npos) continue;
    const std::string value = line.substr(at + 11, line.size() - at - 12);
    ++shown;
    const std::string text = "[" + k.section + "]\n" + k.key + " = " + value + "\n";
    try {
      EXPECT_EQ(config_json(parse_lb_config(text, "t.toml")), want) << text;
    } catch (const InputError& e) {
      ADD_FAILURE() << text << e.what();
    }
  }
  EXPECT_GE(shown, 35);
}

// Integers that an int holds are refused above its range, not wrapped.
TEST(LbConfig, IntegersBeyondIntAreRefused) {
  for (const std::string set : {"checkpoint.keep=4294967297", "lattice.procs=[4294967298, 1, 1]",
                                "output.io_grid=[1, 4294967297, 1]"}) {
    std::string m = "no error";
    try {
      parse_lb_config("[lattice]\nsize = [8, 8, 8]\n", "t.toml", {set});
    } catch (const InputError& e) {
      m = e.what();
    }
    EXPECT_NE(m.find("expected an integer of at most 2147483647"), std::string::npos) << set << ": " << m;
  }
}

TEST(LbConfig, EmptyCaseAndObstaclesOutsideAreRefused) {
  auto msg = [](const std::string& text) {
    try {
      parse_lb_config(text, "t.toml", {});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("").find("t.toml: the case has no settings"), std::string::npos);
  EXPECT_NE(msg("# only a comment\n").find("the case has no settings"), std::string::npos);
  const std::string lattice = "[lattice]\nsize = [16, 12, 8]\n";
  auto obstacle = [&](const std::string& o) { return msg(lattice + "[[geometry.obstacle]]\n" + o); };
  // Independent expectations: the nearest site to (20, 6, 4) is (15, 6, 4),
  // 5 away; to (-2, -2, 9) it is (0, 0, 7), sqrt(12) away.
  EXPECT_EQ(obstacle("shape = \"sphere\"\ncenter = [20, 6, 4]\nradius = 5\n"), "no error");
  EXPECT_NE(obstacle("shape = \"sphere\"\ncenter = [20, 6, 4]\nradius = 4.9\n")
                .find("geometry.obstacle[0]: the sphere covers no site"),
            std::string::npos);
  EXPECT_EQ(obstacle("shape = \"sphere\"\ncenter = [-2, -2, 9]\nradius = 3.5\n"), "no error");
  EXPECT_NE(obstacle("shape = \"sphere\"\ncenter = [-2, -2, 9]\nradius = 3.4\n").find("covers no site"),
            std::string::npos);
  // A cylinder along z ignores z; one along x ignores x.
  EXPECT_EQ(obstacle("shape = \"cylinder\"\naxis = \"z\"\ncenter = [8, 6, 100]\nradius = 2\n"), "no error");
  EXPECT_NE(obstacle("shape = \"cylinder\"\naxis = \"x\"\ncenter = [8, 6, 100]\nradius = 2\n")
                .find("covers no site"),
            std::string::npos);
  EXPECT_EQ(obstacle("shape = \"box\"\nlo = [15, 0, 0]\nhi = [40, 1, 1]\n"), "no error");
  EXPECT_NE(obstacle("shape = \"box\"\nlo = [16, 0, 0]\nhi = [40, 1, 1]\n").find("the box covers no site"),
            std::string::npos);
  EXPECT_NE(obstacle("shape = \"box\"\nlo = [0, -5, 0]\nhi = [4, 0, 8]\n").find("the box covers no site"),
            std::string::npos);
  EXPECT_NE(obstacle("shape = \"sphere\"\ncenter = [8, 6, 4]\nradius = 0\n")
                .find("geometry.obstacle[0].radius: must be > 0"),
            std::string::npos);
}

TEST(LbConfig, MaskFileOfWrongSizeIsRefused) {
  const std::string path = "lb_mask_" + std::to_string(world_rank()) + ".raw";
  {
    std::ofstream out(path, std::ios::binary);
    std::vector<char> bytes(8 * 6 * 4 - 1, 0);
    out.write(bytes.data(), static_cast<long>(bytes.size()));
  }
  LbConfig c;
  c.size = {8, 6, 4};
  c.mask_file = path;
  try {
    Solver s(c, MPI_COMM_WORLD);
    FAIL() << "a mask of the wrong size was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 191 bytes but the lattice 8x6x4 needs 192"), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

TEST(LbConfig, UnknownStrategyIsRefused) {
  LbConfig c;
  c.size = {8, 8, 8};
  c.strategy = "fastest";
  EXPECT_THROW(Solver(c, MPI_COMM_WORLD), InputError);
}

TEST(Monitor, StopsOnMachLimitNamingTheStep) {
  for (const char* mode : {"nonblocking", "blocking"}) {
    LbConfig c;
    c.size = {8, 8, 8};
    c.velocity = {0.3, 0, 0};  // Mach 0.52
    c.monitor_mode = mode;
    Solver s(c, MPI_COMM_WORLD);
    try {
      s.advance(5);
      FAIL() << "no error at Mach 0.52";
    } catch (const UnstableRun& e) {
      EXPECT_NE(std::string(e.what()).find("step 0: Mach number"), std::string::npos) << e.what();
    }
  }
}

// ---------------------------------------------------------------- physics

// Shear wave u_x = A sin(k y): the amplitude decays as exp(-nu k^2 t).
// The fitted viscosity's error is a k^2 (lattice) effect, so it falls 4x when
// the resolution doubles; at ny = 64 it is well below 1e-3.
TEST(LbPhysics, ShearWaveViscosity) {
  auto fitted = [](long ny) {
    LbConfig c;
    c.velocity_set = "D2Q9";
    c.size = {4, ny, 1};
    c.init = "shear_wave";
    c.amplitude = 1e-3;
    c.tau = 0.8;
    c.monitor_mode = "off";
    Solver s(c, MPI_COMM_WORLD);
    const double k = 2 * std::numbers::pi / static_cast<double>(ny);
    auto amplitude = [&] {
      const auto f = s.global_populations(0);
      double a = 0;
      if (world_rank() == 0) {
        const auto u = velocity_x(f, s.velocities(), 0);
        for (long y = 0; y < ny; ++y) a += u[static_cast<size_t>(y)] * std::sin(k * static_cast<double>(y));
        a *= 2.0 / static_cast<double>(ny);
      }
      MPI_Bcast(&a, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      return a;
    };
    const long t1 = ny * ny / 16, t2 = t1 + ny * ny / 4;
    s.advance(t1);
    const double a1 = amplitude();
    s.advance(t2 - t1);
    const double a2 = amplitude();
    return std::log(a1 / a2) / (k * k * static_cast<double>(t2 - t1));
  };
  const double nu = cs2 * (0.8 - 0.5);
  const double e32 = std::fabs(fitted(32) / nu - 1), e64 = std::fabs(fitted(64) / nu - 1);
  EXPECT_LT(e64, 1e-3);
  EXPECT_GT(e32 / e64, 3.0) << "errors " << e32 << " " << e64;
  EXPECT_LT(e32 / e64, 5.0) << "errors " << e32 << " " << e64;
}

// Poiseuille: with TRT and Lambda = 3/16 the half-way wall sits exactly
// half-way, so the steady profile is the parabola to round-off; BGK at tau = 1
// puts the wall off by O(1/ny^2) and converges at second order.
TEST(LbPhysics, PoiseuilleExactWithTrtSecondOrderWithBgk) {
  const double F = 1e-6;
  auto run = [&](long ny, const std::string& coll, double tau) {
    LbConfig c = channel(ny, coll, tau);
    c.force = {F, 0, 0};
    Solver s(c, MPI_COMM_WORLD);
    const double nu = cs2 * (tau - 0.5);
    s.advance(
        static_cast<long>(20.0 * static_cast<double>(ny * ny) / (std::numbers::pi * std::numbers::pi * nu)));
    const double n = static_cast<double>(ny);
    return profile_error(s, F, [&](double y) { return F / (2 * nu) * (y + 0.5) * (n - 0.5 - y); });
  };
  EXPECT_LT(run(16, "trt", 1.0), 1e-6);
  const double e8 = run(8, "bgk", 1.0), e16 = run(16, "bgk", 1.0);
  EXPECT_GT(e8, 1e-4);  // BGK's wall really is off
  EXPECT_GT(e8 / e16, 3.5) << e8 << " " << e16;
  EXPECT_LT(e8 / e16, 4.5) << e8 << " " << e16;
}

// Couette: the top wall moves at U, the bottom one rests: u_x = U (y + 1/2)/ny.
TEST(LbPhysics, CouetteMovingWall) {
  for (const char* kernel : {"aa", "pull"}) {
    LbConfig c = channel(16, "trt", 0.9);
    c.moving_wall = "y+";
    c.wall_velocity = {0.01, 0, 0};
    c.kernel = parse_choice<Kernel>(kernel, "kernel");
    Solver s(c, MPI_COMM_WORLD);
    s.advance(6000);
    EXPECT_LT(profile_error(s, 0, [](double y) { return 0.01 * (y + 0.5) / 16.0; }), 1e-6) << kernel;
  }
}

// Mass is conserved to round-off over 1000 steps, periodic and with walls and
// an obstacle.
TEST(LbPhysics, MassConserved) {
  for (bool walls : {false, true}) {
    LbConfig c;
    c.size = {12, 10, 8};
    c.velocity = {0.03, 0.01, -0.02};
    c.tau = 0.7;
    if (walls) {
      c.periodic = {true, false, false};
      Obstacle o;
      o.shape = "sphere";
      o.center = {6, 5, 4};
      o.radius = 2.5;
      c.obstacles.push_back(o);
    }
    Solver s(c, MPI_COMM_WORLD);
    const double m0 = s.totals().mass;
    s.advance(1000);
    const double m1 = s.totals().mass;
    EXPECT_LT(std::fabs(m1 / m0 - 1), 1e-13) << "walls " << walls << ": " << m0 << " -> " << m1;
  }
}

// A rank that holds a periodic dimension whole reads across its boundary in
// the kernels: no halo travels along it (a walled dimension still has its
// solid halo, which is never exchanged either).
TEST(LbWallTables, SitesNextToRestingWallsStayVectorised) {
  // A D3Q19 channel (walls on y and z): with SoA and wall tables no site
  // takes the one-site path; without them, or in AoS, every site next to a
  // wall does: 8 x (6*4 - 4*2) = 128 of the 8x6x4 sites on one rank.
  LbConfig c;
  c.size = {8, 6, 4};
  c.periodic = {true, false, false};
  EXPECT_EQ(Solver(c, MPI_COMM_SELF).slow_path_sites(), 0);
  c.wall_tables = false;
  EXPECT_EQ(Solver(c, MPI_COMM_SELF).slow_path_sites(), 8 * (6 * 4 - 4 * 2));
  c.wall_tables = true;
  c.layout = Layout::aos;
  EXPECT_EQ(Solver(c, MPI_COMM_SELF).slow_path_sites(), 8 * (6 * 4 - 4 * 2));
  // A moving wall keeps its neighbours on the one-site path (it adds its velocity).
  c.layout = Layout::soa;
  c.moving_wall = "y+";
  c.wall_velocity = {0.01, 0, 0};
  EXPECT_EQ(Solver(c, MPI_COMM_SELF).slow_path_sites(), 8 * 4);
}

TEST(LbWrap, NoHaloCopyAlongDimensionsARankHoldsWhole) {
  LbConfig c;
  c.size = {8, 6, 4};
  for (const char* kernel : {"aa", "pull"}) {
    c.kernel = parse_choice<Kernel>(kernel, "kernel");
    c.sweep = Sweep::rows;
    c.periodic_wrap = true;
    EXPECT_EQ(Solver(c, MPI_COMM_SELF).halo_bytes_per_step(), 0.0) << kernel;
    c.periodic_wrap = false;
    EXPECT_GT(Solver(c, MPI_COMM_SELF).halo_bytes_per_step(), 0.0) << kernel;
    // A flat sweep runs across the row dimension's halo: on one rank the
    // sweep copies it row by row, no exchange.
    c.periodic_wrap = true;
    c.sweep = Sweep::flat;
    EXPECT_EQ(Solver(c, MPI_COMM_SELF).halo_bytes_per_step(), 0.0) << kernel;
  }
}

// ---------------------------------------------------------------- bit-identical

namespace {

#ifdef HALOEX_TEST_SANITIZED  // (tests/CMakeLists.txt: a build with HALOEX_SANITIZE)
constexpr bool sanitized_build = true;
#else
constexpr bool sanitized_build = false;
#endif

// A case that touches everything: walls, a moving wall, an obstacle, a body
// force and a non-uniform initial state.
LbConfig everything(const std::string& set) {
  LbConfig c;
  c.velocity_set = set;
  const bool d3 = set != "D2Q9";
  c.size = {12, 10, d3 ? 8 : 1};
  c.periodic = {true, false, true};
  c.tau = 0.7;
  c.collision = Collision::trt;
  c.force = {1e-5, 0, d3 ? 2e-6 : 0};
  c.init = "uniform";
  c.velocity = {0.01, 0, 0};
  c.moving_wall = "y+";
  c.wall_velocity = {0.02, 0, d3 ? 0.01 : 0};
  Obstacle o;
  o.shape = "sphere";
  o.center = {4, 4, 3};
  o.radius = 2.2;
  c.obstacles.push_back(o);
  // A second one across the periodic boundary at x = 0 (and z = 0 in 3-D):
  // solid halo sites across dimensions a rank may have to itself.
  o.center = {0, 6, 0};
  o.radius = 1.6;
  c.obstacles.push_back(o);
  c.monitor_mode = "nonblocking";
  return c;
}

void expect_identical_to_serial(const std::string& set, const std::vector<std::string>& kernels,
                                const std::vector<std::string>& strategies, long steps,
                                FieldMemory memory = FieldMemory::heap) {
  // Sanitized, 35 steps at most (each step costs several times as much):
  // every path runs from the first step, and the auto cases that re-check
  // every 15 steps still look again twice.
  if (sanitized_build) steps = std::min(steps, 35L);
  const LbConfig base = everything(set);
  std::vector<double> ref;
  if (world_rank() == 0) {
    // The reference copies every periodic halo (no wrap in the kernels), so
    // a run that wraps is checked against halo exchanges, not against itself.
    LbConfig r = base;
    r.strategy = "staged";
    r.sweep = Sweep::rows;
    r.periodic_wrap = false;
    r.wall_tables = false;
    Solver s(r, MPI_COMM_SELF);
    s.advance(steps);
    ref = s.global_populations(0);
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // At 1 and 2 ranks every combination; above that (oversubscribed, where
  // each exchange costs a scheduler time slice) each (kernel, strategy,
  // overlap) once, with halo kind, thread count and layout rotating. So too
  // in a sanitized build at every rank count: it looks for memory errors and
  // undefined behaviour, which the rotation reaches on every code path,
  // while the plain build checks every combination bit for bit.
  const bool every = size <= 2 && !sanitized_build;
  int runs = 0, index = 0;
  for (const std::string& kernel : kernels)
    for (const std::string& strategy : strategies)
      for (const char* overlap : {"none", "interior", "map"})
        for (int v = 0; v < 8; ++v) {
          if (!every && v != index % 8) continue;
          ++index;
          LbConfig c = base;
          c.kernel = parse_choice<Kernel>(kernel, "kernel");
          c.strategy = strategy;
          c.overlap = parse_choice<Overlap>(overlap, "overlap");
          c.halo = (v & 1) ? HaloMode::full : HaloMode::reduced;
          const int threads = 1 + ((v >> 1) & 1);
          // Two of the 2-thread cases share their sweeps by tasks.
          c.schedule = v == 3 || v == 6 ? Schedule::taskloop : Schedule::worksharing;
          c.layout = (v >> 2) & 1 ? Layout::aos : Layout::soa;
          // Half the cases (each halo kind, thread count, layout and
          // schedule among them) call the kernels once per stretch of rows.
          c.sweep = std::popcount(static_cast<unsigned>(v)) % 2 == 0 ? Sweep::flat : Sweep::rows;
          // Half the interior-overlap cases drive MPI progress after every row.
          c.mpi_progress_rows = (v >> 1) & 1 ? 1 : 0;
          // Half the auto cases re-check their choice every 15 steps (and
          // race again wherever the machine drifts by more than 10%).
          c.auto_recheck = strategy == "auto" && (v & 1) ? 15 : 0;
          c.field_memory = memory;
          // The one combination the input check refuses for node memory.
          if (memory == FieldMemory::node && c.kernel == Kernel::aa && c.halo == HaloMode::full &&
              c.overlap != Overlap::none)
            continue;
          omp_set_num_threads(threads);
          std::unique_ptr<Solver> s;
          try {
            s = std::make_unique<Solver>(c, MPI_COMM_WORLD);
          } catch (const InputError& e) {
            // red-black cannot run on an odd periodic ring: that is its rule.
            ASSERT_EQ(strategy, "red-black") << e.what();
            continue;
          }
          s->advance(steps);
          const auto f = s->global_populations(0);
          omp_set_num_threads(1);
          ++runs;
          bool same = true;
          if (world_rank() == 0)
            same = f.size() == ref.size() && std::memcmp(f.data(), ref.data(), f.size() * 8) == 0;
          ASSERT_TRUE(bcast_ok(same))
              << set << " " << kernel << " " << strategy << " " << overlap << " " << to_string(c.halo) << " "
              << to_string(c.layout) << " " << to_string(c.sweep) << " " << threads << " threads, " << size
              << " ranks, progress every " << c.mpi_progress_rows << " rows";
        }
  EXPECT_GT(runs, 0);
}

}  // namespace

TEST(LbBitIdentical, D3Q19EveryStrategyOverlapHaloThreads) {
  expect_identical_to_serial("D3Q19", {"aa", "pull"}, strategy_names(), 100);
}

// 27 and 64 ranks (3x3x3, 4x4x4: every rank's 26 neighbours distinct, some
// subdomains 2 sites thick): the exchanges that differ in how they address
// neighbours, each (kernel, strategy, overlap) once, against the serial run.
TEST(LbBitIdentical, D3Q19DistinctNeighbours) {
  expect_identical_to_serial("D3Q19", {"aa", "pull"}, {"staged", "direct", "persistent", "neighbor"}, 12);
}

// Populations in node memory: `shm` reads them straight from the neighbour
// (`auto` may pick it too), for both kernels and every overlap.
TEST(LbBitIdentical, D3Q19InNodeMemory) {
  expect_identical_to_serial("D3Q19", {"aa", "pull"}, {"shm", "auto", "direct"}, 40, FieldMemory::node);
}

// A flat sweep updates the halo sites between rows too; the monitor leaves
// them out, so it sees what the row sweep sees, bit for bit, on a lattice
// whose density range does not hold the halo's values. Every step is
// monitored; the populations are compared with the row sweep's as well.
TEST(LbFlatSweep, MonitorAndPopulationsAsTheRowSweep) {
  for (const char* kernel : {"aa", "pull"})
    for (Layout layout : {Layout::soa, Layout::aos}) {
      LbConfig c = everything("D3Q19");
      c.kernel = parse_choice<Kernel>(kernel, "kernel");
      c.layout = layout;
      c.rho0 = 1.7;  // (the halo's copies, the halo's zeros and 1 all outside the range)
      MonitorStats m[2];
      std::vector<double> f[2];
      for (int k = 0; k < 2; ++k) {
        c.sweep = k == 0 ? Sweep::rows : Sweep::flat;
        Solver s(c, MPI_COMM_WORLD);
        s.advance(7);
        m[k] = s.monitor().last();
        f[k] = s.global_populations(0);
      }
      EXPECT_EQ(m[0].step, 6);
      EXPECT_EQ(m[0].step, m[1].step);
      EXPECT_EQ(m[0].rho_min, m[1].rho_min) << kernel;
      EXPECT_EQ(m[0].rho_max, m[1].rho_max) << kernel;
      EXPECT_EQ(m[0].u2_max, m[1].u2_max) << kernel;
      EXPECT_EQ(m[0].nan_sites, 0);
      EXPECT_EQ(m[1].nan_sites, 0) << kernel;
      EXPECT_GT(m[0].rho_min, 1.6);
      if (world_rank() == 0) EXPECT_TRUE(f[0] == f[1]) << kernel << " " << to_string(layout);
    }
}

// In 2-D the rows run along y: a flat sweep there copies y's periodic halo
// row by row (RowWrap) on one rank, and must give the row sweep's
// populations to the last bit, for both kernels.
TEST(LbFlatSweep, TwoDimensionalRowWrap) {
  for (const char* kernel : {"aa", "pull"}) {
    LbConfig c;
    c.velocity_set = "D2Q9";
    c.size = {10, 8, 1};
    c.init = "shear_wave";
    c.amplitude = 0.02;
    c.kernel = parse_choice<Kernel>(kernel, "kernel");
    Obstacle o;  // across the periodic y boundary
    o.shape = "box";
    o.lo = {3, 7, 0};
    o.hi = {5, 9, 1};
    c.obstacles.push_back(o);
    std::vector<double> f[2];
    for (int k = 0; k < 2; ++k) {
      c.sweep = k == 0 ? Sweep::rows : Sweep::flat;
      Solver s(c, MPI_COMM_SELF);
      s.advance(9);
      f[k] = s.local_populations();
    }
    EXPECT_TRUE(f[0] == f[1]) << kernel;
  }
}

// With time_kernels the timers hold the kernel calls' time, a part of the
// update's; without, none.
TEST(LbTimers, KernelTimeIsPartOfTheUpdate) {
  LbConfig c;
  c.size = {16, 12, 10};
  for (bool on : {false, true}) {
    Solver s(c, MPI_COMM_SELF);
    s.time_kernels(on);
    s.advance(4);
    const Timers& t = s.timers();
    if (on) {
      EXPECT_GT(t.seconds(t_kernels), 0.0);
      EXPECT_LE(t.seconds(t_kernels), t.seconds(t_update));
    } else {
      EXPECT_EQ(t.seconds(t_kernels), 0.0);
    }
  }
}

TEST(LbBitIdentical, OtherVelocitySets) {
  for (const char* set : {"D2Q9", "D3Q15", "D3Q27"})
    expect_identical_to_serial(set, {"aa", "pull"}, {"staged", "direct", "neighbor"}, 20);
}
