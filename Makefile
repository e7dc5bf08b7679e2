# Two entry points: `make demo` and `make test`. Each installs what is missing
# (as root on Debian; otherwise it says what to install), configures, builds
# and runs.
BUILD ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=
# The HDF5 backend is required here (install-deps installs it); a hand-made
# build (cmake -S . -B ...) takes it only where it is found.
HDF5 ?= ON

.PHONY: all deps configure build demo test clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DHALOEX_HDF5=$(HDF5) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD)

demo: build
	BUILD=$(BUILD) bash scripts/demo.sh

test: build
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j2 --timeout 1200

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
SAN_ENV = ASAN_OPTIONS=detect_leaks=0:strict_string_checks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
.PHONY: test-asan test-ubsan
# (test-asan adds UndefinedBehaviorSanitizer, which costs little on top: CI
# runs this one.)
# (The ParaView and Slurm tests run outside programs around haloex's LB and
# benchmarks, which the other tests cover; left out here to keep CI in time.)
# (The cluster_ tests run the suites that run here, across emulated nodes,
# where every message costs a trip through the kernel: left out for the same reason.)
SAN_SKIP = -E "paraview_orientation|slurm_campaign|cluster_"
test-asan: deps
	$(MAKE) build BUILD=build-asan BUILD_TYPE=$(SAN_BUILD_TYPE) CMAKE_FLAGS="-DHALOEX_SANITIZE=address,undefined"
	cd build-asan && $(SAN_ENV) ctest --output-on-failure --no-tests=error -j2 --timeout 1200 $(SAN_SKIP)

test-ubsan: deps
	$(MAKE) build BUILD=build-ubsan BUILD_TYPE=$(SAN_BUILD_TYPE) CMAKE_FLAGS="-DHALOEX_SANITIZE=undefined"
	cd build-ubsan && $(SAN_ENV) ctest --output-on-failure --no-tests=error -j2 --timeout 1200 $(SAN_SKIP)

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
