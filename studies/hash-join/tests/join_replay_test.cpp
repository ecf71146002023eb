// The hash join's page-request trace (validation/join_replay.hpp) and its predicted join time
// (join_prediction.hpp): a committed-style CSV row without the trace's two newer columns, the
// scale worked by hand, the scaled replay against an unscaled one and against Eq. (2), the queue's
// positions, and the prediction through a hand-made fit worked by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "alloclab/studies/join_claims.hpp"
#include "alloclab/studies/join_prediction.hpp"
#include "alloclab/validation/record_csv.hpp"

#include "join_test_trace.hpp"

using namespace alloclab;
using namespace alloclab::validation;
namespace fs = std::filesystem;

namespace {

fs::path work_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "alloclab_join_replay_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A row as `alloclab join --format csv` writes it.
Record join_row(const std::string& allocator, double tuples, double join_ms,
                double pages = 1048576) {
  Record r;
  r.set("allocator", allocator);
  r.set("tuples", tuples);
  r.set("skew", 0.0);
  r.set("pages", pages);
  r.set("join_ms", join_ms);
  r.set("getpage_calls", tuples);
  r.set("probe_threads", tuples);
  r.set("verified", true);
  r.set("device", std::string("Test GPU (0000:01:00.0)"));
  return r;
}

using test::trace;

}  // namespace

TEST_CASE("join trace: a row of the H200 run at 3bb5bfb without the two newer columns",
          "[join][replay]") {
  const fs::path dir = work_dir("csv");
  // The header and a row of reports/data/nvidia-h200/join-3bb5bfb/figure12-skew0.csv.
  std::ofstream(dir / "rows.csv")
      << "allocator,tuples,skew,key_range,pages,free_fraction_at_end,join_ms,probe_ms,getpage_ms,"
         "join_tuples_per_s,probe_tuples_per_s,result_tuples,reference_tuples,out_of_memory,"
         "pages_taken,getpage_calls,getpage_cycles_per_call,probe_threads,partitions,repeats,"
         "verified,device,notes\n"
         "rw,10000000,0,10000000,134217728,0.925,8.7667,5.4771,1.6465,2.28e9,1.83e9,10000000,"
         "10000000,false,10000000,10000000,59042.9,12097280,8192,3,true,NVIDIA H200 "
         "(0000:00:06.0),\n"
         "direct,10000000,0,10000000,134217728,0.925,8.2968,5.0683,0.6433,2.41e9,1.97e9,10000000,"
         "10000000,false,10000000,10000000,23060.4,12097280,8192,3,true,NVIDIA H200 "
         "(0000:00:06.0),\n";
  const auto rows = read_records_csv((dir / "rows.csv").string());
  REQUIRE(rows.size() == 2);
  const auto t = join_trace(rows[0].record);
  REQUIRE(t);
  CHECK(t->algo == Algorithm::rw);
  CHECK(t->requests == 10000000);
  CHECK(t->pages == 134217728);
  CHECK(t->lanes == 32);           // assumed: no getpage_warp_calls
  CHECK(t->resident == 12097280);  // assumed: every probe thread resident
  REQUIRE(t->assumed.size() == 2);
  CHECK(t->assumed[0].find("32 lanes") != std::string::npos);
  CHECK(t->assumed[1].find("every probe thread resident") != std::string::npos);
  CHECK_FALSE(join_trace(rows[1].record));  // Direct Output is no allocator of the simulator
}

TEST_CASE("join trace: the lanes and the waves from the two newer columns", "[join][replay]") {
  Record r = join_row("rwbm", 6400, 1.0);
  r.set("getpage_warp_calls", 400.0);       // 16 lanes asked together
  r.set("resident_probe_threads", 2048.0);  // ceil(6400 / 2048) = 4 waves
  const auto t = join_trace(r);
  REQUIRE(t);
  CHECK(t->lanes == 16);
  CHECK(t->resident == 2048);
  CHECK(t->assumed.empty());
  CHECK(replay_scale(*t, {.max_requests = 1 << 20, .max_pages = 1 << 22}).waves == 4);
  r.set("verified", false);
  CHECK_FALSE(join_trace(r));
}

