// The studies together: the tables against the folders on disk (an independent list), every
// study's report part run on an empty directory with every claim judged, the papers' citations
// complete, and the studies' subcommands reaching `alloclab`'s command table.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "alloclab/cli/command_table.hpp"
#include "alloclab/render/study_report.hpp"
#include "alloclab/validation/study.hpp"

using namespace alloclab;

namespace {

// The study folders: every directory under studies/ with a CMakeLists.txt (as studies/
// CMakeLists.txt adds them).
std::set<std::string> study_folders() {
  namespace fs = std::filesystem;
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(ALLOCLAB_STUDIES_DIR))
    if (e.is_directory() && fs::exists(e.path() / "CMakeLists.txt"))
      out.insert(e.path().filename().string());
  return out;
}

}  // namespace

TEST_CASE("every study folder registers one study, and every study a report part", "[studies]") {
  const auto folders = study_folders();
  REQUIRE(folders.size() >= 6);  // paper 000, its hash join and the four other papers
  std::set<std::string> names;
  for (const auto* s : validation::StudyTable::instance().all()) {
    CHECK(names.insert(std::string(s->name)).second);
    CHECK(render::StudyReportTable::instance().find(s->name) != nullptr);
  }
  CHECK(names == folders);
}

TEST_CASE("every study cites its paper whole: authors, title, venue, year, DOI", "[studies]") {
  for (const auto* s : validation::StudyTable::instance().all()) {
    INFO(s->name);
    CHECK_FALSE(s->label.empty());
    CHECK_FALSE(s->paper.authors.empty());
    CHECK_FALSE(s->paper.title.empty());
    CHECK_FALSE(s->paper.venue.empty());
    CHECK(s->paper.year >= 1990);
    CHECK(s->paper.year <= 2030);
    CHECK(s->paper.doi.rfind("10.", 0) == 0);  // a DOI's prefix
    // The venue's two-digit year is the year's (ICS'22 is 2022).
    const auto tick = s->paper.venue.find('\'');
    REQUIRE(tick != std::string_view::npos);
    CHECK(std::stoi(std::string(s->paper.venue.substr(tick + 1))) == s->paper.year % 100);
  }
}

TEST_CASE("every study's report part judges every claim it checks, with no data at all",
          "[studies]") {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "alloclab_studies_test_empty";
  fs::create_directories(dir);
  const std::vector<validation::TidyRow> rows;
  const nlohmann::json metadata;
  const std::vector<validation::Verdict> verdicts;
  const std::vector<validation::WorkloadRow> workload_rows;
  const render::StudyReportInputs in{dir.string(), rows, metadata, verdicts, workload_rows};
  std::set<std::string> anchors;
  for (const auto* s : validation::StudyTable::instance().all()) {
    INFO(s->name);
    const auto* part = render::StudyReportTable::instance().find(s->name);
    REQUIRE(part != nullptr);
    const auto report = part->build(in);
    for (const auto& c : report.claims) {
      INFO(c.where << " " << c.claim);
      CHECK(c.judgement != validation::Judgement::unset);
      CHECK_FALSE(c.verdict.empty());
    }
    // count_judgements refuses an unjudged claim; the counts add up to the claims.
    CHECK(render::count_judgements(report.claims).total() == report.claims.size());
    // Section anchors are unique across the whole report.
    for (const auto& section : report.sections) CHECK(anchors.insert(section.id).second);
    // A study with errata registered returns the same errata in its report part.
    if (s->errata) CHECK(s->errata().size() == report.errata.size());
  }
}

TEST_CASE("every study subcommand belongs to a registered study and adds a subcommand",
          "[studies]") {
  CLI::App app;
  std::size_t added = 0;
  for (const cli::CommandEntry* entry : cli::CommandTable::instance().all()) {
    INFO(entry->study);
    CHECK(validation::StudyTable::instance().find(entry->study) != nullptr);
    const auto subs = entry->add(app);
    CHECK_FALSE(subs.empty());
    added += subs.size();
  }
  CHECK(app.get_subcommands([](CLI::App*) { return true; }).size() == added);
  CHECK(added >= 5);  // join, semaphore, rcu, wator, linux-scalability
}
