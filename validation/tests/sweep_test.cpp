#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "alloclab/validation/sweep.hpp"
#include "alloclab/validation/tidy.hpp"

using namespace alloclab;
using namespace alloclab::validation;
namespace fs = std::filesystem;

namespace {
fs::path fresh_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("alloclab_test_" + name);
  fs::remove_all(d);
  return d;
}

std::vector<Scenario> grid(int n) {
  std::vector<Scenario> pts;
  for (int i = 1; i <= n; ++i) {
    Scenario s;
    s.algo = Algorithm::rw;
    s.N = static_cast<std::uint64_t>(i);
    s.A = 100;
    s.T = 1000;
    pts.push_back(s);
  }
  return pts;
}

Backend counting_backend(int& calls) {
  Backend b;
  b.name = "model";
  b.metrics = {"tas", "was"};
  b.applies = [](const Scenario& s) { return s.N != 3; };  // one point not covered
  b.evaluate = [&calls](const Scenario& s) {
    ++calls;
    Record r;
    r.set("tas", static_cast<double>(s.N) * 1.5).set("tas_sd", 0.25).set_int("trials", 8);
    r.set_quantity("was", std::nullopt, "undefined here");
    return r;
  };
  return b;
}
}  // namespace

TEST_CASE("tidy rows round-trip through CSV", "[validation]") {
  const auto dir = fresh_dir("tidy");
  fs::create_directories(dir);
  const auto path = (dir / "t.csv").string();
  TidyRow r;
  r.point = {Algorithm::rwbm, "sim", "lockstep", 1024, 5000, 1000000, 64, 32, 1};
  r.metric = "tas";
  r.mean = 0.1 + 0.2;
  r.sd = 1.0 / 3;
  r.ci95 = 0.125;
  r.n = 20;
  TidyRow null_row = r;
  null_row.metric = "was_bound";
  null_row.mean.reset();
  {
    std::ofstream out(path);
    write_header(out);
    write_row(out, r);
    write_row(out, null_row);
  }
  const auto rows = read_tidy(path);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].point == r.point);
  CHECK(*rows[0].mean == 0.1 + 0.2);  // exact round trip
  CHECK(rows[0].sd == 1.0 / 3);
  CHECK(rows[0].n == 20);
  CHECK_FALSE(rows[1].mean.has_value());
}

TEST_CASE("a torn last line is dropped, a malformed middle line is an error", "[validation]") {
  const auto dir = fresh_dir("torn");
  fs::create_directories(dir);
  const auto path = (dir / "t.csv").string();
  {
    std::ofstream out(path);
    out << kTidyHeaderWithoutBitChoice
        << "\nrw,model,,1,100,1000,32,32,1,tas,10,0,0,1\nrw,model,,2,10";
  }
  CHECK(read_tidy(path).size() == 1);
  {
    std::ofstream out(path);
    out << kTidyHeaderWithoutBitChoice
        << "\nrw,model,,1,100\nrw,model,,1,100,1000,32,32,1,tas,10,0,0,1\n";
  }
  CHECK_THROWS_WITH(read_tidy(path), Catch::Contains(":2:"));
  // Algorithms are parsed once, here: an unknown name is an error naming it and its line.
  {
    std::ofstream out(path);
    out << kTidyHeaderWithoutBitChoice
        << "\nrw,model,,1,100,1000,32,32,1,tas,10,0,0,1\nslab,model,,1,100,1000,32,32,1,tas,10,0,0,"
           "1\n";
  }
  CHECK_THROWS_WITH(read_tidy(path),
                    Catch::Contains(":3: unknown algorithm 'slab'") && Catch::Contains("rwbm"));
}

