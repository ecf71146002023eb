#include "alloclab/cli/value_list.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "alloclab/core/errors.hpp"

namespace alloclab::cli {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// One number: decimal, scientific (1e6) or a power (2^25).
double parse_number(const std::string& parameter, const std::string& raw) {
  const std::string text = trim(raw);
  if (text.empty()) throw InputError(parameter, "empty value in list '" + raw + "'");
  const auto caret = text.find('^');
  if (caret != std::string::npos) {
    const double base = parse_number(parameter, text.substr(0, caret));
    const double exponent = parse_number(parameter, text.substr(caret + 1));
    const double v = std::pow(base, exponent);
    if (!std::isfinite(v)) throw InputError(parameter, "'" + text + "' overflows");
    return v;
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw InputError(parameter, "'" + text + "' is not a number");
  return v;
}

// A range of `count` values after `before` values of its list: within kMaxListValues, or an
// input error before one is made.
void check_list_length(const std::string& parameter, const std::string& item, double count,
                       std::size_t before) {
  if (count + static_cast<double>(before) > static_cast<double>(kMaxListValues))
    throw InputError(parameter,
                     fmt::format("range '{}' makes {:.4g} values; a list holds at most {}", item,
                                 count, kMaxListValues));
}

void append_range(const std::string& parameter, const std::string& item, std::vector<double>& out) {
  const auto dots = item.find("..");
  const auto colon = item.find(':');
  if (dots != std::string::npos) {  // geometric: a..b*f
    const auto star = item.find('*', dots);
    if (star == std::string::npos)
      throw InputError(parameter, "geometric range '" + item + "' needs a factor: a..b*f");
    const double a = parse_number(parameter, item.substr(0, dots));
    const double b = parse_number(parameter, item.substr(dots + 2, star - dots - 2));
    const double f = parse_number(parameter, item.substr(star + 1));
    if (a <= 0) throw InputError(parameter, "geometric range '" + item + "' must start above 0");
    if (f <= 1) throw InputError(parameter, "geometric range '" + item + "' needs a factor > 1");
    if (b < a) throw InputError(parameter, "range '" + item + "' ends before it starts");
    // Counted before any is made (1..1e300*1.0000001 is 7e8 values); rounding tolerated so that
    // 1024..1048576*2 includes 1048576.
    const double count = std::floor(std::log(b / a) / std::log(f) + 1e-9) + 1;
    check_list_length(parameter, item, count, out.size());
    for (double v = a; v <= b * (1 + 1e-12); v *= f) out.push_back(v);
    return;
  }
  if (colon != std::string::npos) {  // arithmetic: a:b:step
    const auto colon2 = item.find(':', colon + 1);
    if (colon2 == std::string::npos)
      throw InputError(parameter, "arithmetic range '" + item + "' needs a step: a:b:step");
    const double a = parse_number(parameter, item.substr(0, colon));
    const double b = parse_number(parameter, item.substr(colon + 1, colon2 - colon - 1));
    const double step = parse_number(parameter, item.substr(colon2 + 1));
    if (step <= 0) throw InputError(parameter, "range '" + item + "' needs a step > 0");
    if (b < a) throw InputError(parameter, "range '" + item + "' ends before it starts");
    const double count = std::floor((b - a) / step * (1 + 1e-12)) + 1;
    check_list_length(parameter, item, count, out.size());
    for (double i = 0; i < count; ++i) out.push_back(a + i * step);
    return;
  }
  out.push_back(parse_number(parameter, item));
}

}  // namespace

std::vector<double> parse_real_list(const std::string& parameter, const std::string& text) {
  if (trim(text).empty()) throw InputError(parameter, "no value given");
  std::vector<double> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    append_range(parameter, text.substr(start, comma - start), out);
    if (out.size() > kMaxListValues)
      throw InputError(parameter, fmt::format("a list holds at most {} values", kMaxListValues));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::uint64_t> parse_count_list(const std::string& parameter, const std::string& text) {
  std::vector<std::uint64_t> out;
  for (double v : parse_real_list(parameter, text)) {
    if (v < 1)
      throw InputError(parameter, fmt::format("values must be positive integers, got {:.15g}", v));
    if (std::floor(v) != v)
      throw InputError(parameter, fmt::format("values must be whole numbers, got {:.15g}", v));
    if (v > 9.007199254740992e15)
      throw InputError(parameter, fmt::format("values must be at most 2^53, got {:.15g}", v));
    out.push_back(static_cast<std::uint64_t>(v));
  }
  return out;
}

void check_grid_size(const std::vector<std::pair<std::string, std::size_t>>& axes) {
  double points = 1;
  std::string product;
  const std::pair<std::string, std::size_t>* longest = nullptr;
  for (const auto& axis : axes) {
    points *= static_cast<double>(axis.second);
    if (axis.second > 1)
      product += fmt::format("{}{} {}", product.empty() ? "" : " x ", axis.second, axis.first);
    if (!longest || axis.second > longest->second) longest = &axis;
  }
  if (longest && points > static_cast<double>(kMaxGridPoints))
    throw InputError(longest->first, fmt::format("the grid has {:.4g} points ({}); at most {}",
                                                 points, product, kMaxGridPoints));
}

}  // namespace alloclab::cli
