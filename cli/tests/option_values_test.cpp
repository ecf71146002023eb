// The check of numeric option text (option_values.hpp), against values worked by hand, and
// through CLI11: a wrapped "-1" never reaches a variable.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "alloclab/cli/option_values.hpp"

using alloclab::cli::check_option_values;
using alloclab::cli::number_text_error;
using alloclab::cli::NumberKind;

namespace {

constexpr std::uint64_t kU64Max = 18446744073709551615ULL;

// The message for `text`, or "" where it is accepted (then `text` is its rewritten form).
std::string error_of(NumberKind kind, std::string& text, std::int64_t min = 0,
                     std::uint64_t max = kU64Max) {
  return number_text_error(kind, text, min, max).value_or("");
}

// Parses `alloclab run --count VALUE` into a 64-bit and a 32-bit count; the error, or "".
std::string parse(const std::string& option, const std::string& value, std::uint64_t& wide,
                  unsigned& narrow, int& signed_value, double& real) {
  CLI::App app;
  auto* run = app.add_subcommand("run");
  run->add_option("--wide", wide);
  run->add_option("--narrow", narrow);
  run->add_option("--signed", signed_value);
  run->add_option("--real", real)->check(CLI::Range(0.0, 1.0));
  check_option_values(app);
  const char* argv[] = {"alloclab", "run", option.c_str(), value.c_str()};
  try {
    app.parse(4, argv);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("whole numbers: negatives, wraps and garbage are errors that say what failed", "[cli]") {
  std::string t = "-1";
  CHECK(error_of(NumberKind::whole_unsigned, t) == "must not be negative, got '-1'");
  t = "18446744073709551616";  // 2^64
  CHECK(error_of(NumberKind::whole_unsigned, t) ==
        "must be at most 18446744073709551615, got '18446744073709551616'");
  t = "4294967296";
  CHECK(error_of(NumberKind::whole_unsigned, t, 0, 4294967295u) ==
        "must be at most 4294967295, got '4294967296'");
  for (const char* bad : {"", "abc", "1.5", "1e3", "0x10", "1,2", "+-3", "5 5"}) {
    t = bad;
    INFO(bad);
    CHECK(error_of(NumberKind::whole_unsigned, t).rfind("must be a whole number, got '", 0) == 0);
  }
  t = "-2147483649";
  CHECK(error_of(NumberKind::whole_signed, t, -2147483648LL, 2147483647u) ==
        "must be in -2147483648..2147483647, got '-2147483649'");
}

TEST_CASE("whole numbers: the accepted ones are written plainly (no octal)", "[cli]") {
  std::string t = "010";
  CHECK(error_of(NumberKind::whole_unsigned, t).empty());
  CHECK(t == "10");
  t = " 18446744073709551615 ";
  CHECK(error_of(NumberKind::whole_unsigned, t).empty());
  CHECK(t == "18446744073709551615");
  t = "-0";
  CHECK(error_of(NumberKind::whole_unsigned, t).empty());
  CHECK(t == "0");
  t = "-2147483648";
  CHECK(error_of(NumberKind::whole_signed, t, -2147483648LL, 2147483647u).empty());
  t = "+7";
  CHECK(error_of(NumberKind::whole_signed, t, -2147483648LL, 2147483647u).empty());
  CHECK(t == "7");
}

TEST_CASE("real numbers: nan, inf and overflow are errors", "[cli]") {
  for (const char* bad : {"nan", "inf", "-inf", "1e999", "-1e400"}) {
    std::string t = bad;
    INFO(bad);
    CHECK(error_of(NumberKind::real, t).rfind("must be a finite number, got '", 0) == 0);
  }
  std::string t = "0.5x";
  CHECK(error_of(NumberKind::real, t) == "must be a number, got '0.5x'");
  t = "1e-400";  // underflows to 0 or a denormal: a number all the same
  CHECK(error_of(NumberKind::real, t).empty());
}

TEST_CASE("through CLI11: each option's type bounds it, and a bad value never reaches the variable",
          "[cli]") {
  std::uint64_t wide = 7;
  unsigned narrow = 7;
  int signed_value = 7;
  double real = 0.25;
  CHECK(parse("--wide", "-1", wide, narrow, signed_value, real) ==
        "--wide: must not be negative, got '-1'");
  CHECK(wide == 7);
  CHECK(parse("--narrow", "4294967296", wide, narrow, signed_value, real) ==
        "--narrow: must be at most 4294967295, got '4294967296'");
  CHECK(parse("--signed", "2147483648", wide, narrow, signed_value, real) ==
        "--signed: must be in -2147483648..2147483647, got '2147483648'");
  // A NaN passes CLI::Range (every comparison with it is false); the check stops it first.
  CHECK(parse("--real", "nan", wide, narrow, signed_value, real) ==
        "--real: must be a finite number, got 'nan'");
  CHECK(parse("--wide", "18446744073709551615", wide, narrow, signed_value, real).empty());
  CHECK(wide == 18446744073709551615ULL);
  CHECK(parse("--narrow", "010", wide, narrow, signed_value, real).empty());
  CHECK(narrow == 10);  // decimal, not CLI11's octal 8
  CHECK(parse("--signed", "-5", wide, narrow, signed_value, real).empty());
  CHECK(signed_value == -5);
}

TEST_CASE("through CLI11: an empty value is no value, for text options too", "[cli]") {
  CLI::App app;
  std::string name = "kept";
  std::uint64_t count = 3;
  app.add_option("--name", name);
  app.add_option("--count", count);
  check_option_values(app);
  for (const char* option : {"--name", "--count"}) {
    const char* argv[] = {"alloclab", option, " "};
    INFO(option);
    try {
      app.parse(3, argv);
      FAIL("an empty value was taken");
    } catch (const CLI::ParseError& e) {
      CHECK(std::string(e.what()) == std::string(option) + ": must not be empty");
    }
  }
  CHECK(name == "kept");
  CHECK(count == 3);
}
