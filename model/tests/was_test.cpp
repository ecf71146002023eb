#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "alloclab/model/model.hpp"
#include "reference.hpp"

using namespace alloclab::model;

TEST_CASE("WAS bound Eq. (3)/(5) vs 50-digit inclusion-exclusion, q up to 1 - 1e-12",
          "[model][was]") {
  for (std::uint64_t T : {1000ull, 1000000ull, 4294967296ull})
    for (std::uint64_t gap : {1ull, 2ull, 10ull, 500ull})  // A - N
      for (unsigned w : {1u, 32u, 64u})
        for (unsigned L : {1u, 5u, 13u, 32u, 64u}) {
          if (gap > T) continue;
          const std::uint64_t N = 100, A = N + gap;
          if (A > T) continue;
          const ref::mp q = boost::multiprecision::pow(ref::mp(T - A + N) / T, w);
          INFO("T=" << T << " gap=" << gap << " w=" << w << " L=" << L);
          CHECK(ref::rel(*was_bound(N, A, T, w, L), ref::max_geometric_iid(q, L)) < 1e-11);
        }
  CHECK_FALSE(was_bound(100, 100, 1000, 1, 32).has_value());
  // Large h (A/T = 0.5, w = 32: direct summation path).
  const ref::mp q = boost::multiprecision::pow(ref::mp(1000000 - 500000 + 100) / 1000000, 32);
  CHECK(ref::rel(*was_bound(100, 500000, 1000000, 32, 32), ref::max_geometric_iid(q, 32)) < 1e-12);
}

TEST_CASE("per-warp E[max] with distinct q_j vs 50-digit inclusion-exclusion", "[model][was]") {
  // 16 lanes (2^16 subsets in the reference; the code uses its quadrature path for m >= 13)
  // and 8 lanes (the code's own subset path, in double).
  for (double T : {1e3, 1e6, 4294967296.0, 1e12})
    for (double a0 : {1.0, 40.0, 1000.0})
      for (unsigned m : {8u, 16u}) {
        if (a0 + m > T) continue;
        std::vector<double> h;
        std::vector<ref::mp> q;
        for (unsigned j = 0; j < m; ++j) {
          const double a = a0 + j;
          h.push_back(-std::log1p(-a / T));
          q.push_back(1 - ref::mp(a) / ref::mp(T));
        }
        INFO("T=" << T << " a0=" << a0 << " m=" << m);
        CHECK(ref::rel(expected_max_geometric(h), ref::max_geometric_subsets(q)) < 1e-11);
      }
}

TEST_CASE("per-warp E[max], 32 lanes, vs 50-digit direct summation", "[model][was]") {
  for (double a0 : {2000.0, 20000.0, 300000.0}) {
    const double T = 1e6;
    std::vector<double> h;
    std::vector<ref::mp> q, qk;
    for (unsigned j = 0; j < 32; ++j) {
      h.push_back(-std::log1p(-(a0 + j) / T));
      q.push_back(1 - ref::mp(a0 + j) / ref::mp(T));
    }
    qk = std::vector<ref::mp>(32, ref::mp(1));
    ref::mp sum = 1;
    for (int k = 1; k < 100000; ++k) {
      ref::mp prod = 1, tail = 0;
      for (unsigned j = 0; j < 32; ++j) {
        qk[j] *= q[j];
        prod *= 1 - qk[j];
        tail += qk[j] / (1 - q[j]);
      }
      sum += 1 - prod;
      if (tail < 1e-20 * sum) break;
    }
    INFO("a0=" << a0);
    CHECK(ref::rel(expected_max_geometric(h), sum) < 1e-11);
  }
}

TEST_CASE("i.i.d. lanes: expected_max_geometric equals the closed forms", "[model][was]") {
  for (double h : {1e-12, 1e-9, 1e-3, 0.3, 2.0, 20.0}) {
    const ref::mp q = exp(-ref::mp(h));
    CHECK(ref::rel(expected_max_iid_geometric(h, 32), ref::max_geometric_iid(q, 32)) < 1e-12);
  }
}

