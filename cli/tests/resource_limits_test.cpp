#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "alloclab/cli/resource_limits.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/memory_estimate.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

using namespace alloclab;
using namespace alloclab::cli;

namespace {

// Resident memory now and the process's peak so far, in bytes (Linux).
double resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<double>(::sysconf(_SC_PAGE_SIZE));
}
double peak_bytes() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024;  // ru_maxrss is in kB on Linux
}

// The growth of the peak resident memory while one trial of s runs, against the estimate.
void check_against_measured(const Scenario& s) {
  sim::SimOptions o;
  o.host_threads = 1;
  const double estimate = sim::memory_estimate(s, o, 1).total();
  const double before = resident_bytes();
  REQUIRE(peak_bytes() < before + 0.5 * estimate);  // an earlier peak would hide this one
  (void)sim::run_once(s, o, 0);
  const double measured = peak_bytes() - before;
  INFO("estimate " << estimate << " B, measured peak growth " << measured << " B");
  CHECK(measured >= 0.7 * estimate);
  CHECK(measured <= 1.4 * estimate);
}

}  // namespace

TEST_CASE("the simulator's memory estimate matches its measured peak", "[cli][memory]") {
  Scenario rwbm;  // bitmap: 2^22 words of 4 bits, each in a 64-bit atomic = 32 MiB
  rwbm.algo = Algorithm::rwbm;
  rwbm.w = 4;
  rwbm.T = std::uint64_t{1} << 24;
  rwbm.A = rwbm.T / 2;
  rwbm.N = 1024;
  check_against_measured(rwbm);
  Scenario queue;  // a 64-bit slot per page (64 MiB) and the free page ids (32 MiB)
  queue.algo = Algorithm::queue;
  queue.T = std::uint64_t{1} << 23;
  queue.A = queue.T / 2;
  queue.N = 1024;
  check_against_measured(queue);
}

TEST_CASE("a point the machine cannot hold names what to lower", "[cli][memory]") {
  sim::SimOptions o;
  o.host_threads = 2;
  Scenario s;
  s.algo = Algorithm::rw;
  s.N = 1000;
  s.A = 500000000000;
  s.T = 1000000000000;  // 10^12 pages: 125 GB of bitmap alone
  const std::uint64_t gib16 = std::uint64_t{16} << 30;
  try {
    check_simulator_memory(s, o, 1, gib16);
    FAIL("accepted 10^12 pages in 16 GiB");
  } catch (const InputError& e) {
    CHECK(e.parameter() == "--T");
    CHECK(std::string(e.what()).find("17.2 GB of physical memory") != std::string::npos);
  }
  // Many large trials with a small pool: the kept results dominate.
  s.T = s.A = 1 << 20;
  s.N = 1 << 20;
  try {
    check_simulator_memory(s, o, 1000000, gib16);
    FAIL("accepted 10^6 trials of 2^20 threads in 16 GiB");
  } catch (const InputError& e) {
    CHECK(e.parameter() == "--trials");
  }
  CHECK_NOTHROW(check_simulator_memory(s, o, 20, gib16));
  CHECK(physical_memory_bytes() > 0);
}

TEST_CASE("byte counts are written in decimal units", "[cli][memory]") {
  CHECK(format_bytes(999) == "999 B");
  CHECK(format_bytes(1500) == "1.5 kB");
  CHECK(format_bytes(125e9) == "125 GB");
}
