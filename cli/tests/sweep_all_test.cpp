// End to end: `alloclab sweep --allocator all` writes rows for exactly the registry's allocators on
// the chosen backends (the set is read from the registry here, never listed by hand).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "alloclab/core/algorithm.hpp"

using namespace alloclab;

namespace {

// The algo column (the first) of every data row of a sweep.csv.
std::set<std::string> algos_in(const std::filesystem::path& csv) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  REQUIRE(line.rfind("algo,", 0) == 0);
  std::set<std::string> out;
  while (std::getline(in, line))
    if (!line.empty()) out.insert(line.substr(0, line.find(',')));
  return out;
}

}  // namespace

TEST_CASE("sweep --allocator all --backend model,sim: rows for every allocator on model or sim",
          "[cli]") {
  const std::filesystem::path dir = ALLOCLAB_SWEEP_ALL_WORK;
  std::filesystem::remove_all(dir);
  const std::string cmd = std::string("\"") + ALLOCLAB_EXE +
                          "\" sweep --allocator all --backend model,sim --N 4 --A 64 --T 1024 "
                          "--trials 2 --threads 1 --out \"" +
                          dir.string() + "\" > \"" + dir.string() + ".log\" 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);

  std::set<std::string> expected;
  for (const auto kind : {BackendKind::model, BackendKind::sim})
    for (const auto a : algorithms_on(kind))
      // An allocator whose pool is whole granules larger than 1024 pages (Gallatin's 16 MiB
      // segments) has no point here: the sweep skips it as not applicable.
      if (caps(a).pool_granule_bytes == 0) expected.insert(std::string(name(a)));
  // The registry has allocators off these backends (cudamalloc: gpu only), so `all` must choose.
  REQUIRE(expected.size() < kAlgorithms.size());
  CHECK(algos_in(dir / "sweep.csv") == expected);
}