TEST_CASE("the bit_choice column: old CSVs read as lowest, new ones round-trip", "[validation]") {
  const auto dir = fresh_dir("bitchoice");
  fs::create_directories(dir);
  const auto path = (dir / "b.csv").string();
  {
    // a file written before the column existed (reports/standard/sweep.csv has this header)
    std::ofstream out(path);
    out << "algo,backend,mode,N,A,T,w,lanes,pages,metric,mean,sd,ci95,n\n"
        << "rwbm,gpu,,1024,5000,1000000,32,32,1,collisions,7.95,3.1,1.4,20\n";
  }
  auto rows = read_tidy(path);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].point.bit_choice == BitChoice::lowest);
  CHECK(rows[0].metric == "collisions");
  CHECK(*rows[0].mean == 7.95);
  CHECK(rows[0].n == 20);
  // the current format: a rotated row and a lowest row of the same point are different keys
  TidyRow rotated = rows[0];
  rotated.point.bit_choice = BitChoice::rotated;
  rotated.mean = 1.5;
  {
    std::ofstream out(path);
    write_header(out);
    write_row(out, rows[0]);
    write_row(out, rotated);
  }
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  CHECK(header == "algo,backend,mode,N,A,T,w,lanes,pages,bit_choice,metric,mean,sd,ci95,n,device");
  const auto back = read_tidy(path);
  REQUIRE(back.size() == 2);
  CHECK(back[0].point == rows[0].point);
  CHECK(back[1].point.bit_choice == BitChoice::rotated);
  CHECK(back[0].point.text() != back[1].point.text());
  CHECK(back[0].point.text() == rows[0].point.text());  // lowest keys as before the column
  {
    std::ofstream out(path);
    write_header(out);
    out << "rwbm,gpu,,1024,5000,1000000,32,32,1,highest,collisions,1,0,0,20\n";
  }
  CHECK_THROWS_WITH(read_tidy(path), Catch::Contains(":2:"));
}

TEST_CASE("an interrupted sweep resumes where it stopped", "[validation]") {
  const auto dir = fresh_dir("resume");
  int calls = 0;
  const auto pts = grid(6);
  auto s1 = run_sweep(pts, {counting_backend(calls)}, dir.string(), {{"seed", 1}}, {});
  CHECK(calls == 5);
  CHECK(s1.not_applicable == 1);
  const auto full = read_tidy(s1.csv_path);
  REQUIRE(full.size() == 10);  // 5 points x {tas, was}
  CHECK(full[0].n == 8);
  CHECK(full[0].sd == 0.25);
  CHECK_FALSE(full[1].mean.has_value());

  // Interrupt: keep the header, two whole points and half a line of the third.
  std::ifstream in(s1.csv_path);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t cut = 0;
  for (int newlines = 0; newlines < 5; ++cut)
    if (all[cut] == '\n') ++newlines;
  {
    std::ofstream out(s1.csv_path, std::ios::trunc);
    out << all.substr(0, cut + 7);
  }
  calls = 0;
  auto s2 = run_sweep(pts, {counting_backend(calls)}, dir.string(), {{"seed", 1}}, {});
  CHECK(s2.resumed == 2);
  CHECK(calls == 3);
  const auto resumed = read_tidy(s2.csv_path);
  CHECK(resumed.size() == 10);
  std::map<std::string, int> per_point;
  for (const auto& r : resumed) ++per_point[r.point.text() + r.metric];
  for (const auto& [k, c] : per_point) CHECK(c == 1);  // nothing written twice
}

TEST_CASE("the device column: gpu rows name their device, older files read without it",
          "[validation]") {
  const auto dir = fresh_dir("device");
  fs::create_directories(dir);
  const auto path = (dir / "d.csv").string();
  TidyRow r;
  r.point = {Algorithm::rwbm, "gpu", "", 1024, 5000, 1000000, 32, 32, 1};
  r.metric = "kernel_ms";
  r.mean = 0.5;
  r.device = "NVIDIA H200 (0000:19:00.0)";
  TidyRow odd = r;
  odd.point.N = 2048;
  odd.device = "Card, rev 2";  // a comma would shift every later column
  {
    std::ofstream out(path);
    write_header(out);
    write_row(out, r);
    write_row(out, odd);
  }
  auto rows = read_tidy(path);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].device == "NVIDIA H200 (0000:19:00.0)");
  CHECK(rows[1].device == "Card  rev 2");
  CHECK(rows[1].point.N == 2048);
  {
    std::ofstream out(path);
    out << kTidyHeaderWithoutDevice
        << "\nrwbm,gpu,,1024,5000,1000000,32,32,1,lowest,tas,3,0,0,20\n";
  }
  rows = read_tidy(path);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].device.empty());
  CHECK(*rows[0].mean == 3);
}

