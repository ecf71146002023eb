// One command-line vocabulary (issue 35, docs/architecture.md): every subcommand's --help uses the
// shared names for the shared meanings and none of the retired spellings, and each retired
// spelling, on each subcommand that had it, exits 2 with one line naming the new one. The retired
// cases come from the CLI's own table (retired_options.hpp); the expected lines of a few and the
// table of which command offers which shared option are written here by hand.
#include <catch2/catch.hpp>

#include <cctype>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "alloclab/cli/retired_options.hpp"

using namespace alloclab::cli;

namespace {

struct Ran {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `alloclab ARGS` (ARGS as a shell reads them), its exit status, stdout and stderr.
Ran run(const std::string& args) {
  const auto dir = std::filesystem::path(ALLOCLAB_VOCABULARY_WORK);
  std::filesystem::create_directories(dir);
  // ctest runs the test cases as processes side by side: files of this process's own.
  const std::string me = std::to_string(::getpid());
  const auto out = dir / (me + ".out"), err = dir / (me + ".err");
  const std::string cmd = std::string("\"") + ALLOCLAB_EXE + "\" " + args + " > \"" + out.string() +
                          "\" 2> \"" + err.string() + "\"";
  const int raw = std::system(cmd.c_str());
  Ran r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The subcommands `alloclab --help` lists.
std::vector<std::string> subcommands() {
  const Ran help = run("--help");
  std::istringstream in(help.out);
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    // Under each group of --help, a subcommand's line is its name indented by two spaces (the
    // options' lines start with '-' there).
    if (line.size() < 3 || line.compare(0, 2, "  ") != 0 ||
        !std::islower(static_cast<unsigned char>(line[2])))
      continue;
    std::istringstream words(line);
    std::string name;
    words >> name;
    names.push_back(name);
  }
  return names;
}

// The option names of a subcommand's --help ("-h", "--help", "--allocator", ...), and the type
// each shows ("TEXT", "table|csv|json|md"; a default after '=' left off), from its "Options:"
// list.
std::map<std::string, std::string> options_of(const std::string& help) {
  std::map<std::string, std::string> out;
  std::istringstream in(help);
  bool listing = false;
  static const std::regex option(R"(^  ((?:-[A-Za-z0-9-]+,)*-[A-Za-z0-9-]+)(?: ([^ ]+))?)");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Options:", 0) == 0) {
      listing = true;
      continue;
    }
    if (listing && line.empty()) break;
    std::smatch m;
    if (!listing || !std::regex_search(line, m, option)) continue;
    std::istringstream names(m[1].str());
    const std::string type = m[2].str().substr(0, m[2].str().find('='));
    for (std::string n; std::getline(names, n, ',');) out[n] = type;
  }
  return out;
}

// Whether `text` holds `word` as an option token (not a part of a longer option name).
bool mentions(const std::string& text, const std::string& word) {
  const std::regex token("(^|[^-A-Za-z0-9])" + std::regex_replace(word, std::regex("-"), "\\-") +
                         "([^-A-Za-z0-9]|$)");
  return std::regex_search(text, token);
}

}  // namespace

