// Parameter lists on the command line: "5000", "1000,2000,4000", arithmetic ranges "1000:5000:1000"
// (inclusive), geometric ranges "1024..1048576*2" (multiply until past the end). Numbers may be
// written 1000000, 1e6 or 2^20.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace alloclab::cli {

// Parses a list of real numbers; throws InputError naming `parameter` on any malformed text.
std::vector<double> parse_real_list(const std::string& parameter, const std::string& text);

// Same, but every value must be a positive integer (N, A, T, w, lanes, ...).
std::vector<std::uint64_t> parse_count_list(const std::string& parameter, const std::string& text);

}  // namespace alloclab::cli