TEST_CASE("join replay: the scale worked by hand", "[join][replay]") {
  // 10^7 requests on 2^27 pages, 270336 resident (132 SMs x 2048): s = min(1, 2^15 / 10^7,
  // 2^20 / 2^27) = 0.0032768; waves = ceil(10^7 / 270336) = 37; round(0.0032768 x 10^7) = 32768
  // requests, round(32768 / 37) = 886 a wave, 37 x 886 = 32782; pages round(32782 x 2^27 / 10^7)
  // = 439993.
  const ReplayScale s = replay_scale(trace(Algorithm::rw, 10000000, 134217728, 270336), {});
  CHECK(s.factor == Approx(0.0032768));
  CHECK(s.waves == 37);
  CHECK(s.wave == 886);
  CHECK(s.requests == 32782);
  CHECK(s.pages == 439993);
}

TEST_CASE("join replay: the scaled replay's steps per GETPAGE match an unscaled one",
          "[join][replay]") {
  // N = 2^18 on T = 2^19 (half the pool taken), four waves of 2^16: the unscaled replay runs it
  // all; the default limits scale it by 1/8 (2^15 requests on 2^16 pages, waves of 2^13). The
  // tolerances studies/hash-join/README.md states: TAS within 1%, WAS within 3%.
  for (Algorithm a : {Algorithm::rw, Algorithm::rwbm, Algorithm::corw, Algorithm::rwmalloc}) {
    const JoinTrace t = trace(a, 1 << 18, 1 << 19, 1 << 16);
    const ReplaySteps full = replay_join_trace(
        t, {.max_requests = 1 << 18, .max_pages = 1 << 19, .min_requests_replayed = 0});
    const ReplaySteps scaled = replay_join_trace(t);
    INFO(name(a) << ": unscaled TAS " << full.tas << " WAS " << full.was << ", scaled TAS "
                 << scaled.tas << " WAS " << scaled.was);
    CHECK(full.scale.factor == 1.0);
    CHECK(full.replayed == (1u << 18));
    CHECK(scaled.scale.requests == (1u << 15));
    CHECK(scaled.scale.pages == (1u << 16));
    CHECK(scaled.failed == 0);
    CHECK(scaled.tas == Approx(full.tas).epsilon(0.01));
    CHECK(scaled.was == Approx(full.was).epsilon(0.03));
    if (a == Algorithm::rw)  // Eq. (2) by hand: T/N ln(T / (T - N)) = 2 ln 2 = 1.386
      CHECK(scaled.tas == Approx(2 * std::log(2.0)).epsilon(0.03));
  }
}

TEST_CASE("join replay: the queue's steps are positions in the wave", "[join][replay]") {
  // One wave of 1000: the request served k-th takes k steps, TAS = (1000 + 1) / 2.
  const ReplaySteps r =
      replay_join_trace(trace(Algorithm::queue, 1000, 1 << 16, 1000), {.min_requests_replayed = 0});
  CHECK(r.tas == Approx(500.5));
}

