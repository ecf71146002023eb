// The analytic model of Pham et al., ICS'22 (paper 000), §3.2 and §4.1: TAS and WAS of the
// queue baseline, of Random Walk (RW, Algorithm 1) and of RW over a bitmap (RW-BM, §4.1).
// Dispatch by allocator goes through the model table (model_table.hpp).
//
// Notation (paper Table 1): N threads request one page each, A of the T pages are free, a warp
// has L lanes (the paper fixes L = 32), a bitmap word has w bits. A "step" is one probe (RW), one
// word read (RW-BM) or one queue position (queue).
//
// The paper's sequential model (§3.2.2): the N requests are served one after another; thread j
// (j = 0..N-1) sees a = A - j free pages, so its steps are geometric with success probability
//   p_j = (A - j)/T                      (RW)
//   p_j = 1 - ((T - A + j)/T)^w          (RW-BM; w = 1 gives RW).
// Warps are consecutive groups of L threads IN THE ORDER THE MODEL SERVES THEM: thread j is lane
// j mod L of warp floor(j/L); the last warp may be partial. The paper never says how warps map
// onto the sequential order; this is the natural reading and the one the simulator can reproduce.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::model {

// ---- special functions (special.cpp) ---------------------------------------------------------

// H_n = sum_{k=1}^n 1/k for n up to 2^53; exact sum for small n, asymptotic series otherwise.
double harmonic_number(std::uint64_t n);

// H_a - H_b (a >= b) to full relative precision, including a - b << b (no digamma cancellation):
// log1p plus differences of the asymptotic series, direct sums for small arguments.
double harmonic_difference(std::uint64_t a, std::uint64_t b);

// E[max of L i.i.d. geometric steps] with failure probability q = exp(-h) per step:
// sum_{k>=0} [1 - (1 - q^k)^L]. This is the RHS of Eq. (3) (q = (T-A+N)/T) and of Eq. (5)
// (q^w in place of q). Converges to ~1e-15 relative for every h > 0, also h ~ 1e-12.
// Returns +inf for h == 0.
double expected_max_iid_geometric(double h, unsigned lanes);

// The Poisson-summation correction C(h) = expected_max_iid_geometric(h, L) - H_L/h - 1/2, formed
// directly (no cancellation). |C| <= 2 L! zeta(L+1) h^L/(2 pi)^(L+1): C -> 0 as h -> 0.
// Accurate for h <= ~2 (beyond, its series converges slowly).
double iid_poisson_correction(double h, unsigned lanes);

// E[max of independent geometric steps] with failure probabilities q_j = exp(-h[j]):
// sum_{k>=0} [1 - prod_j (1 - q_j^k)], to ~1e-13 relative, for any h_j > 0.
double expected_max_geometric(const std::vector<double>& h);

// The same E[max] for lanes with nearly equal rates, by expansion around their mean hbar:
// with t = hbar x and e_j = h_j/hbar - 1,
//   sum_j ln(1 - e^{-h_j x}) = L ln(1 - e^{-t}) + sum_{n>=1} m_n g_n(t),  m_n = sum_j e_j^n,
//   g_n(t) = t^n phi^(n)(t)/n!,  phi(s) = ln(1 - e^{-s}),
// so E = 1/2 + (H_L - D)/hbar with D = int_0^inf (1 - e^{-t})^L expm1(sum_n m_n g_n(t)) dt, a
// fixed-node quadrature (140 or 160 nodes) whose cost does not depend on L. Applies where
// max|e_j| <= 0.4 (the order K <= 48 is chosen from a proven truncation bound, <= 1e-13 relative)
// and the Poisson-summation correction is below 1e-14 (small rates); returns nullopt elsewhere.
std::optional<double> expected_max_geometric_near_iid(std::span<const double> h);

// The same E[max] by direct summation of sum_k [1 - prod_j (1 - q_j^k)] (products in four
// independent chains; rounding <= ~K L eps absolute over K terms). For rates that are not small.
double expected_max_geometric_direct(std::span<const double> h);

// The same E[max], routed for speed: near-i.i.d. expansion, else direct summation when the
// smallest rate is >= 0.05, else expected_max_geometric. The automatic WAS path uses it.
double expected_max_geometric_fast(std::span<const double> h);

// ---- queue baseline (§3.2, Eq. 1) ------------------------------------------------------------

// TAS of the queue: the thread served k-th (k = 1..N) takes k steps: (N+1)/2.
double queue_tas(std::uint64_t N);

