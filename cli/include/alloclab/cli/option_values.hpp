// One check for the values of every option of every subcommand, on the text before CLI11 converts
// it. CLI11 2.1 reads an unsigned option with strtoull, which takes "-1" as 2^64 - 1 (a count that
// wraps: a run that never ends, a memory estimate in zettabytes), "18446744073709551616" as
// 2^64 - 1 (ERANGE ignored), "010" as 8 and "0x10" as 16; and a real option with strtold, which
// takes nan and inf (they pass every range check: each comparison with nan is false).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace alloclab::cli {

// What a numeric option's text must be, by CLI11's type name of the option (UINT, INT, FLOAT).
enum class NumberKind { whole_unsigned, whole_signed, real };

// Why `text` is no value of an option of this kind, whose whole values lie in [min, max] (real:
// ignored), e.g. "must not be negative, got -1"; nullopt where it is one. On success a whole
// number is rewritten in plain decimal ("010" -> "10", so that CLI11 does not read it as octal).
std::optional<std::string> number_text_error(NumberKind kind, std::string& text, std::int64_t min,
                                             std::uint64_t max);

// Adds to every option of `app` and of its subcommands (all levels) that takes a value a check
// that runs before the option's own: an empty value is an error, and so is the text of a UINT,
// INT or FLOAT option that number_text_error rejects. The error names the option and what the
// value must be ("--trials: must not be negative, got '-1'"); the CLI prints it as one line and
// exits 2 before any work. The bounds of a whole option are its type's (8 to 64 bits), asked of
// the option's own conversion. The minimum a count needs beyond 0 (--trials >= 1) is its
// command's check.
void check_option_values(CLI::App& app);

}  // namespace alloclab::cli