TEST_CASE(
    "a journal names the pairs a stopped sweep lost and the next run drops their rows and "
    "runs them again",
    "[validation]") {
  const auto dir = fresh_dir("journal");
  int calls = 0;
  const auto pts = grid(6);
  auto s1 = run_sweep(pts, {counting_backend(calls)}, dir.string(), {{"seed", 1}}, {});
  CHECK_FALSE(fs::exists(s1.journal_path));  // a run that ends leaves none
  CHECK(s1.lost_earlier.empty());

  // A run stopped while point N=4 was being written: its first row (tas) reached sweep.csv, its
  // second (was) did not; the journal has its "+" and no "-". Without the journal the tas row
  // would pass for the whole pair.
  std::ifstream in(s1.csv_path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  REQUIRE(lines.size() == 11);  // header + 5 points x 2 metrics, in point order
  REQUIRE(lines[5].rfind("rw,model,,4,", 0) == 0);
  {
    std::ofstream out(s1.csv_path, std::ios::trunc);
    for (int i = 0; i <= 5; ++i) out << lines[static_cast<std::size_t>(i)] << '\n';
    std::ofstream journal(s1.journal_path, std::ios::trunc);
    journal << "+rw|model||N=1|A=100|T=1000|w=32|L=32|n=1\tpoint one\n"
            << "-rw|model||N=1|A=100|T=1000|w=32|L=32|n=1\n"
            << "+rw|model||N=4|A=100|T=1000|w=32|L=32|n=1\tpoint four\n"
            << "+rw|model||N=5|A=100|T=1000|w=32|L=32|n=1\tpoint fi";  // torn: not handed out
  }
  calls = 0;
  auto s2 = run_sweep(pts, {counting_backend(calls)}, dir.string(), {{"seed", 1}}, {});
  CHECK(s2.lost_earlier == std::vector<std::string>{"point four"});
  CHECK(s2.resumed == 2);  // N = 1, 2; N = 4's lone row does not count
  CHECK(calls == 3);       // N = 4 again, 5 and 6 (N = 3 is not applicable)
  const auto rows = read_tidy(s2.csv_path);
  std::map<std::string, int> per_row;
  for (const auto& r : rows) ++per_row[r.point.text() + " " + r.metric];
  CHECK(rows.size() == 10);
  for (const auto& [k, c] : per_row) CHECK(c == 1);
  CHECK(per_row.count("rw|model||N=4|A=100|T=1000|w=32|L=32|n=1 was") == 1);
}

TEST_CASE("a pair whose evaluation throws stays in the journal as lost", "[validation]") {
  const auto dir = fresh_dir("journal_throw");
  int calls = 0;
  Backend failing = counting_backend(calls);
  failing.evaluate = [](const Scenario& s) -> Record {
    if (s.N == 2) throw std::runtime_error("device fell off the bus");
    Record r;
    r.set("tas", 1.0).set_int("trials", 8);
    return r;
  };
  const auto pts = grid(6);
  CHECK_THROWS_WITH(run_sweep(pts, {failing}, dir.string(), {{"seed", 1}}, {}),
                    Catch::Contains("fell off"));
  REQUIRE(fs::exists(dir / "sweep.journal"));
  calls = 0;
  const auto s = run_sweep(pts, {counting_backend(calls)}, dir.string(), {{"seed", 1}}, {});
  REQUIRE(s.lost_earlier.size() == 1);
  CHECK(s.lost_earlier[0] == "rw model N=2 A=100 T=1000");
  CHECK(s.resumed == 1);  // N = 1
  CHECK(calls == 4);
}

TEST_CASE("the dealer gives device jobs only to processes with a device, and those first",
          "[validation]") {
  Backend sim, gpu;
  sim.name = "sim";
  gpu.name = "gpu";
  gpu.needs_device = true;
  // jobs 0..5: sim, gpu, sim, gpu, gpu, sim
  const std::vector<SweepJob> jobs = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 1}, {2, 0}};
  SweepDealer d(jobs, {sim, gpu});
  CHECK(d.waiting() == 6);
  CHECK(d.take(false) == 0u);  // no device: the first job that needs none
  CHECK(d.take(true) == 1u);   // a device: the device's jobs first, in order
  CHECK(d.take(false) == 2u);
  CHECK(d.take(true) == 3u);
  CHECK(d.take(true) == 4u);
  CHECK(d.take(true) == 5u);  // the device line is empty: the rest
  CHECK_FALSE(d.take(true).has_value());
  CHECK_FALSE(d.take(false).has_value());
  // A process without a device is told there is nothing for it while device jobs still wait.
  SweepDealer only_gpu({{0, 1}, {1, 1}}, {sim, gpu});
  CHECK_FALSE(only_gpu.take(false).has_value());
  CHECK(only_gpu.waiting() == 2);
  CHECK(only_gpu.take(true) == 0u);
}

TEST_CASE("durations read naturally", "[validation]") {
  CHECK(format_duration(12.4) == "12s");
  CHECK(format_duration(185) == "3m05s");
  CHECK(format_duration(3720) == "1h02m");
}
