// `alloclab list`: what this build holds, from its own tables, for people and for scripts: the
// allocator registry (core/algorithm.hpp), the study table (validation/study.hpp) and the
// subcommands. Scripts take names from here instead of typing them (scripts/gpu.sh reads
// `alloclab list --backend gpu --names`), so a new allocator or study is picked up by them.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "alloclab/cli/brief_formatter.hpp"
#include "alloclab/cli/command_table.hpp"
#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/validation/study.hpp"

namespace alloclab::cli {
namespace {

struct ListArgs {
  std::string what = "allocators";
  bool studies = false, commands = false, names = false;
  std::string backends, requests, bit_choices;
  Format format = Format::table;
  const CLI::App* parent = nullptr;  // the app whose subcommands --what commands lists
};

std::string_view request_kind_name(RequestKind r) {
  switch (r) {
    case RequestKind::one_page:
      return "one_page";
    case RequestKind::pages:
      return "pages";
    case RequestKind::bytes:
      return "bytes";
  }
  return "?";
}

// The bits of a comma list of names (`names[i]` is bit i); an unknown or empty list is an
// InputError naming the option. Empty text: no filter (nullopt).
std::optional<unsigned> parse_set(const std::string& option, const std::string& text,
                                  const std::vector<std::string_view>& names) {
  if (text.empty()) return std::nullopt;
  std::string known;
  for (const auto n : names) {
    if (!known.empty()) known += ", ";
    known += n;
  }
  const auto items = comma_items(text);
  if (items.empty()) throw InputError(option, "an empty list (" + known + ")");
  unsigned set = 0;
  for (const auto& item : items) {
    bool found = false;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == item) {
        set |= 1u << i;
        found = true;
      }
    if (!found) throw InputError(option, "unknown value '" + item + "' (" + known + ")");
  }
  return set;
}

std::vector<Record> allocator_records(const ListArgs& a) {
  // Bit i of each set: the i-th name (BackendKind's bits are 1, 2, 4: model, sim, gpu).
  const auto backends = parse_set("--backend", a.backends, {"model", "sim", "gpu"});
  const auto requests = parse_set("--requests", a.requests, {"one_page", "pages", "bytes"});
  const auto choices = parse_set("--bit-choice", a.bit_choices,
                                 {kBitChoiceNames[0], kBitChoiceNames[1], kBitChoiceNames[2]});
  std::vector<Record> out;
  for (const auto& info : kAlgorithms) {
    const Capabilities& c = info.caps;
    if (backends && (c.backends & *backends) == 0) continue;
    if (requests && ((1u << static_cast<unsigned>(c.requests)) & *requests) == 0) continue;
    if (choices && (c.bit_choices & *choices) == 0) continue;
    std::string on;
    for (auto b : {BackendKind::model, BackendKind::sim, BackendKind::gpu})
      if (c.has(b)) {
        if (!on.empty()) on += ' ';
        on += backend_kind_name(b);
      }
    Record r;
    r.set("name", std::string(info.name));
    r.set("backends", on);
    r.set("requests", std::string(request_kind_name(c.requests)));
    r.set("bit_choices", bit_choice_names(c.bit_choices));
    r.set("description", std::string(info.description));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Record> study_records() {
  std::vector<Record> out;
  for (const auto* s : validation::StudyTable::instance().all()) {
    Record r;
    r.set("name", std::string(s->name));
    r.set("label", std::string(s->label));
    r.set("paper", validation::citation(s->paper));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Record> command_records(const CLI::App& parent) {
  // Which study brings each subcommand: its table entry adds it to a scratch app.
  std::map<std::string, std::string> study_of;
  for (const CommandEntry* entry : CommandTable::instance().all()) {
    CLI::App scratch;
    for (const CLI::App* sub : entry->add(scratch)) study_of[sub->get_name()] = entry->study;
  }
  std::vector<Record> out;
  for (const CLI::App* sub : parent.get_subcommands([](const CLI::App*) { return true; })) {
    Record r;
    r.set("name", sub->get_name());
    r.set("group", sub->get_group());
    const auto study = study_of.find(sub->get_name());
    r.set("study", study == study_of.end() ? std::string() : study->second);
    r.set("description", brief_description(sub->get_description(), 200));
    out.push_back(std::move(r));
  }
  return out;
}

void run(const ListArgs& a) {
  const std::string what = a.studies ? "studies" : a.commands ? "commands" : a.what;
  if (what != "allocators") {
    for (const auto& [option, value] :
         {std::pair<const char*, const std::string*>{"--backend", &a.backends},
          {"--requests", &a.requests},
          {"--bit-choice", &a.bit_choices}})
      if (!value->empty())
        throw InputError(option, "filters allocators; listing " + what + " takes no filter");
  }
  const auto records = what == "studies"    ? study_records()
                       : what == "commands" ? command_records(*a.parent)
                                            : allocator_records(a);
  if (a.names) {
    for (const auto& r : records) std::cout << r.text("name").value_or("") << '\n';
    return;
  }
  write_records(std::cout, records, a.format);
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto args = std::make_shared<ListArgs>();
  args->parent = &app;
  auto* cmd = app.add_subcommand(
      "list",
      "What this build holds: the registered allocators (with the backends they run on, the "
      "requests they take and their bit choices), the studies (one per paper) or the "
      "subcommands, as a table, CSV, JSON or one name a line for scripts. The allocator filters "
      "take comma lists; an allocator is listed when it has any value of each filter given.\n"
      "Example: alloclab list --backend gpu --names\n"
      "Example: alloclab list --backend sim --requests pages --format csv\n"
      "Example: alloclab list --studies");
  auto* what = cmd->add_option("--what", args->what, "allocators, studies or commands");
  what->check(CLI::IsMember({"allocators", "studies", "commands"}).description(""))
      ->type_name("allocators|studies|commands")
      ->capture_default_str();
  auto* studies = cmd->add_flag("--studies", args->studies, "same as --what studies");
  auto* commands = cmd->add_flag("--commands", args->commands, "same as --what commands");
  studies->excludes(commands);
  studies->excludes(what);
  commands->excludes(what);
  cmd->add_option("--backend", args->backends,
                  "allocators that run on any of these backends (model, sim, gpu): the ones "
                  "`sweep --allocator all --backend` would run");
  cmd->add_option("--requests", args->requests,
                  "allocators whose requests are any of one_page, pages (n consecutive pages) or "
                  "bytes");
  cmd->add_option("--bit-choice", args->bit_choices,
                  "allocators that implement any of these bit choices (lowest, random, rotated)");
  cmd->add_flag("--names", args->names, "one name a line and nothing else (for scripts)");
  add_format_option(*cmd, args->format);
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