// Eq. (1) as printed (with the exponent 32 generalised to L): N - S_L(N)/N^L, S_L = sum m^L.
// It is E[max of L i.i.d. uniform positions on {0..N-1}] (with replacement, 0-based).
double queue_was_eq1(std::uint64_t N, unsigned lanes);

// Exact WAS of the queue: a warp's m lanes hold m distinct positions of {1..N}, a uniformly random
// m-subset (the queue order is independent of warp membership): E[max] = m(N+1)/(m+1). Averaged
// over the ceil(N/L) warps (the last one has m = N mod L lanes when L does not divide N).
double queue_was_exact(std::uint64_t N, unsigned lanes);

// ---- RW (§3.2.2-3.2.3) and RW-BM (§4.1) ------------------------------------------------------

// TAS of RW in the exact harmonic form: T/N (H_A - H_{A-N}) (the unnumbered equation before
// Eq. 2).
double rw_tas_exact(std::uint64_t N, std::uint64_t A, std::uint64_t T);

// Eq. (2): T/N ln(A/(A-N)); infinite (nullopt) at A = N.
std::optional<double> rw_tas_log_approx(std::uint64_t N, std::uint64_t A, std::uint64_t T);

// Eq. (4): (1/N) sum_{j<N} 1/(1 - ((T-A+j)/T)^w). w = 1 gives rw_tas_exact.
double rwbm_tas(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w);

// Eq. (4) minus rw_tas_exact / w: the mean over j of s(x_j), x_j = (T-A+j)/T, with
// s(x) = 1/(1-x^w) - 1/(w(1-x)) = Q(x)/(w P(x)), P = sum_{i<w} x^i, Q = sum_{l<w-1} (w-1-l) x^l.
// This is the residual of Theorem 1; computed directly (not as a difference).
double rwbm_tas_excess_over_rw(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w);

// Eq. (3) (w = 1) and Eq. (5): the i.i.d. WAS upper bound; nullopt (infinite) at A = N.
std::optional<double> was_bound(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                                unsigned lanes);

enum class WarpSumMethod {
  automatic,  // exact per warp where warps are few or p varies fast; otherwise interpolation
  every_warp  // reference path: every warp evaluated exactly
};

// Exact expected WAS of the sequential model (see top of file): the mean over the ceil(N/L) warps
// of E[max of that warp's lanes' geometric steps]. w = 1 is RW. For many warps the automatic
// method interpolates E[max] across warps (Chebyshev, checked, see model.cpp); the reference path
// computes every warp.
double was_sequential_model(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                            unsigned lanes, WarpSumMethod method = WarpSumMethod::automatic);

// Birthday-paradox collisions (§3.2.2): N(N-1)/(2T), and the bound N(N-1)/(2T) * A/T.
double collisions_expected(std::uint64_t N, std::uint64_t T);
double collisions_bound(std::uint64_t N, std::uint64_t A, std::uint64_t T);

// ---- Theorems 1 and 2 (§4.1) -----------------------------------------------------------------

struct TheoremCheck {
  std::optional<double> lhs;              // U' (Thm 1) or V' (Thm 2)
  std::optional<double> rhs_printed;      // U/w (Thm 1) or V/w + (w-1)/(2w) (Thm 2)
  std::optional<double> residual;         // lhs - rhs_printed, computed without cancellation
  double corrected_limit_residual = 0.0;  // what the residual tends to as A -> N (and N/T -> 0)
  // The verdict in a word or two, set by the condition that writes `verdict` (the report's
  // summary counts these): "holds", "false as printed", "A>N, not the limit", "A-N large".
  std::string lead;
  std::string verdict;
};

// Theorem 1 (printed: lim_{A->N} U' = U/w) evaluated at (N, A, T, w).
TheoremCheck check_theorem1(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w);
// Theorem 2 (printed: lim_{A->N} V' = V/w + (w-1)/(2w)) evaluated at (N, A, T, w, L).
TheoremCheck check_theorem2(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                            unsigned lanes);

// ---- records for the CLI and validation ------------------------------------------------------

// All quantities of the sequential schedule for one grid point: the record of the allocator's
// entry in the model table (model_table.hpp; e.g. rw: tas, tas_approx, was_bound, was,
// collisions_expected, collisions_bound; undefined quantities are null with a note). An
// allocator without a model throws InputError ("--allocator"). The parallel-rounds schedule:
// rounds.hpp, evaluate_rounds.
Record evaluate(const Scenario& s);

// The scenario fields every model record starts with: algo, N, A, T, w, lanes.
Record scenario_record(const Scenario& s);

// Theorem 1 and Theorem 2 records for one grid point (RW-BM with the scenario's w).
std::vector<Record> theorem_records(const Scenario& s);

}  // namespace alloclab::model
