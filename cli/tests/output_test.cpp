#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "alloclab/cli/output.hpp"

using namespace alloclab;
using namespace alloclab::cli;

namespace {
std::vector<Record> sample() {
  Record a;
  a.set("algo", std::string("rw")).set_int("N", 10).set("tas", 1.5);
  a.set_quantity("was_bound", std::nullopt, "infinite at A = N");
  Record b;
  b.set("algo", std::string("rw")).set_int("N", 20).set("tas", 0.1 + 0.2);
  return {a, b};
}
}  // namespace

TEST_CASE("json output: one array, nulls, notes, exact doubles", "[cli]") {
  std::ostringstream s;
  write_records(s, sample(), Format::json);
  const auto j = nlohmann::json::parse(s.str());
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  CHECK(j[0]["was_bound"].is_null());
  CHECK(j[0]["notes"][0] == "was_bound: infinite at A = N");
  CHECK(j[1]["tas"].get<double>() == 0.1 + 0.2);
  CHECK(j[1]["N"] == 20);
}

TEST_CASE("csv output: header is the union of keys, values round-trip", "[cli]") {
  std::ostringstream s;
  write_records(s, sample(), Format::csv);
  std::istringstream in(s.str());
  std::string header, row1, row2;
  std::getline(in, header);
  std::getline(in, row1);
  std::getline(in, row2);
  CHECK(header == "algo,N,tas,was_bound,notes");
  CHECK(row1 == "rw,10,1.5,,was_bound: infinite at A = N");
  CHECK(std::stod(row2.substr(row2.find("20,") + 3)) == 0.1 + 0.2);
}

TEST_CASE("table output marks nulls and lists notes", "[cli]") {
  std::ostringstream s;
  write_records(s, sample(), Format::table);
  CHECK(s.str().find("[1] was_bound: infinite at A = N") != std::string::npos);
  CHECK(s.str().find(" -") != std::string::npos);
}

TEST_CASE("md output: a Markdown table, '|' escaped, nulls as -, notes numbered under it",
          "[cli]") {
  std::vector<Record> records = sample();
  records[1].set("algo", std::string("a|b"));
  std::ostringstream s;
  write_records(s, records, Format::md);
  CHECK(s.str() ==
        "| algo | N | tas | was_bound |\n"
        "|---|---|---|---|\n"
        "| rw | 10 | 1.5 | - [1] |\n"
        "| a\\|b | 20 | 0.3 | - |\n"
        "\n"
        "1. was_bound: infinite at A = N\n");
}

TEST_CASE("format names: table, csv, json, md", "[cli]") {
  CHECK(std::string(format_name(Format::table)) == "table");
  CHECK(std::string(format_name(Format::csv)) == "csv");
  CHECK(std::string(format_name(Format::json)) == "json");
  CHECK(std::string(format_name(Format::md)) == "md");
}
