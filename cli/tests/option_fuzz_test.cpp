// Fuzzes the options of every `alloclab` subcommand with random, mostly invalid values, and holds
// every run to the house rules for bad input: exit 0, 1, 2 or 3, never a signal; on an error
// nothing on stdout and at most 3 lines on stderr, none of them exception text; done within
// kRunLimitS. The subcommands come from `alloclab --help` and their options from
// `alloclab <cmd> --help`, so a new option is fuzzed without editing this file.
//
// Every command line carries at least one value that no parser may accept (its "anchor"), so a
// correct CLI rejects it before any work and no run is a long, legitimate computation:
//  - a syntax run gives a numeric option text that is no number of its kind (-1 to an unsigned
//    count, 2^64, nan, garbage); its other values may be huge but well-formed;
//  - a deep run gives a list or choice option (TEXT, not a path) a value no list, byte count or
//    name parser takes (-5, 5:1:1, 1..8*1, 2^64, nosuch); its numbers are small and well formed,
//    so the commands' own checks (zero counts, ranges, combinations) are reached.
// The seed (ALLOCLAB_FUZZ_SEED, default kDefaultSeed) and the number of runs (ALLOCLAB_FUZZ_RUNS)
// make a run reproducible; a failure prints both and the command line. ALLOCLAB_FUZZ_VERBOSE=1
// prints every command line and its stderr.
#include <catch2/catch.hpp>

#include <cctype>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace {

constexpr std::uint64_t kDefaultSeed = 35;
constexpr int kDefaultRuns = 1200;
constexpr double kRunLimitS = 20;

enum class Kind { flag, whole_unsigned, whole_signed, real, text, path };

struct OptionSpec {
  std::string name;  // --trials, or a positional's name (DIR)
  Kind kind = Kind::flag;
  bool required = false;
  bool positional = false;
  std::vector<std::string> words;  // names its help offers (rw|rwbm, {collective,single})
};

struct Command {
  std::string name;
  std::vector<OptionSpec> options;
};

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Names a help text offers: a|b|c runs and {a,b} sets.
std::vector<std::string> offered_words(const std::string& text) {
  std::vector<std::string> out;
  static const std::regex bar_run("[a-z0-9][a-z0-9-]*(\\|[a-z0-9][a-z0-9-]*)+");
  static const std::regex set("\\{([a-z0-9,-]+)\\}");
  for (std::sregex_iterator it(text.begin(), text.end(), bar_run), end; it != end; ++it) {
    std::istringstream parts(it->str());
    for (std::string w; std::getline(parts, w, '|');) out.push_back(w);
  }
  for (std::sregex_iterator it(text.begin(), text.end(), set), end; it != end; ++it) {
    std::istringstream parts((*it)[1].str());
    for (std::string w; std::getline(parts, w, ',');) out.push_back(w);
  }
  return out;
}

// A TEXT option that names a file or directory: any text may be a valid path, so it is never an
// anchor (and is given relative names only: every run works inside the test's directory).
bool names_a_path(const std::string& name, const std::string& help) {
  for (const char* word : {"out", "dir", "svg", "from", "metadata", "device", "study"})
    if (name.find(word) != std::string::npos) return true;
  return help.find("directory") != std::string::npos || help.find("file") != std::string::npos;
}

// One option line of `alloclab <cmd> --help` ("  --lanes UINT=32   threads per warp"), with the
// lines of its description after it.
OptionSpec parse_option(const std::string& head, const std::string& help, bool positional) {
  OptionSpec o;
  o.positional = positional;
  const auto gap = head.find("  ", 2);
  const std::string signature = head.substr(2, gap == std::string::npos ? gap : gap - 2);
  std::istringstream tokens(signature);
  std::string names, type;
  tokens >> names >> type;
  if (type == "REQUIRED" || type == "Excludes:" || type == "Needs:") type.clear();  // a flag
  o.name = names.substr(names.rfind(',') == std::string::npos ? 0 : names.rfind(',') + 1);
  o.required = signature.find(" REQUIRED") != std::string::npos;
  const std::string base = type.substr(0, type.find_first_of(":="));
  if (type.empty())
    o.kind = Kind::flag;
  else if (base == "UINT")
    o.kind = Kind::whole_unsigned;
  else if (base == "INT")
    o.kind = Kind::whole_signed;
  else if (base == "FLOAT")
    o.kind = Kind::real;
  else
    o.kind = names_a_path(o.name, help) || positional ? Kind::path : Kind::text;
  o.words = offered_words(signature + " " + help);
  if (base != "TEXT" && o.kind == Kind::text) {  // a custom type name: its choices
    std::string choices = base;
    std::replace(choices.begin(), choices.end(), '|', ',');
    std::istringstream parts(choices);
    for (std::string w; std::getline(parts, w, ',');)
      if (!w.empty()) o.words.push_back(w);
  }
  o.words.erase(std::remove(o.words.begin(), o.words.end(), "gpu"), o.words.end());  // no device
  return o;
}

