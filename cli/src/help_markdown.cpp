#include "alloclab/cli/help_markdown.hpp"

#include <fmt/format.h>

#include <vector>

namespace alloclab::cli {
namespace {

// A table cell: one line, no unescaped '|'.
std::string cell(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n')
      out += ' ';
    else if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

std::string option_table(const CLI::App& sub) {
  std::string out = "| option | value | default | what it is |\n|---|---|---|---|\n";
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden: the retired spellings
    if (opt->get_name() == "--help") continue;
    std::string name = opt->get_positional() ? opt->get_name(true) : "";
    for (const auto& s : opt->get_snames()) name += (name.empty() ? "-" : ", -") + s;
    for (const auto& l : opt->get_lnames()) name += (name.empty() ? "--" : ", --") + l;
    const std::string value = opt->get_items_expected_max() == 0 ? "flag" : opt->get_type_name();
    out +=
        fmt::format("| `{}` | {} | {} | {} |\n", name, cell(value),
                    opt->get_default_str().empty() ? "" : "`" + cell(opt->get_default_str()) + "`",
                    cell(opt->get_description()));
  }
  return out;
}

}  // namespace

std::string help_markdown(const CLI::App& app) {
  std::string out =
      "# alloclab's subcommands and options\n\n"
      "Generated from the CLI's own option definitions: do not edit. After changing an option, "
      "run `cmake --build build --target docs_commands`; the test `docs_commands_current` fails "
      "while this page is stale. How to use them (grids, formats, exit codes, the simulator's "
      "memory check): [command-guide.md](command-guide.md).\n";
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  std::vector<std::string> groups;
  for (const CLI::App* sub : subs) {
    bool seen = false;
    for (const auto& g : groups) seen = seen || g == sub->get_group();
    if (!seen) groups.push_back(sub->get_group());
  }
  for (const auto& group : groups) {
    out += "\n## " + group + "\n";
    for (const CLI::App* sub : subs) {
      if (sub->get_group() != group) continue;
      out += fmt::format("\n### alloclab {}\n\n{}\n\n", sub->get_name(), sub->get_description());
      out += option_table(*sub);
    }
  }
  return out;
}

}  // namespace alloclab::cli
