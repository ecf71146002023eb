// Which recorded sweep wrote each row: command lines expanded into grids, first covering run wins.
#include <catch2/catch.hpp>

#include "alloclab/cli/sweep_provenance.hpp"

using namespace alloclab;
using namespace alloclab::cli;

namespace {
render::SweepRun run(const std::string& command, const std::string& backends,
                     const std::string& modes = "sequential") {
  render::SweepRun r;
  r.command_line = command;
  r.backends = backends;
  r.modes = modes;
  return r;
}

validation::PointKey key(Algorithm algo, const std::string& backend, const std::string& mode,
                         std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w = 32) {
  return {algo, backend, mode, N, A, T, w, 32, 1};
}
}  // namespace

TEST_CASE("recorded command lines split into words as a shell would", "[cli][provenance]") {
  CHECK(shell_words("alloclab sweep --N '1024..4096*2' --out \"a b\" c\\ d  e") ==
        std::vector<std::string>{"alloclab", "sweep", "--N", "1024..4096*2", "--out", "a b", "c d",
                                 "e"});
  CHECK(shell_words("x='a'b\"c\\\"\"") == std::vector<std::string>{"x=abc\""});
  CHECK(shell_words("   ").empty());
}

TEST_CASE("a row is traced to the first run whose grid holds it", "[cli][provenance]") {
  const std::vector<render::SweepRun> runs = {
      // 1: the model at N = 1000, 2000 of two free fractions of T = 10^4.
      run("alloclab sweep --allocator rw,queue --backend model --w 32,64 --N 1000,2000 "
          "--free 0.5,0.25 --T 1e4 --out d",
          "model"),
      // 2: the model again, N = 500..2000 step 500: only 500 and 1500 are its own (recorded
      //    before issue 35, in the spellings --algos and --backends).
      run("alloclab sweep --algos rw --backends model --N 500:2000:500 --A 5000 --T 10^4 "
          "--out d",
          "model"),
      // 3: lockstep simulation of RW-BM with two bit choices, geometric N, quoted as recorded.
      run("alloclab sweep --allocator rwbm --backend sim --modes lockstep --bit-choice "
          "lowest,random --N '1024..4096*2' --A 5000 --T 1e4 --trials 5 --seed 3 --out d",
          "sim", "lockstep"),
      // 4: not expandable (no --N): whatever GPU rows exist, their writer is unknown.
      run("alloclab sweep --algos rw --backends gpu --out d", "gpu")};
  const auto writer = sweep_row_writer(runs);
  using R = std::optional<std::size_t>;
  // A = round(0.5 * 10^4) = 5000 from --free.
  CHECK(writer(key(Algorithm::rw, "model", "sequential", 1000, 5000, 10000)) == R(0));
  CHECK(writer(key(Algorithm::rw, "model", "sequential", 2000, 2500, 10000)) == R(0));
  CHECK(writer(key(Algorithm::rw, "model", "sequential", 1500, 5000, 10000)) == R(1));
  CHECK(writer(key(Algorithm::rw, "model", "sequential", 500, 5000, 10000)) == R(1));
  // RW has no bitmap words: the sweep ran it at the first w only, so w = 64 is no row of run 1.
  CHECK(writer(key(Algorithm::queue, "model", "sequential", 1000, 5000, 10000, 32)) == R(0));
  CHECK_FALSE(writer(key(Algorithm::queue, "model", "sequential", 1000, 5000, 10000, 64)));
  // Not in any grid: N = 3000, or a mode no run has.
  CHECK_FALSE(writer(key(Algorithm::rw, "model", "sequential", 3000, 5000, 10000)));
  CHECK_FALSE(writer(key(Algorithm::rw, "model", "rounds", 1000, 5000, 10000)));
  // Run 3: both bit choices, N = 1024, 2048, 4096; lockstep only.
  auto p = key(Algorithm::rwbm, "sim", "lockstep", 2048, 5000, 10000);
  CHECK(writer(p) == R(2));
  p.bit_choice = BitChoice::random;
  CHECK(writer(p) == R(2));
  p.bit_choice = BitChoice::rotated;
  CHECK_FALSE(writer(p));
  CHECK_FALSE(writer(key(Algorithm::rwbm, "sim", "sequential", 2048, 5000, 10000)));
  // Run 4 cannot be expanded: a GPU row is not guessed to be its.
  CHECK_FALSE(writer(key(Algorithm::rw, "gpu", "", 1000, 5000, 10000)));
}