std::vector<OptionSpec> parse_options(const std::string& help_text) {
  std::vector<OptionSpec> out;
  bool in_options = false, positional = false;
  std::string head, help;
  auto flush = [&] {
    if (!head.empty() && head.find("--help") == std::string::npos)
      out.push_back(parse_option(head, help, positional));
    head.clear();
    help.clear();
  };
  for (const auto& line : lines_of(help_text)) {
    if (line == "Options:" || line == "Positionals:") {
      flush();
      in_options = true;
      positional = line == "Positionals:";
      continue;
    }
    if (!in_options) continue;
    if (line.size() > 2 && line.compare(0, 2, "  ") == 0 && line[2] != ' ') {
      flush();
      head = line;
      const auto gap = line.find("  ", 2);
      if (gap != std::string::npos) help = line.substr(gap);
    } else if (line.size() > 2 && line[2] == ' ') {
      help += " " + line;
    } else {
      flush();
      in_options = line.empty() ? in_options : false;
    }
  }
  flush();
  return out;
}

std::string shell_quoted(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_=.,:/+^*") == std::string::npos;
    std::string q = a;
    if (!plain) {
      q = "'";
      for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      q += "'";
    }
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

// The values drawn from.
const std::vector<std::string> kBadUnsigned = {"-1",
                                               "-2",
                                               "-1000",
                                               "-18446744073709551615",
                                               "18446744073709551616",
                                               "1e999",
                                               "abc",
                                               "",
                                               "1.5",
                                               "0x10",
                                               "nan",
                                               "inf",
                                               "1,2",
                                               "5 5",
                                               "+-3",
                                               "4e",
                                               "1\n2",
                                               "99999999999999999999999"};
const std::vector<std::string> kBadSigned = {
    "abc", "", "1.5", "9223372036854775808", "-9223372036854775809", "nan", "2-", "1e3"};
const std::vector<std::string> kBadReal = {"nan", "NaN",   "inf",    "-inf", "infinity", "abc",
                                           "",    "1e999", "-1e999", "1,5",  "1.2.3",    "0.5x"};
const std::vector<std::string> kSmallUnsigned = {"0",  "1",  "2",  "3",   "7",  "16",
                                                 "32", "33", "64", "100", "010"};
const std::vector<std::string> kHugeUnsigned = {"4294967295", "4294967296", "18446744073709551615",
                                                "1000000000"};
const std::vector<std::string> kSmallSigned = {"-1", "0", "1", "3", "5", "-100", "1000"};
const std::vector<std::string> kHugeSigned = {"2147483647", "-2147483648", "2147483648"};
const std::vector<std::string> kReal = {"0",      "0.5", "1",   "-1",    "-0.5", "2",
                                        "1e-300", "4.5", "0.1", "1e300", "0.999"};
// No list, byte count or name parser may take these.
const std::vector<std::string> kBadText = {"-5",        "nosuch",   "",
                                           ",",         "1,,2",     "5:1:1",
                                           "1:5:0",     "1:5",      "1..8*1",
                                           "0..8*2",    "1..8",     "2^99999",
                                           "nan",       "inf",      "-1,2",
                                           "abc,def",   "1e999",    "3x",
                                           "1;2",       "-inf",     "18446744073709551616",
                                           "2^64",      "1e20",     "64KiQ",
                                           "-64KiB",    "1:1e12:1", "1..1e300*1.0000001",
                                           "rw,nosuch", "all,rw",   "4,-4",
                                           "2^-1",      "0.5.5",    "\n",
                                           "1:3:-1"};
const std::vector<std::string> kSmallText = {"4",     "16",   "64",    "1,2",  "2..8*2", "1:4:1",
                                             "0.5",   "0.01", "1000",  "4096", "64KiB",  "1MiB",
                                             "60,64", "e,d",  "1,2,1", "0",    "1e6",    "2^10"};
// Relative to the test's directory, which holds a_file.txt (a file where a directory is meant).
const std::vector<std::string> kPaths = {"fuzz_out",   "fuzz_out/sub", "", "missing_dir", "-", ".",
                                         "a_file.txt", "a_file.txt/x"};

struct Fuzzer {
  std::mt19937_64 rng;
  std::vector<std::string> words;  // every name any help offers

  std::size_t below(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
  const std::string& pick(const std::vector<std::string>& v) { return v[below(v.size())]; }

  std::string bad_value(const OptionSpec& o) {
    switch (o.kind) {
      case Kind::whole_unsigned:
        return pick(kBadUnsigned);
      case Kind::whole_signed:
        return pick(kBadSigned);
      case Kind::real:
        return pick(kBadReal);
      case Kind::path:
        return "missing_dir";
      default:
        return pick(kBadText);
    }
  }

  // Any value of its kind. A syntax run's numbers may be malformed or up to 2^64 - 1; a deep
  // run's are small and well formed.
  std::string value(const OptionSpec& o, bool syntax) {
    const bool bad = syntax && chance(0.2), huge = syntax && chance(0.3);
    switch (o.kind) {
      case Kind::whole_unsigned:
        return bad ? bad_value(o) : huge ? pick(kHugeUnsigned) : pick(kSmallUnsigned);
      case Kind::whole_signed:
        return bad ? bad_value(o) : huge ? pick(kHugeSigned) : pick(kSmallSigned);
      case Kind::real:
        return bad ? bad_value(o) : pick(kReal);
      case Kind::path:
        return pick(kPaths);
      default: {
        if (chance(syntax ? 0.25 : 0.1)) return bad_value(o);
        if (!o.words.empty() && chance(0.5)) {
          std::string v = pick(o.words);
          if (chance(0.2)) v += "," + (chance(0.5) ? pick(o.words) : pick(words));
          return v;
        }
        return chance(0.2) && !words.empty() ? pick(words) : pick(kSmallText);
      }
    }
  }

  // A command line for `cmd` with at least one anchor (see the top of this file).
  std::vector<std::string> command_line(const Command& cmd) {
    std::vector<const OptionSpec*> numeric, lists;
    for (const auto& o : cmd.options) {
      if (o.kind == Kind::whole_unsigned || o.kind == Kind::whole_signed || o.kind == Kind::real)
        numeric.push_back(&o);
      if (o.kind == Kind::text || o.positional) lists.push_back(&o);
    }
    const bool syntax = !numeric.empty() && (lists.empty() || chance(0.4));
    const OptionSpec* anchor = syntax ? numeric[below(numeric.size())] : lists[below(lists.size())];
    std::vector<const OptionSpec*> chosen;
    for (const auto& o : cmd.options)
      if (&o == anchor || o.positional || (o.required && chance(0.9)) || chance(0.12))
        chosen.push_back(&o);
    std::shuffle(chosen.begin(), chosen.end(), rng);
    std::vector<std::string> named, positionals;
    for (const OptionSpec* o : chosen) {
      if (o->kind == Kind::flag) {
        named.push_back(o->name);
        continue;
      }
      const std::string v = o == anchor ? bad_value(*o) : value(*o, syntax);
      if (o->positional) {
        positionals.push_back(v);
      } else {
        named.push_back(o->name);
        named.push_back(v);
      }
    }
    named.insert(named.end(), positionals.begin(), positionals.end());
    return named;
  }
};

// What is wrong with a run of `cmd`, or empty. Every run has a bad value: exit 2 with the error
// as the last of at most 3 lines on stderr, naming one of the command's options ("--trials: ...",
// "--A excludes --free"), a positional (DIR) or the subcommand; nothing on stdout.
std::string violation(const alloclab::testing::ChildResult& r, const Command& cmd) {
  if (r.timed_out) return "still running after " + std::to_string(kRunLimitS) + " s (killed)";
  if (r.signal != 0) return "killed by signal " + std::to_string(r.signal);
  if (r.exit_code < 0 || r.exit_code > 3)
    return "exit status " + std::to_string(r.exit_code) + " (0, 1, 2 or 3 only)";
  for (const char* text : {"terminate called", "std::", "what()", "stoi", "stoul", "stod", "stoll",
                           "basic_string", "basic_filebuf", "vector::", "bad_alloc", "Assertion",
                           "Could not convert", "Segmentation", "core dumped"})
    if (r.err.find(text) != std::string::npos)
      return std::string("exception text '") + text + "' on stderr";
  if (r.exit_code != 2) return "exit status " + std::to_string(r.exit_code) + " for bad input (2)";
  if (!r.out.empty()) return "output on stdout for bad input";
  const auto err_lines = lines_of(r.err);
  if (err_lines.size() > 3)
    return std::to_string(err_lines.size()) + " lines on stderr (at most 3)";
  static const std::regex names_a_parameter(
      "alloclab: error: (--[A-Za-z0-9-]+|[A-Z][A-Z_]*|subcommand)[: ].*");
  std::smatch m;
  if (err_lines.empty() || !std::regex_match(err_lines.back(), m, names_a_parameter))
    return "the last line on stderr is no 'alloclab: error: <parameter>...'";
  const bool known =
      m[1] == "subcommand" || std::any_of(cmd.options.begin(), cmd.options.end(),
                                          [&](const OptionSpec& o) { return o.name == m[1]; });
  if (!known) return "the error names " + m[1].str() + ", which is no option of " + cmd.name;
  return {};
}

}  // namespace

TEST_CASE(
    "every subcommand's options, fuzzed: bad input is one line and exit 2, never a hang, "
    "a crash or exception text",
    "[cli][fuzz]") {
  namespace fs = std::filesystem;
  const std::string exe = ALLOCLAB_EXE;
  const fs::path work = ALLOCLAB_FUZZ_WORK;
  fs::remove_all(work);
  fs::create_directories(work);
  std::ofstream(work / "a_file.txt") << "not,a,sweep\n1,2\n";
  const std::uint64_t seed =
      std::stoull(env_or("ALLOCLAB_FUZZ_SEED", std::to_string(kDefaultSeed)));
  const int runs = std::stoi(env_or("ALLOCLAB_FUZZ_RUNS", std::to_string(kDefaultRuns)));
  const bool verbose = !env_or("ALLOCLAB_FUZZ_VERBOSE", "").empty();
  std::cout << "option fuzz: seed " << seed << ", " << runs
            << " runs (set ALLOCLAB_FUZZ_SEED / ALLOCLAB_FUZZ_RUNS to change)\n";

  // The subcommands and their options, from the help.
  const auto top = alloclab::testing::run_child({exe, "--help"}, work.string(), kRunLimitS);
  REQUIRE(top.exit_code == 0);
  std::vector<Command> commands;
  // Under each group of --help, a subcommand's line is its name indented by two spaces (the
  // options' lines start with '-' there).
  for (const auto& line : lines_of(top.out))
    if (line.size() > 2 && line.compare(0, 2, "  ") == 0 &&
        std::islower(static_cast<unsigned char>(line[2])))
      commands.push_back({line.substr(2, line.find(' ', 2) - 2), {}});
  REQUIRE(commands.size() >= 10);
  Fuzzer fuzz{std::mt19937_64(seed), {}};
  for (auto& c : commands) {
    const auto help =
        alloclab::testing::run_child({exe, c.name, "--help"}, work.string(), kRunLimitS);
    INFO(c.name << " --help");
    REQUIRE(help.exit_code == 0);
    c.options = parse_options(help.out);
    for (const auto& o : c.options)
      fuzz.words.insert(fuzz.words.end(), o.words.begin(), o.words.end());
  }
  std::sort(fuzz.words.begin(), fuzz.words.end());
  fuzz.words.erase(std::unique(fuzz.words.begin(), fuzz.words.end()), fuzz.words.end());

  std::map<int, int> exits;
  std::set<std::string> used;  // command/option pairs given a value
  std::vector<std::string> failures;
  int timeouts = 0;
  double slowest = 0;
  std::string slowest_line;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs && timeouts < 3; ++i) {
    const Command& cmd = commands[fuzz.below(commands.size())];
    std::vector<std::string> argv = {exe, cmd.name};
    for (auto& a : fuzz.command_line(cmd)) argv.push_back(std::move(a));
    for (std::size_t k = 2; k < argv.size(); ++k)
      if (argv[k].rfind("--", 0) == 0) used.insert(cmd.name + " " + argv[k]);
    const auto r = alloclab::testing::run_child(argv, work.string(), kRunLimitS);
    timeouts += r.timed_out;
    ++exits[r.timed_out ? -1 : r.signal ? -r.signal : r.exit_code];
    if (r.seconds > slowest) {
      slowest = r.seconds;
      slowest_line = shell_quoted(argv);
    }
    if (verbose)  // every run and its error, to read the messages
      std::cout << "exit " << r.exit_code << ": " << shell_quoted(argv) << "\n  " << r.err;
    const std::string why = violation(r, cmd);
    if (!why.empty())
      failures.push_back("run " + std::to_string(i) + ": " + why + "\n  " + shell_quoted(argv) +
                         "\n  stdout: " + r.out.substr(0, 300) +
                         "\n  stderr: " + r.err.substr(0, 600));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t options = 0;
  for (const auto& c : commands)
    for (const auto& o : c.options) options += !o.positional;
  std::cout << "option fuzz: " << commands.size() << " subcommands, " << used.size() << " of "
            << options << " options used, " << seconds << " s; exit statuses:";
  for (const auto& [code, n] : exits) std::cout << " " << code << ": " << n;
  std::cout << "; slowest run " << slowest << " s: " << slowest_line << "\n";
  for (const auto& f : failures) std::cout << "option fuzz (seed " << seed << ") " << f << "\n";
  CHECK(failures.empty());
  CHECK(timeouts < 3);
}