TEST_CASE("every subcommand's help uses the shared names and no retired spelling", "[cli]") {
  const auto commands = subcommands();
  REQUIRE(commands.size() == 17);  // the engine's 12 and the studies' 5
  // Which command offers which shared option, by hand (docs/architecture.md's table).
  const std::set<std::string> allocator{"model",    "simulate",          "measure", "sweep",
                                        "workload", "explain",           "trace",   "join",
                                        "wator",    "linux-scalability", "check"};
  const std::set<std::string> backend{"sweep", "workload", "semaphore",        "rcu",
                                      "wator", "list",     "linux-scalability"};
  const std::set<std::string> out{"sweep", "report", "fit-time", "workload", "trace", "check"};
  const std::set<std::string> pool{"workload",          "join",  "wator",
                                   "linux-scalability", "trace", "check"};
  const std::set<std::string> rows{"model",    "simulate", "measure",          "validate",
                                   "workload", "explain",  "semaphore",        "rcu",
                                   "join",     "wator",    "linux-scalability"};
  // Spellings that mean nothing anywhere now (--pages stays: pages per request).
  const std::vector<std::string> gone{"--algo",       "--algos", "--backends",
                                      "--heap-bytes", "--heap",  "--host-threads",
                                      "--svg",        "-o",      "--output"};
  for (const auto& c : commands) {
    INFO("alloclab " << c << " --help");
    const Ran help = run(c + " --help");
    REQUIRE(help.status == 0);
    auto options = options_of(help.out);
    REQUIRE(options.count("--help") == 1);
    for (const auto& g : gone) {
      INFO(g);
      CHECK(options.count(g) == 0);
      CHECK_FALSE(mentions(help.out, g));  // nor in the description, footer or examples
    }
    for (const auto& r : kRetiredOptions)
      if (retired_in(r, c)) {
        INFO(r.old_name);
        CHECK(options.count(std::string(r.old_name)) == 0);
        CHECK_FALSE(mentions(help.out, std::string(r.old_name)));
      }
    CHECK(options.count("--allocator") == allocator.count(c));
    CHECK(options.count("--backend") == backend.count(c));
    CHECK(options.count("--out") == out.count(c));
    CHECK(options.count("--pool") == pool.count(c));
    if (rows.count(c)) CHECK(options["--format"] == "table|csv|json|md");
  }
  // trace prints rounds and a drawing, not rows: the shared names, fewer of them.
  CHECK(options_of(run("trace --help").out)["--format"] == "table|json");
  // --threads is host threads wherever it is; linux-scalability's allocating threads are --N.
  const auto ls = run("linux-scalability --help").out;
  CHECK(options_of(ls).count("--N") == 1);
  CHECK(ls.find("host threads") != std::string::npos);
}

TEST_CASE("each retired spelling exits 2 with one line naming the new one", "[cli]") {
  std::size_t cases = 0;
  for (const auto& r : kRetiredOptions) {
    const std::string expected = "alloclab: error: " + retired_message(r) + "\n";
    for (const std::string& c : subcommands()) {
      if (!retired_in(r, c)) continue;
      // With a value and without one (CLI11 checks required options and extra words after).
      for (const std::string& args :
           {c + " " + std::string(r.old_name) + " x", c + " " + std::string(r.old_name)}) {
        INFO("alloclab " << args);
        const Ran ran = run(args);
        CHECK(ran.status == 2);
        CHECK(ran.out.empty());
        CHECK(ran.err == expected);
        ++cases;
      }
    }
  }
  CHECK(cases >= 2 * std::size(kRetiredOptions));
  // A few lines written out by hand.
  CHECK(run("model --algo rw --N 10 --A 100 --T 1000").err ==
        "alloclab: error: --algo is now --allocator\n");
  CHECK(run("sweep --algos rw --backends model --out d").err ==
        "alloclab: error: --algos is now --allocator\n");
  CHECK(run("sweep --allocator rw --backends model --out d").err ==
        "alloclab: error: --backends is now --backend\n");
  CHECK(run("measure --allocator cudamalloc --heap-bytes 4GiB").err ==
        "alloclab: error: --heap-bytes is now --cuda-heap\n");
  CHECK(run("fit-time reports/standard -o fit.json").err ==
        "alloclab: error: -o is now --out (a directory: the fit goes to DIR/time_fit.json)\n");
  CHECK(run("linux-scalability --host-threads 2").err ==
        "alloclab: error: --host-threads is now --threads\n");
  CHECK(run("join --pages 4096").err ==
        "alloclab: error: --pages is now --pool (bytes, pages of 256 B: 2^27 pages = 32GiB)\n");
  // A retired value: --format text (explain, trace) is the table.
  const Ran text = run("explain --allocator rw --N 1 --A 5 --T 100 --format text");
  CHECK(text.status == 2);
  CHECK(text.out.empty());
  CHECK(text.err == "alloclab: error: --format text is now --format table\n");
}

TEST_CASE("format md: a Markdown table of the rows the table format prints", "[cli]") {
  // The model at one point worked by hand: queue, N = 3, TAS = (N + 1) / 2 = 2.
  const Ran md = run("model --allocator queue --N 3 --A 5 --T 100 --format md");
  REQUIRE(md.status == 0);
  std::istringstream in(md.out);
  std::string header, rule, row;
  std::getline(in, header);
  std::getline(in, rule);
  std::getline(in, row);
  CHECK(header.rfind("| algo | N | A | T |", 0) == 0);
  CHECK(rule.rfind("|---|---|---|---|", 0) == 0);
  CHECK(row.rfind("| queue | 3 | 5 | 100 |", 0) == 0);
  CHECK(mentions(row, "2"));
}
