// A measured atomic throughput for a made-up device, for the tests of speed verdicts
// (validation/speed_floor.hpp): a data directory in the temporary folder holding
// <slug>/bench.json with one gpu_bench floor row, made $ALLOCLAB_DATA_DIR while the fixture
// lives (the previous value restored after). Header-only.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <string>

namespace alloclab::testing {

class AtomicThroughputFixture {
 public:
  // `slug`: the device's name as model::device_slug writes it ("Test GPU" -> "test-gpu").
  AtomicThroughputFixture(const std::string& slug, double atomics_per_s)
      : dir_(std::filesystem::temp_directory_path() /
             ("alloclab_floor_fixture_" + std::to_string(reinterpret_cast<std::uintptr_t>(this)))) {
    std::filesystem::create_directories(dir_ / slug);
    std::ofstream(dir_ / slug / "bench.json")
        << "{\"rows\": [{\"kernel\": \"floor: atomicOr, Philox word\", \"allocs_per_s\": "
        << std::setprecision(17) << atomics_per_s << "}]}";
    if (const char* old = std::getenv("ALLOCLAB_DATA_DIR")) old_ = old;
    ::setenv("ALLOCLAB_DATA_DIR", dir_.string().c_str(), 1);
  }
  ~AtomicThroughputFixture() {
    if (old_)
      ::setenv("ALLOCLAB_DATA_DIR", old_->c_str(), 1);
    else
      ::unsetenv("ALLOCLAB_DATA_DIR");
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  AtomicThroughputFixture(const AtomicThroughputFixture&) = delete;
  AtomicThroughputFixture& operator=(const AtomicThroughputFixture&) = delete;

 private:
  std::filesystem::path dir_;
  std::optional<std::string> old_;
};

}  // namespace alloclab::testing
