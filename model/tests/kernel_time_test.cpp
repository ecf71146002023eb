// A device's kernel-time fit applied to the model (model/kernel_time.hpp): device lookup, the
// prediction against hand-computed values, and files that are not fits.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

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

TEST_CASE("kernel time: the bitmap geometry by hand", "[kernel_time]") {
  constexpr std::uint64_t MiB = 1 << 20;
  // T = 2^29 pages (16 B pages of 8 GiB) in 32-bit words: 2^24 words of 4 bytes = 64 MiB; the
  // bitmap's bytes do not depend on w when w divides T.
  CHECK(bitmap_bytes(1ull << 29, 32) == 64 * MiB);
  CHECK(bitmap_bytes(1ull << 29, 64) == 64 * MiB);
  CHECK(bitmap_bytes(1ull << 21, 32) == 256 * 1024);  // 4096 B pages: 256 KiB
  CHECK(bitmap_bytes(100, 32) == 16);  // ceil(100/32) = 4 words: the last word is partial
  CHECK(bitmap_bytes(100, 64) == 16);  // 2 words of 8 bytes
  CHECK(bitmap_bytes(1ull << 29, 0) == 0);
  CHECK(bitmap_bytes(100, 1) == 13);  // w = 1 (the model's RW as RW-BM): 100 bits in 13 bytes
  // 64 MiB on a 50 MiB L2: a random probe finds its line in L2 with probability 50/64.
  CHECK(l2_miss_fraction(64 * MiB, 50 * MiB) == 1.0 - 50.0 / 64.0);
  CHECK(l2_miss_fraction(64 * MiB, 50 * MiB) == 0.21875);
  CHECK(l2_miss_fraction(128 * MiB, 50 * MiB) == 0.609375);  // 1 - 50/128
  CHECK(l2_miss_fraction(32 * MiB, 50 * MiB) == 0);          // fits: no misses
  CHECK(l2_miss_fraction(50 * MiB, 50 * MiB) == 0);          // exactly fits
  CHECK(l2_miss_fraction(0, 50 * MiB) == 0);
  // 2^20 threads: 16 per word on 2^21 pages of w = 32 (65,536 words), 32 at w = 64, 1 at T =
  // 2^25, 1/16 at T = 2^29; ceil(T/w) words for a partial last word.
  CHECK(threads_per_word(1 << 20, 1ull << 21, 32) == 16);
  CHECK(threads_per_word(1 << 20, 1ull << 21, 64) == 32);
  CHECK(threads_per_word(1 << 20, 1ull << 25, 32) == 1);
  CHECK(threads_per_word(1 << 20, 1ull << 29, 32) == 0.0625);
  CHECK(threads_per_word(10, 100, 32) == 2.5);
  CHECK(threads_per_word(10, 100, 0) == 0);
}

TEST_CASE("kernel time: the bitmap features by hand", "[kernel_time]") {
  FeatureInputs in;
  in.N = 1 << 20;
  in.tas = 1.25;
  in.was = 3;
  in.T = 1ull << 29;
  in.word_bits = 32;
  in.l2_bytes = 50ull << 20;
  // N * TAS * (1 - 50/64) = 2^20 * 1.25 * 0.21875 = 286,720.
  CHECK(feature_value(TimeFeature::l2_miss_probes, in) == 286720);
  CHECK(feature_value(TimeFeature::threads_per_word, in) == 0.0625);
  CHECK(feature_value(TimeFeature::word_pairs, in) == 65536);  // 2^20 * 2^20 / 2^24
  // The five others are those of the short form.
  CHECK(feature_value(TimeFeature::probes, in) == 1310720);
  CHECK(feature_value(TimeFeature::warp_steps, in) == 98304);  // 2^15 warps * 3
  // 4096 B pages: the bitmap fits in L2 (no misses), 16 threads per word.
  in.T = 1ull << 21;
  CHECK(feature_value(TimeFeature::l2_miss_probes, in) == 0);
  CHECK(feature_value(TimeFeature::threads_per_word, in) == 16);
  CHECK(feature_value(TimeFeature::word_pairs, in) == 16 << 20);
  // No bitmap (the queue): every bitmap feature is 0, the L2 size is not needed.
  in.word_bits = 0;
  in.l2_bytes = 0;
  for (auto f :
       {TimeFeature::l2_miss_probes, TimeFeature::threads_per_word, TimeFeature::word_pairs})
    CHECK(feature_value(f, in) == 0);
  // A bitmap without an L2 size: the miss term cannot be computed, and says so.
  in.word_bits = 32;
  CHECK_THROWS_AS(feature_value(TimeFeature::l2_miss_probes, in), std::invalid_argument);
  CHECK(feature_value(TimeFeature::threads_per_word, in) == 16);
  // The short form has no geometry.
  CHECK_THROWS_AS(feature_value(TimeFeature::word_pairs, 100, 32, 1, 1, 0), std::invalid_argument);
  for (auto f :
       {TimeFeature::l2_miss_probes, TimeFeature::threads_per_word, TimeFeature::word_pairs}) {
    CHECK(parse_feature(feature_name(f)) == f);
    CHECK(is_bitmap_feature(f));
  }
  CHECK(needs_l2_bytes(TimeFeature::l2_miss_probes));
  CHECK_FALSE(needs_l2_bytes(TimeFeature::word_pairs));
  CHECK_FALSE(is_bitmap_feature(TimeFeature::probes));
}

