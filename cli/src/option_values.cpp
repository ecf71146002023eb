#include "alloclab/cli/option_values.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <tuple>
#include <utility>

namespace alloclab::cli {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Text echoed in a message: at most 40 characters (a message stays one short line).
std::string shown(const std::string& text) {
  return "'" + (text.size() > 40 ? text.substr(0, 37) + "..." : text) + "'";
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// The decimal digits' value, or nullopt past 2^64 - 1.
std::optional<std::uint64_t> decimal_value(const std::string& digits) {
  std::uint64_t v = 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  for (char c : digits) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (kMax - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::optional<NumberKind> kind_of(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  const std::string base = type.substr(0, type.find(':'));
  if (base == "UINT") return NumberKind::whole_unsigned;
  if (base == "INT") return NumberKind::whole_signed;
  if (base == "FLOAT") return NumberKind::real;
  return std::nullopt;
}

// Whether the option's variable holds `value` (its text), asked of the option's own conversion;
// the variable gets its value back. nullopt where that cannot be asked safely: an option of
// add_option_function (no default function: its conversion runs the command's function) or of a
// list (several values).
std::optional<bool> holds(CLI::Option& opt, const std::string& value) {
  const CLI::callback_t convert = opt.get_callback();
  if (!convert || opt.get_items_expected_max() != 1) return std::nullopt;
  const std::string default_shown = opt.get_default_str();
  opt.default_str("");
  opt.capture_default_str();  // the variable's current value, where the option has a variable
  const std::string current = opt.get_default_str();
  opt.default_str(default_shown);
  if (current.empty()) return std::nullopt;
  const bool fits = convert({value});
  convert({current});
  return fits;
}

// The range of a whole option's type: 8, 16, 32 or 64 bits, asked of its conversion.
std::pair<std::int64_t, std::uint64_t> whole_range(CLI::Option& opt, NumberKind kind) {
  for (unsigned bits : {8u, 16u, 32u}) {
    const std::uint64_t limit = kind == NumberKind::whole_unsigned ? std::uint64_t{1} << bits
                                                                   : std::uint64_t{1} << (bits - 1);
    const auto fits = holds(opt, std::to_string(limit));
    if (!fits) break;  // not asked: the 64-bit range; CLI11's conversion rejects anything wider
    if (!*fits)
      return {kind == NumberKind::whole_unsigned ? 0 : -static_cast<std::int64_t>(limit),
              limit - 1};
  }
  if (kind == NumberKind::whole_unsigned) return {0, std::numeric_limits<std::uint64_t>::max()};
  return {std::numeric_limits<std::int64_t>::min(),
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())};
}

}  // namespace

std::optional<std::string> number_text_error(NumberKind kind, std::string& text, std::int64_t min,
                                             std::uint64_t max) {
  const std::string t = trimmed(text);
  if (kind == NumberKind::real) {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size()) return "must be a number, got " + shown(text);
    if (!std::isfinite(v) || (errno == ERANGE && std::abs(v) > 1))
      return "must be a finite number, got " + shown(text);
    text = t;
    return std::nullopt;
  }
  const std::string digits = !t.empty() && (t[0] == '-' || t[0] == '+') ? t.substr(1) : t;
  if (!all_digits(digits)) return "must be a whole number, got " + shown(text);
  const auto magnitude = decimal_value(digits);  // nullopt: past 2^64 - 1
  const bool negative = t[0] == '-' && magnitude != std::uint64_t{0};
  if (negative && kind == NumberKind::whole_unsigned)
    return "must not be negative, got " + shown(text);
  const std::uint64_t min_magnitude = min < 0 ? static_cast<std::uint64_t>(-(min + 1)) + 1 : 0;
  if (!magnitude || (negative ? *magnitude > min_magnitude : *magnitude > max))
    return min < 0 ? fmt::format("must be in {}..{}, got {}", min, max, shown(text))
                   : fmt::format("must be at most {}, got {}", max, shown(text));
  const std::string canonical = (negative ? "-" : "") + std::to_string(*magnitude);
  text = canonical;
  return std::nullopt;
}

void check_option_values(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_size() == 0) continue;  // a flag
    const auto kind = kind_of(*opt);
    std::int64_t min = 0;
    std::uint64_t max = 0;
    if (kind && *kind != NumberKind::real) std::tie(min, max) = whole_range(*opt, *kind);
    opt->transform(CLI::Validator(
        [kind, min, max](std::string& text) {
          if (trimmed(text).empty()) return std::string("must not be empty");
          if (!kind) return std::string();
          return number_text_error(*kind, text, min, max).value_or(std::string());
        },
        std::string()));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    check_option_values(*sub);
}

}  // namespace alloclab::cli
