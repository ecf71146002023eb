// Seed 001's claims (validation/src/gelado_claims.cpp): the hardware cells read the GPU rows they
// are given (ratios worked by hand from two made-up points), say so where there are none, and the
// simulator's cells come from the step machines (the counting semaphore's waiters and rounds
// against the hand-derived formulas).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/validation/gelado_claims.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {
Record gpu_row(const std::string& primitive, std::uint64_t n, std::uint64_t units, double ms,
               std::uint64_t peak) {
  Record r;
  r.set("primitive", primitive);
  r.set("backend", std::string("gpu"));
  r.set_int("N", n);
  r.set_int("batch", 512);
  r.set_int("block", 256);
  r.set_int("backoff_max_ns", 256);
  r.set_int("units_per_request", units);
  r.set("kernel_ms", ms);
  r.set("units_per_s", static_cast<double>(n) / (ms * 1e-3));
  r.set_int("grew", (n + 511) / 512);
  r.set_int("batches_min", (n + 511) / 512);
  r.set_int("peak_growers", peak);
  r.set("cas_per_thread", 10.0);
  r.set("device", std::string("Test GPU"));
  return r;
}
const ClaimCheck& find(const std::vector<ClaimCheck>& claims, const std::string& where,
                       const std::string& word) {
  for (const auto& c : claims)
    if (c.where == where && c.claim.find(word) != std::string::npos) return c;
  FAIL("no claim " << where << " " << word);
  return claims.front();
}
}  // namespace

TEST_CASE("gelado claims: without GPU rows the hardware cells say where rows come from") {
  const auto claims = gelado_claims({});
  const ClaimCheck& fig5 = find(claims, "§5.1, Fig. 5", "outperform");
  CHECK(fig5.hardware.find("alloclab semaphore --backend gpu") != std::string::npos);
  // The simulator's evidence is there anyway: 4096 threads, B = 64, growth of 1000 steps.
  CHECK(fig5.simulation.find("counting 68291") != std::string::npos);  // N + 64 (1000 + 3) + 3
  const ClaimCheck& waiters = find(claims, "§3.2", "waiting");
  CHECK(waiters.simulation.find("2079") != std::string::npos);  // mean of 4095 - 64 k, k < 64
  CHECK(waiters.verdict == "holds (simulator)");
}

TEST_CASE("gelado claims: Figure 5's ratios from the GPU rows") {
  // Each thread: counting 2 ms against bulk 4 ms (0.5) and 9 against 10 (0.9): bulk never ahead.
  // Warp leaders: counting 6 against bulk 2 (3x, bulk ahead).
  const std::vector<Record> rows = {
      gpu_row("bulk", 1024, 1, 4, 1),    gpu_row("counting", 1024, 1, 2, 1),
      gpu_row("bulk", 4096, 1, 10, 1),   gpu_row("counting", 4096, 1, 9, 1),
      gpu_row("bulk", 65536, 32, 2, 3),  gpu_row("counting", 65536, 32, 6, 1),
      gpu_row("counting", 999, 1, 1, 1),  // no bulk row at this point: unused
  };
  const auto claims = gelado_claims(rows);
  const ClaimCheck& fig5 = find(claims, "§5.1, Fig. 5", "outperform");
  CHECK(fig5.hardware.find("0.50 .. 0.90 over 2 points (bulk faster at 0)") != std::string::npos);
  CHECK(fig5.hardware.find("3.00 .. 3.00 over 1 points") != std::string::npos);
  CHECK(fig5.verdict.find("does not hold in the paper's setting") == 0);
  const ClaimCheck& growers = find(claims, "§5.1", "theoretical maximum");
  CHECK(growers.hardware.find("at most 3 growers") != std::string::npos);
  CHECK(growers.hardware.find("requests / batch: 128") != std::string::npos);  // 65536 / 512
  CHECK(growers.verdict.find("holds on the GPU") == 0);
  CHECK(growers.simulation.find("256 of 256") != std::string::npos);  // B = 16, L = 5000
  const ClaimCheck& batches = find(claims, "§3.3, Alg. 1", "expected availability");
  CHECK(batches.hardware.find("3 of 3 verified runs") != std::string::npos);
}

TEST_CASE("gelado claims: Figure 7's failures at exhaustion from the model and the simulator") {
  const auto claims = gelado_malloc_claims();
  const ClaimCheck& half = find(claims, "§5.3, Fig. 7", "50%");
  CHECK(half.model.find("50.0% fail") != std::string::npos);
  CHECK(half.simulation.find("2 KB 50.0% failed") != std::string::npos);
  CHECK(half.verdict == "holds (model and simulator)");
  // The digest's hand derivation (64 bins): 1 - 62/64, 1 - 434/512, 1 - 186/256.
  const ClaimCheck& layout = find(claims, "§5.3, Fig. 7", "moderately");
  CHECK(layout.model.find("8 B 3.1%") != std::string::npos);
  CHECK(layout.model.find("512 B 15.2%") != std::string::npos);
  CHECK(layout.model.find("1024 B 27.3%") != std::string::npos);
  CHECK(layout.simulation.find("1024 B 27.3%") != std::string::npos);
  CHECK(layout.verdict.find("holds") == 0);
  const ClaimCheck& gb = find(claims, "§3.1", "5 GB");
  CHECK(gb.model.find("2.62 GiB") != std::string::npos);  // 5376 x 512 KB
  CHECK(find(claims, "§5.3, Fig. 7", "346x").verdict == "not measured yet");
}

TEST_CASE("gelado claims: Figure 6 from the model, the simulator and hand-made GPU rows") {
  const ClaimCheck none = rcu_delegation_claim({});
  CHECK(none.model.find("14.0x shorter at D / g = 14") != std::string::npos);
  CHECK(none.simulation.find("every run verified: yes") != std::string::npos);
  CHECK(none.verdict.find("holds in shape (simulator, rounds): never slower") == 0);
  CHECK(none.verdict.find("the GPU's time not measured yet") != std::string::npos);
  auto row = [](const char* barrier, double speedup, bool verified) {
    Record r;
    r.set("backend", std::string("gpu"));
    r.set("barrier", std::string(barrier));
    r.set("speedup_vs_plain", speedup);
    r.set("device", std::string("Test GPU (0:0)"));
    r.set("verified", verified);
    return r;
  };
  // 1.5% slower at worst, 3x at best: the worst case past the paper's 1.01%, short of 14x.
  const ClaimCheck gpu = rcu_delegation_claim(
      {row("plain", 0, true), row("conditional", 1 / 1.015, true), row("conditional", 3, true)});
  CHECK(gpu.hardware.find("Test GPU (0:0): 2 points") == 0);
  CHECK(gpu.verdict.find("on the GPU 1.5% slower at worst, up to 3.00x: short of 14x") !=
        std::string::npos);
  const ClaimCheck good =
      rcu_delegation_claim({row("conditional", 0.995, true), row("conditional", 15, true)});
  CHECK(good.verdict.find("holds on the GPU (0.5% slower at worst, up to 15.0x)") !=
        std::string::npos);
  const ClaimCheck bad = rcu_delegation_claim({row("conditional", 2, false)});
  CHECK(bad.verdict.find("GPU rows failed verification") != std::string::npos);
}
