// Shared helpers for alloclab's Catch2 tests.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace alloclab::testing {

// Exit code that ctest maps to "Skipped" (SKIP_RETURN_CODE in cmake/AlloclabTesting.cmake);
// failures exit 1 (testing/catch_main.cpp), never this.
inline constexpr int kSkipReturnCode = 4;

// Skip the current test process with a reason, e.g. when no CUDA device is present.
// Catch2 v2 (Debian 12) has no SKIP(); each TEST_CASE runs as its own ctest process, so exiting
// with the skip code marks exactly that test as skipped.
[[noreturn]] inline void skip(const std::string& reason) {
  std::printf("SKIPPED: %s\n", reason.c_str());
  std::fflush(stdout);
  std::exit(kSkipReturnCode);
}

// |a-b| / |b|, with an absolute fallback when the reference is zero.
inline double relative_error(double a, double b) {
  if (b == 0.0) return std::fabs(a);
  return std::fabs(a - b) / std::fabs(b);
}

}  // namespace alloclab::testing
