// `alloclab check`: every interleaving of a small case, over the allocators' own step machines
// (the engine is check/, docs/checking.md). This file only reads the command line.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "alloclab/check/families.hpp"
#include "alloclab/check/run_check.hpp"
#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/errors.hpp"

namespace alloclab::cli {
namespace {

struct CheckArgs {
  std::string allocators = "all";
  std::size_t threads = 3;
  std::string ops = "alloc:1,free";
  std::uint64_t pool = 2;
  std::string preemptions = "3";
  std::string rule = "alloclab";
  std::string null_check = "on";
  std::string inject;
  Format format = Format::table;
  std::string out = ".";
};

// "--pool: ..." from the engine becomes an InputError naming its parameter.
[[noreturn]] void rethrow_input(const std::invalid_argument& e) {
  const std::string w = e.what();
  const std::size_t colon = w.find(": ");
  if (w.rfind("--", 0) == 0 && colon != std::string::npos)
    throw InputError(w.substr(0, colon), w.substr(colon + 2));
  throw InputError("check", w);
}

void run(const CheckArgs& a) {
  check::CheckRequest q;
  if (a.allocators == "all") {
    for (const auto& f : check::families()) q.allocators.push_back(f.name);
  } else {
    q.allocators = comma_items(a.allocators);
    if (q.allocators.empty()) throw InputError("--allocator", "an empty list");
  }
  if (a.threads < 1 || a.threads > 16)
    throw InputError("--N", "1 .. 16 checker threads; got " + std::to_string(a.threads));
  if (a.pool < 1) throw InputError("--pool", "a pool of at least 1; got 0");
  if (a.preemptions != "exhaustive") {
    if (a.preemptions.empty() || a.preemptions.size() > 3 ||
        a.preemptions.find_first_not_of("0123456789") != std::string::npos)
      throw InputError("--preemptions",
                       "a count (0 .. 999) or exhaustive; got '" + a.preemptions + "'");
    q.preemptions = static_cast<unsigned>(std::stoul(a.preemptions));
  }
  if (a.rule != "alloclab" && a.rule != "printed")
    throw InputError("--rule", "alloclab or printed; got '" + a.rule + "'");
  if (a.null_check != "on" && a.null_check != "off")
    throw InputError("--null-check", "on or off; got '" + a.null_check + "'");
  if (!a.inject.empty() && a.inject != "torn-rmw")
    throw InputError("--inject", "torn-rmw is the one bug to inject; got '" + a.inject + "'");
  if (!std::filesystem::is_directory(a.out))
    throw InputError("--out", "'" + a.out + "' is not a directory");
  q.threads = a.threads;
  q.pool = a.pool;
  q.rule = a.rule == "printed" ? check::Rule::printed : check::Rule::alloclab;
  q.null_check = a.null_check == "on";
  q.torn_rmw = a.inject == "torn-rmw";
  q.out_dir = a.out;
  std::vector<check::CheckRow> rows;
  try {
    q.ops = check::parse_script(a.ops);
    rows = check::run_checks(q);
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind("--", 0) == 0) rethrow_input(e);
    throw InputError("--ops", e.what());
  }
  if (a.format == Format::json)
    check::write_rows_json(std::cout, rows, q);
  else
    check::write_rows_text(std::cout, rows, q);
  std::size_t bad = 0;
  for (const auto& r : rows) bad += r.r.violation ? 1 : 0;
  if (bad)
    throw VerificationError(std::to_string(bad) + " of " + std::to_string(rows.size()) +
                            " allocator(s) violate a property; schedules in " + a.out);
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  std::string names;
  for (const auto& f : check::families()) {
    if (!names.empty()) names += ", ";
    names += f.name;
  }
  auto* cmd = app.add_subcommand(
      "check",
      "Every interleaving of a small case, at the granularity of one shared-memory access, over "
      "the allocators' own step machines (core/): after every step no two live blocks overlap "
      "and the family's invariants hold; at the end, conservation and no null a sequential "
      "allocator of the same capacity would have served. DPOR with sleep sets; spins on "
      "unchanged state are waits (a deadlock when every thread waits). A violation's shortest "
      "schedule found goes to DIR/<allocator>.schedule (replay: alloclab trace --schedule "
      "FILE); exit 3. docs/checking.md says what is proved.\n"
      "Example: alloclab check --allocator all --N 3 --ops alloc:1,free --pool 2\n"
      "Example: alloclab check --allocator gg-bulk-semaphore --N 3 --ops alloc:1 --pool 8 "
      "--rule printed");
  cmd->add_option("--allocator", args->allocators, "a comma list of " + names + ", or all")
      ->capture_default_str();
  cmd->add_option("--N", args->threads,
                  "checker threads (1 .. 16), each one GPU thread running the script (the "
                  "case's N; the search itself runs on one host thread)")
      ->capture_default_str();
  cmd->add_option("--ops", args->ops,
                  "each thread's script: alloc:N (N pages or units, as the allocator counts) and "
                  "free (the thread's latest block; with none, the queue enqueues a new page)")
      ->capture_default_str();
  cmd->add_option("--pool", args->pool,
                  "the pool: pages (gg-tbuddy: a power of two), units (the semaphores, grown in "
                  "batches of 2) or ring slots (ouro-index-queue)")
      ->capture_default_str();
  cmd->add_option("--preemptions", args->preemptions,
                  "at most P preemptions per schedule, or exhaustive")
      ->capture_default_str();
  cmd->add_option("--rule", args->rule,
                  "alloclab, or printed: the papers' printed rules (the bulk semaphore's spin "
                  "rule, TBuddy's merge rule, Ouroboros' full check)")
      ->capture_default_str();
  cmd->add_option("--null-check", args->null_check,
                  "on: a null must be one a sequential allocator of the same capacity gives; off: "
                  "nulls are not checked")
      ->capture_default_str();
  cmd->add_option("--inject", args->inject,
                  "torn-rmw: every read-modify-write split into a load and a store (a bug the "
                  "checker must find)");
  cmd->add_option("--out", args->out, "DIR for the violating schedules")->capture_default_str();
  add_format_option(*cmd, args->format, {Format::table, Format::json});
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
