// A device's kernel-time fit applied to the model (model/kernel_time.hpp): device lookup, the
// prediction against hand-computed values, and files that are not fits.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/kernel_time.hpp"

using namespace alloclab;
using namespace alloclab::model;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
// One device, two groups: rw (w = 0: any w) and rwbm at w = 32.
nlohmann::json two_group_fit() {
  return {{"schema", "alloclab-time-fit/1"},
          {"device_id", "gpu-a"},
          {"fits",
           {{{"algo", "rw"},
             {"w", 0},
             {"pages", 1},
             {"model_only",
              {{"features", "N*TAS + WAS"},
               {"coefficients_ms", {{"alpha", 0.01}, {"N*TAS", 2e-8}, {"WAS", 1e-3}}}}}},
            {{"algo", "rwbm"},
             {"w", 32},
             {"pages", 1},
             {"model_only",
              {{"features", "N + warps*WAS"},
               {"coefficients_ms", {{"alpha", 0.002}, {"N", 1e-6}, {"warps*WAS", 4e-4}}}}}}}}};
}

fs::path write_device(const std::string& name, const nlohmann::json& fit) {
  const fs::path dir = fs::temp_directory_path() / "alloclab_kernel_time_test";
  fs::create_directories(dir / name);
  std::ofstream(dir / name / "time_fit.json") << fit.dump();
  return dir;
}
}  // namespace

TEST_CASE("kernel time: device names become directory names", "[kernel_time]") {
  CHECK(device_slug("NVIDIA H200") == "nvidia-h200");
  CHECK(device_slug("  NVIDIA  H100 80GB HBM3 ") == "nvidia-h100-80gb-hbm3");
  CHECK(device_slug("nvidia-h200") == "nvidia-h200");
}

TEST_CASE("kernel time: features by hand", "[kernel_time]") {
  // N = 100, lanes = 32: ceil(100/32) = 4 warps.
  CHECK(feature_value(TimeFeature::threads, 100, 32, 3, 7, 5) == 100);
  CHECK(feature_value(TimeFeature::probes, 100, 32, 3, 7, 5) == 300);
  CHECK(feature_value(TimeFeature::warp_steps, 100, 32, 3, 7, 5) == 28);
  CHECK(feature_value(TimeFeature::was, 100, 32, 3, 7, 5) == 7);
  CHECK(feature_value(TimeFeature::collisions, 100, 32, 3, 7, 5) == 5);
  for (auto f : {TimeFeature::threads, TimeFeature::probes, TimeFeature::warp_steps,
                 TimeFeature::was, TimeFeature::collisions})
    CHECK(parse_feature(feature_name(f)) == f);
  CHECK_FALSE(parse_feature("N*WAS"));
}

TEST_CASE("kernel time: a committed fit applied to model quantities", "[kernel_time]") {
  const fs::path dir = write_device("gpu-a", two_group_fit());
  fs::create_directories(dir / "empty");  // no time_fit.json: not a device
  CHECK(available_time_fit_devices(dir.string()) == std::vector<std::string>{"gpu-a"});
  CHECK_THROWS_AS(load_time_fit(dir.string(), "GPU B"), InputError);
  CHECK_THROWS_WITH(
      load_time_fit(dir.string(), "GPU B"),
      Contains("--device") && Contains("gpu-b") && Contains("available") && Contains("gpu-a"));
  const auto fits = load_time_fit(dir.string(), "GPU A");
  REQUIRE(fits.fits.size() == 2);

  Scenario s;
  s.algo = Algorithm::rw;
  s.N = 1000;
  s.A = 5000;
  s.T = 100000;
  s.w = 64;  // RW ignores w: the w = 0 fit applies
  Record r;
  r.set("tas", 10.0).set("was", 40.0);
  add_predicted_kernel_time(r, s, fits);
  // By hand: 0.01 + 2e-8 * 1000 * 10 + 1e-3 * 40 = 0.01 + 0.0002 + 0.04.
  REQUIRE(r.number("kernel_ms_predicted"));
  CHECK(*r.number("kernel_ms_predicted") == Approx(0.0502).epsilon(1e-14));

  // RW-BM at w = 32, N = 100 (4 warps), WAS 2.5: 0.002 + 1e-6 * 100 + 4e-4 * 4 * 2.5 = 0.0061.
  s.algo = Algorithm::rwbm;
  s.N = 100;
  s.w = 32;
  Record b;
  b.set("tas", 1.5).set("was", 2.5);
  add_predicted_kernel_time(b, s, fits);
  REQUIRE(b.number("kernel_ms_predicted"));
  CHECK(*b.number("kernel_ms_predicted") == Approx(0.0061).epsilon(1e-14));
  // The same at w = 64: RW-BM's fits are per word width, and there is none for 64.
  s.w = 64;
  Record b64;
  b64.set("tas", 1.5).set("was", 2.5);
  add_predicted_kernel_time(b64, s, fits);
  CHECK_FALSE(b64.number("kernel_ms_predicted"));

  // No fit for the algorithm: null with a note naming it.
  s.algo = Algorithm::corw;
  Record c;
  c.set("tas", 1.0).set("was", 2.0);
  add_predicted_kernel_time(c, s, fits);
  CHECK_FALSE(c.number("kernel_ms_predicted"));
  REQUIRE(c.notes.size() == 1);
  CHECK_THAT(c.notes[0], Contains("no kernel-time fit for corw"));

  // A record without the WAS the fit needs (e.g. WAS infinite at A = N): null, not a number.
  s.algo = Algorithm::rw;
  Record no_was;
  no_was.set("tas", 1.0).set_quantity("was", std::nullopt, "infinite");
  add_predicted_kernel_time(no_was, s, fits);
  CHECK_FALSE(no_was.number("kernel_ms_predicted"));
  fs::remove_all(dir);
}

TEST_CASE("kernel time: files that are not fits are refused with --device", "[kernel_time]") {
  auto bad_feature = two_group_fit();
  bad_feature["fits"][0]["model_only"]["coefficients_ms"]["collisions"] = 1e-5;
  fs::path dir = write_device("gpu-c", bad_feature);
  CHECK_THROWS_WITH(load_time_fit(dir.string(), "gpu-c"),
                    Contains("--device") && Contains("'collisions'"));
  auto bad_algo = two_group_fit();
  bad_algo["fits"][1]["algo"] = "slab";
  dir = write_device("gpu-d", bad_algo);
  CHECK_THROWS_WITH(load_time_fit(dir.string(), "gpu-d"), Contains("unknown algorithm 'slab'"));
  auto bad_schema = two_group_fit();
  bad_schema["schema"] = "something-else";
  dir = write_device("gpu-e", bad_schema);
  CHECK_THROWS_WITH(load_time_fit(dir.string(), "gpu-e"),
                    Contains("--device") && Contains("alloclab-time-fit/1"));
  fs::remove_all(dir);
}