TEST_CASE("kernel time: the probed word width of each modelled allocator", "[kernel_time]") {
  Scenario s;
  s.w = 64;
  s.algo = Algorithm::rwbm;
  CHECK(probed_word_bits(s) == 64u);
  s.algo = Algorithm::corw;
  CHECK(probed_word_bits(s) == 64u);
  s.algo = Algorithm::rwmalloc;
  CHECK(probed_word_bits(s) == 64u);
  s.algo = Algorithm::rw;  // one bit per page in 32-bit words, whatever --w says
  CHECK(probed_word_bits(s) == 32u);
  s.algo = Algorithm::queue;  // reads queue slots, not a bitmap
  CHECK_FALSE(probed_word_bits(s));
  s.algo = Algorithm::cudamalloc;  // no model
  CHECK_FALSE(probed_word_bits(s));
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

TEST_CASE("kernel time: a fit with bitmap features applied to a 16 B-page pool", "[kernel_time]") {
  nlohmann::json fit = {
      {"schema", "alloclab-time-fit/1"},
      {"device_id", "gpu-l2"},
      {"l2_bytes", 50ull << 20},
      {"fits",
       {{{"algo", "rwbm"},
         {"w", 32},
         {"pages", 1},
         {"model_only",
          {{"features", "N*TAS + N*TAS*miss + N/words"},
           {"coefficients_ms",
            {{"alpha", 0.01}, {"N*TAS", 2e-8}, {"N*TAS*miss", 5e-8}, {"N/words", 1e-3}}}}}}}}};
  fs::path dir = write_device("gpu-l2", fit);
  const auto fits = load_time_fit(dir.string(), "gpu-l2");
  CHECK(fits.l2_bytes == 50ull << 20);
  Scenario s;
  s.algo = Algorithm::rwbm;
  s.N = 1 << 20;
  s.A = s.T = 1ull << 29;
  s.w = 32;
  Record r;
  r.set("tas", 1.0).set("was", 2.0);
  add_predicted_kernel_time(r, s, fits);
  // By hand: 0.01 + 2e-8 * 2^20 + 5e-8 * 2^20 * (1 - 50/64) + 1e-3 * 2^20 / 2^24
  //        = 0.01 + 0.02097152 + 0.0114688 + 0.0000625 = 0.04250282.
  REQUIRE(r.number("kernel_ms_predicted"));
  CHECK(*r.number("kernel_ms_predicted") == Approx(0.04250282).epsilon(1e-14));
  // 4096 B pages: no misses, 16 threads per word: 0.01 + 0.02097152 + 0.016 = 0.04697152.
  s.A = s.T = 1ull << 21;
  Record r21;
  r21.set("tas", 1.0).set("was", 2.0);
  add_predicted_kernel_time(r21, s, fits);
  REQUIRE(r21.number("kernel_ms_predicted"));
  CHECK(*r21.number("kernel_ms_predicted") == Approx(0.04697152).epsilon(1e-14));

  // The miss term without the L2 size it was fitted with cannot be applied.
  fit.erase("l2_bytes");
  dir = write_device("gpu-l2", fit);
  CHECK_THROWS_WITH(load_time_fit(dir.string(), "gpu-l2"),
                    Contains("--device") && Contains("N*TAS*miss") && Contains("l2_bytes"));
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
