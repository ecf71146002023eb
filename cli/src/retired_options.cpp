#include "alloclab/cli/retired_options.hpp"

#include <vector>

#include "alloclab/core/comma_list.hpp"

namespace alloclab::cli {

std::string retired_message(const RetiredOption& r) {
  std::string text = std::string(r.old_name) + " is now " + std::string(r.new_name);
  if (!r.note.empty()) text += " (" + std::string(r.note) + ")";
  return text;
}

bool retired_in(const RetiredOption& r, std::string_view command) {
  for (const auto& c : comma_items(std::string(r.commands)))
    if (c == command) return true;
  return false;
}

void add_retired_options(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (const RetiredOption& r : kRetiredOptions) {
      if (!retired_in(r, sub->get_name())) continue;
      const std::string message = retired_message(r);
      // One value or none, so that the old spelling fails here whatever followed it, before
      // CLI11 checks the required options or extra words.
      sub->add_option_function<std::vector<std::string>>(
             std::string(r.old_name),
             [message](const std::vector<std::string>&) { throw RetiredSpelling(message); })
          ->expected(0, 1)
          ->group("");
    }
}

}  // namespace alloclab::cli
