// Included first in every fuzzer source (fuzz/CMakeLists.txt): toml++'s
// internal assertions off, as in the packaged library that haloex links, so
// that the fuzzers run the TOML parser that runs in production.
#pragma once
#define TOML_ASSERT(expr) static_cast<void>(0)