TEST_CASE("sequential-model WAS: fast path agrees with every-warp reference", "[model][was]") {
  struct P {
    std::uint64_t N, A, T;
    unsigned w;
  };
  for (P p : {P{5000, 5000, 1000000, 1}, P{5000, 7000, 1000000, 1}, P{100000, 200000, 1000000, 1},
              P{20000, 4294967, 4294967296ull, 32}, P{3000, 3001, 1000000, 64},
              P{50000, 500000, 1000000, 1}}) {
    INFO("N=" << p.N << " A=" << p.A << " T=" << p.T << " w=" << p.w);
    const double fast = was_sequential_model(p.N, p.A, p.T, p.w, 32);
    const double all = was_sequential_model(p.N, p.A, p.T, p.w, 32, WarpSumMethod::every_warp);
    CHECK(std::abs(fast - all) <= 1e-10 * all);
  }
}

TEST_CASE("sequential-model WAS: hand-worked and limiting cases", "[model][was]") {
  // One lane per warp: WAS = TAS (mean of 1/p_j).
  CHECK(was_sequential_model(1000, 2000, 100000, 1, 1) ==
        Approx(rw_tas_exact(1000, 2000, 100000)).epsilon(1e-12));
  CHECK(was_sequential_model(1000, 2000, 100000, 32, 1) ==
        Approx(rwbm_tas(1000, 2000, 100000, 32)).epsilon(1e-12));
  // A = T: every probe succeeds.
  CHECK(was_sequential_model(10, 100, 100, 1, 32) > 1.0);
  CHECK(was_sequential_model(1, 100, 100, 1, 32) == 1.0);
  // The exact WAS lies below the i.i.d. bound (A > N) and above TAS.
  const double was = was_sequential_model(5000, 7000, 1000000, 1, 32);
  CHECK(was < *was_bound(5000, 7000, 1000000, 1, 32));
  CHECK(was > rw_tas_exact(5000, 7000, 1000000));
}

// ---- the fast per-warp routes of the automatic path (near-i.i.d. expansion, direct summation) --

TEST_CASE("near-i.i.d. expansion vs 50-digit inclusion-exclusion (16 lanes)", "[model][was]") {
  // Spreads max|h_j/hbar - 1| from ~1e-9 to ~0.3 (a0 = 20: the [0, 96] node set), RW and RW-BM.
  for (double T : {1e5, 1e6, 4294967296.0, 1e12})
    for (double a0 : {20.0, 40.0, 1000.0, 30000.0})
      for (unsigned w : {1u, 32u}) {
        if (a0 + 16 > T) continue;
        std::vector<double> h;
        std::vector<ref::mp> q;
        for (unsigned j = 0; j < 16; ++j) {
          const double a = a0 + j;
          h.push_back(-static_cast<double>(w) * std::log1p(-a / T));
          q.push_back(boost::multiprecision::pow(1 - ref::mp(a) / ref::mp(T), w));
        }
        INFO("T=" << T << " a0=" << a0 << " w=" << w);
        const ref::mp want = ref::max_geometric_subsets(q);
        const auto near = expected_max_geometric_near_iid(h);
        // It applies wherever the rates are small enough for the Poisson term to vanish.
        if (w * (a0 + 16) / T < 1e-3) REQUIRE(near.has_value());
        if (near) CHECK(ref::rel(*near, want) < 1e-11);
        CHECK(ref::rel(expected_max_geometric_fast(h), want) < 1e-11);
        if (h.front() >= 0.05) CHECK(ref::rel(expected_max_geometric_direct(h), want) < 1e-11);
      }
}