TEST_CASE("a run that cannot be expanded hides only the rows it could have written",
          "[cli][provenance]") {
  const std::vector<render::SweepRun> runs = {
      run("hand-edited: not a sweep", "model"),
      run("alloclab sweep --algos rw --backends model,sim --N 10 --A 100 --T 1000 --out d",
          "model,sim")};
  const auto writer = sweep_row_writer(runs);
  // A model row might be the first run's: unknown. A simulation row can only be the second's.
  CHECK_FALSE(writer(key(Algorithm::rw, "model", "sequential", 10, 100, 1000)));
  CHECK(writer(key(Algorithm::rw, "sim", "sequential", 10, 100, 1000)) ==
        std::optional<std::size_t>(1));
}

TEST_CASE("a recorded `--allocator all` covers the allocators on its backends",
          "[cli][provenance]") {
  const std::vector<render::SweepRun> runs = {
      run("alloclab sweep --allocator all --backend sim --N 10 --A 100 --T 1000 --out d", "sim"),
      run("alloclab sweep --algos all --backends gpu --N 10 --A 100 --T 1000 --out d", "gpu")};
  const auto writer = sweep_row_writer(runs);
  using R = std::optional<std::size_t>;
  // corw-lockmap runs in the simulator only, cudamalloc on the GPU only (the registry).
  CHECK(writer(key(Algorithm::corw_lockmap, "sim", "sequential", 10, 100, 1000)) == R(0));
  CHECK(writer(key(Algorithm::queue, "sim", "sequential", 10, 100, 1000)) == R(0));
  CHECK(writer(key(Algorithm::cudamalloc, "gpu", "", 10, 100, 1000)) == R(1));
  CHECK(writer(key(Algorithm::rw, "gpu", "", 10, 100, 1000)) == R(1));
  // A list with `all` beside a name is no sweep that ran: its rows are not guessed.
  const auto mixed = sweep_row_writer(
      {run("alloclab sweep --algos all,rw --backends sim --N 10 --A 100 --T 1000 --out d", "sim")});
  CHECK_FALSE(mixed(key(Algorithm::rw, "sim", "sequential", 10, 100, 1000)));
}

TEST_CASE("recorded lines of either vocabulary expand alike (history before issue 35)",
          "[cli][provenance]") {
  // The committed sweeps were recorded with --algos and --backends, today's with --allocator and
  // --backend: the same grid either way (here N = 10 today's, N = 20 only the old line's).
  const std::vector<render::SweepRun> runs = {
      run("alloclab sweep --allocator rw,rwbm --backend model,sim --N 10 --A 100 --T 1000 "
          "--out d",
          "model,sim"),
      run("alloclab sweep --algos rw,rwbm --backends model,sim --N 10,20 --A 100 --T 1000 "
          "--out d",
          "model,sim")};
  const auto writer = sweep_row_writer(runs);
  using R = std::optional<std::size_t>;
  for (const auto algo : {Algorithm::rw, Algorithm::rwbm})
    for (const std::string backend : {"model", "sim"}) {
      CHECK(writer(key(algo, backend, "sequential", 10, 100, 1000)) == R(0));
      CHECK(writer(key(algo, backend, "sequential", 20, 100, 1000)) == R(1));
    }
  CHECK_FALSE(writer(key(Algorithm::queue, "sim", "sequential", 20, 100, 1000)));
}