TEST_CASE("join prediction: a hand-made fit and a join time worked by hand", "[join][replay]") {
  const fs::path dir = work_dir("fit");
  fs::create_directories(dir / "test-gpu");
  // queue: 0.5 ms + 2e-8 ms a request; rw: 0.01 ms + 0.1 ms a WAS + 1e-4 ms a warp-step.
  std::ofstream(dir / "test-gpu" / "time_fit.json") << R"({
    "schema": "alloclab-time-fit/1", "device_id": "test-gpu", "fits": [
      {"algo": "queue", "w": 0, "pages": 1,
       "model_only": {"coefficients_ms": {"alpha": 0.5, "N": 2e-8}}},
      {"algo": "rw", "w": 0, "pages": 1,
       "model_only": {"coefficients_ms": {"alpha": 0.01, "WAS": 0.1, "warps*WAS": 1e-4}}}]})";
  std::vector<Record> rows{join_row("direct", 1e6, 3.0, 134217728),
                           join_row("queue", 1e6, 3.1, 134217728),
                           join_row("rwmalloc", 1e6, 3.2, 134217728)};
  std::string why;
  const auto fits = join_time_fits(rows, dir.string(), why);
  REQUIRE(fits);
  CHECK(fits->device_id == "test-gpu");
  // rw, 3200 requests of 32 lanes = 100 warps, TAS 1.5, WAS 2: 0.1 x 2 + 1e-4 x 100 x 2 = 0.22.
  Scenario s;
  s.algo = Algorithm::rw;
  s.N = 3200;
  s.A = s.T = 1 << 20;
  CHECK(*predicted_getpage_ms(*fits, s, 1.5, 2.0) == Approx(0.22));
  const auto p = predict_join(rows, &*fits);
  REQUIRE(p.size() == 2);  // queue and rwmalloc; Direct Output is the baseline
  // queue: 3.0 + 2e-8 x 10^6 = 3.02 ms, whatever its steps.
  CHECK(p[0].allocator == "queue");
  CHECK(*p[0].direct_ms == 3.0);
  CHECK(*p[0].model_join_ms == Approx(3.02));
  CHECK(*p[0].replay_join_ms == Approx(3.02));
  // rwmalloc: no fit, steps only.
  CHECK_FALSE(p[1].model_join_ms);
  CHECK(p[1].note.find("no kernel-time fit for rwmalloc") != std::string::npos);
  CHECK(p[1].replay.tas >= 1.0);
  // The claim: measured cost 0.1 ms, predicted 0.02: 80% off, beyond 50%.
  auto claims = join_claims(rows, p);
  REQUIRE(claims.size() == 5);
  CHECK(claims[4].verdict.find("does not hold: the model's allocator cost is off by up to 80%") !=
        std::string::npos);
  CHECK(claims[4].judgement == Judgement::does_not_hold);  // alloclab's own model, 80% > 50%
  CHECK(claims[4].hardware.find("queue 1000000, skew 0: +0.100 ms") != std::string::npos);
  // Measured 3.03: cost 0.03, within 2% of Direct Output's 3.0 (noise): not judged.
  rows[1].set("join_ms", 3.03);
  claims = join_claims(rows, predict_join(rows, &*fits));
  CHECK(claims[4].verdict.find("not checked: every allocator cost within run-to-run noise") !=
        std::string::npos);
  CHECK(claims[4].judgement == Judgement::not_measured);
  // Direct Output 1.0, queue 1.03: cost 0.03 (3%), predicted 0.02, 33% off: within 50%.
  {
    auto small = rows;
    small[0].set("join_ms", 1.0);
    small[1].set("join_ms", 1.03);
    claims = join_claims(small, predict_join(small, &*fits));
    CHECK(claims[4].verdict.find("holds: the model's allocator cost within 33%") !=
          std::string::npos);
    CHECK(claims[4].judgement == Judgement::holds);
  }
  // Rows of another GPU beside them: its Direct Output is not the baseline of this GPU's rows,
  // and this GPU's fit is not applied to its rows.
  {
    auto mixed = rows;
    for (const char* name : {"direct", "queue"}) {
      Record other = join_row(name, 1e6, 100.0, 134217728);
      other.set("device", std::string("Other GPU (0000:02:00.0)"));
      mixed.push_back(other);
    }
    const auto q = predict_join(mixed, &*fits);
    REQUIRE(q.size() == 3);
    CHECK(*q[0].model_join_ms == Approx(3.02));  // 3.0 + 0.02, as above
    CHECK(*q[2].direct_ms == 100.0);
    CHECK_FALSE(q[2].model_join_ms);
    CHECK(q[2].note.find("no kernel-time fit for the row's device") != std::string::npos);
  }
  // No fit for the device: the reason is given.
  for (auto& r : rows) r.set("device", std::string("Other GPU"));
  CHECK_FALSE(join_time_fits(rows, dir.string(), why));
  CHECK(why.find("no kernel-time fit for 'Other GPU'") != std::string::npos);
}
