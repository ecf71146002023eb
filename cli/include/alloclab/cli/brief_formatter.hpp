// `alloclab --help` lists one line per subcommand: the first sentence of its description,
// clipped to the terminal's width on a word boundary. `alloclab <command> --help` still prints
// the whole description.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace alloclab::cli {

// The first sentence of `description` (up to ". ", ".\n" or its end), at most `width`
// characters, cut at a word boundary with "..." where it is longer.
std::string brief_description(const std::string& description, std::size_t width);

class BriefFormatter : public CLI::Formatter {
 public:
  std::string make_subcommand(const CLI::App* sub) const override;
};

}  // namespace alloclab::cli
