// Parameter lists on the command line: "5000", "1000,2000,4000", arithmetic ranges "1000:5000:1000"
// (inclusive), geometric ranges "1024..1048576*2" (multiply until past the end). Numbers may be
// written 1000000, 1e6 or 2^20.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace alloclab::cli {

// The most values one list holds, and the most points a command's grid (the product of its
// lists' lengths) holds: more is an input error before anything is expanded or run, never a
// run that exhausts memory or time (1:1e9:1, 1..1e300*1.0000001).
inline constexpr std::size_t kMaxListValues = 100'000;
inline constexpr std::size_t kMaxGridPoints = 100'000;

// Parses a list of real numbers; throws InputError naming `parameter` on any malformed text.
std::vector<double> parse_real_list(const std::string& parameter, const std::string& text);

// Same, but every value must be a positive integer (N, A, T, w, lanes, ...).
std::vector<std::uint64_t> parse_count_list(const std::string& parameter, const std::string& text);

// Throws InputError when the product of the axes' lengths exceeds kMaxGridPoints, naming the
// longest axis's parameter: "--N: the grid has 1e+10 points (100000 --N x 100000 --T); at most
// 100000". An axis is (parameter, number of values).
void check_grid_size(const std::vector<std::pair<std::string, std::size_t>>& axes);

}  // namespace alloclab::cli
