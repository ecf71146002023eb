// The CSV reader shared by tidy sweeps and workload rows, against hand-written lines.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "alloclab/validation/record_csv.hpp"

using namespace alloclab;
using namespace alloclab::validation;
namespace fs = std::filesystem;

TEST_CASE("split_csv_record: quotes keep commas, doubled quotes, empty cells", "[csv]") {
  const auto cells = split_csv_record(R"(a,"b, c","say ""hi""",,"")");
  REQUIRE(cells);
  CHECK(*cells == std::vector<std::string>{"a", "b, c", "say \"hi\"", "", ""});
  CHECK(*split_csv_record("x,") == std::vector<std::string>{"x", ""});
  CHECK_FALSE(split_csv_record(R"(a,"open)"));  // the quoted cell goes on past the line
}

TEST_CASE("read_records_csv: typed cells, the notes column, a quoted line break", "[csv]") {
  const fs::path dir = fs::path(ALLOCLAB_TEST_WORK) / "record_csv";
  fs::create_directories(dir);
  const auto path = (dir / "r.csv").string();
  std::ofstream(path) << "name,n,x,flag,empty,notes\n"
                         "rw,42,0.5,true,,\"one; two, three\"\n"
                         "\"two\nlines\",-3,1e-3,false,,\n";
  const auto rows = read_records_csv(path);
  REQUIRE(rows.size() == 2);
  const Record& a = rows[0].record;
  CHECK(rows[0].line == 2);
  CHECK(std::get<std::string>(*a.find("name")) == "rw");
  CHECK(std::get<std::int64_t>(*a.find("n")) == 42);
  CHECK(std::get<double>(*a.find("x")) == 0.5);
  CHECK(std::get<bool>(*a.find("flag")));
  CHECK(std::holds_alternative<std::monostate>(*a.find("empty")));
  CHECK(a.find("notes") == nullptr);
  CHECK(a.notes == std::vector<std::string>{"one; two, three"});  // one note, not split
  const Record& b = rows[1].record;
  CHECK(rows[1].line == 3);
  CHECK(std::get<std::string>(*b.find("name")) == "two\nlines");
  CHECK(std::get<std::int64_t>(*b.find("n")) == -3);
  CHECK(std::get<double>(*b.find("x")) == 1e-3);
  CHECK(b.notes.empty());
}

TEST_CASE("read_records_csv: a short row names its file and line", "[csv]") {
  const fs::path dir = fs::path(ALLOCLAB_TEST_WORK) / "record_csv";
  fs::create_directories(dir);
  const auto path = (dir / "short.csv").string();
  std::ofstream(path) << "a,b,c\n1,2,3\n1,2\n";
  CHECK_THROWS_WITH(read_records_csv(path),
                    Catch::Contains("short.csv:3") && Catch::Contains("expected 3 cells"));
  std::ofstream(path) << "a,b\n\"1,2\n";
  CHECK_THROWS_WITH(read_records_csv(path), Catch::Contains("not closed"));
}
