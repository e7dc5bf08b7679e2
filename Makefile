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

# ---- API reference (make docs) ----
# Doxygen over the public headers (docs/Doxyfile); any warning fails it.
.PHONY: docs
docs: deps-tools
	rm -rf "$(BUILD)/docs/html" && mkdir -p "$(BUILD)/docs"
	( cat docs/Doxyfile; echo 'OUTPUT_DIRECTORY = "$(BUILD)/docs"' ) | doxygen -
	@echo "API reference: $(abspath $(BUILD))/docs/html/index.html"

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