TEST_CASE("near-i.i.d. expansion and direct summation, 32 lanes, vs 50-digit direct summation",
          "[model][was]") {
  // The same 50-digit reference as above (per-warp E[max], 32 lanes), RW and RW-BM (w = 32:
  // rates 0.06 .. 12, the direct-summation route).
  for (unsigned w : {1u, 32u})
    for (double a0 : {300.0, 2000.0, 20000.0, 300000.0}) {
      const double T = 1e6;
      std::vector<double> h;
      std::vector<ref::mp> q, qk;
      for (unsigned j = 0; j < 32; ++j) {
        h.push_back(-static_cast<double>(w) * std::log1p(-(a0 + j) / T));
        q.push_back(boost::multiprecision::pow(1 - ref::mp(a0 + j) / ref::mp(T), w));
      }
      qk = std::vector<ref::mp>(32, ref::mp(1));
      ref::mp sum = 1;
      for (int k = 1; k < 100000; ++k) {
        ref::mp prod = 1, tail = 0;
        for (unsigned j = 0; j < 32; ++j) {
          qk[j] *= q[j];
          prod *= 1 - qk[j];
          tail += qk[j] / (1 - q[j]);
        }
        sum += 1 - prod;
        if (tail < 1e-20 * sum) break;
      }
      INFO("w=" << w << " a0=" << a0);
      CHECK(ref::rel(expected_max_geometric_fast(h), sum) < 1e-11);
      if (const auto near = expected_max_geometric_near_iid(h)) CHECK(ref::rel(*near, sum) < 1e-11);
      if (h.front() >= 0.05) CHECK(ref::rel(expected_max_geometric_direct(h), sum) < 1e-11);
      if (w == 1 && a0 <= 20000.0) CHECK(expected_max_geometric_near_iid(h).has_value());
    }
}

TEST_CASE("near-i.i.d. expansion: equal rates give the closed form, large spreads are refused",
          "[model][was]") {
  for (double h : {1e-12, 1e-6, 1e-3, 0.05})
    for (unsigned L : {13u, 32u}) {
      const std::vector<double> hs(L, h);
      const auto near = expected_max_geometric_near_iid(hs);
      REQUIRE(near.has_value());
      const ref::mp q = exp(-ref::mp(h));
      CHECK(ref::rel(*near, ref::max_geometric_iid(q, L)) < 1e-12);
    }
  std::vector<double> wide;  // the last warp at A = N: rates 1..32 (spread ~0.94)
  for (unsigned j = 1; j <= 32; ++j) wide.push_back(j * 1e-6);
  CHECK_FALSE(expected_max_geometric_near_iid(wide).has_value());
  CHECK_FALSE(expected_max_geometric_near_iid(std::vector<double>(32, 2.0)).has_value());
}

TEST_CASE("sequential-model WAS: fast routes agree with every-warp reference on the bench grid",
          "[model][was]") {
  // Points of model_bench's grid that exercise every route: A = N (large-spread last warps),
  // partial warps, RW-BM rates from 1e-5 to ~16 (direct summation), few and many warps.
  struct P {
    std::uint64_t N, A, T;
    unsigned w;
  };
  for (P p : {P{777, 777, 100000, 32}, P{750, 2000, 100000, 1}, P{4640, 50000, 1000000, 32},
              P{17783, 500000, 1000000, 32}, P{28700, 28700, 4294967296ull, 1},
              P{100000, 100000, 1000000, 32}, P{46400, 2147483648ull, 4294967296ull, 32},
              P{10000, 214748365, 4294967296ull, 1}, P{287, 300, 1000000, 1}}) {
    INFO("N=" << p.N << " A=" << p.A << " T=" << p.T << " w=" << p.w);
    const double fast = was_sequential_model(p.N, p.A, p.T, p.w, 32);
    const double all = was_sequential_model(p.N, p.A, p.T, p.w, 32, WarpSumMethod::every_warp);
    CHECK(std::abs(fast - all) <= 1e-10 * all);
  }
}
