// `alloclab model`: the analytic model of paper 000 over a grid. Everything is computed before
// anything is printed, so bad input leaves stdout empty.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/warp_chains.hpp"

namespace alloclab::cli {
namespace {

constexpr const char* kModelHelp =
    "Analytic model of Pham et al. (ICS'22) §3.2 and §4.1 for N threads each taking one page,\n"
    "A of T pages free, warps of L=--lanes lanes, bitmap words of --w bits. Quantities:\n"
    "  tas        per-thread average steps. queue: (N+1)/2. rw: exact T/N (H_A - H_{A-N})\n"
    "             (the sequential model of §3.2.2). rwbm: Eq. (4),\n"
    "             1/N sum_j 1/(1-((T-A+j)/T)^w).\n"
    "  tas_approx rw only: Eq. (2), T/N ln(A/(A-N)); null at A = N.\n"
    "  was_bound  Eq. (3) (rw) / Eq. (5) (rwbm): sum_k [1-(1-q^k)^L], q = ((T-A+N)/T)^w\n"
    "             (w=1 for rw); null at A = N (q = 1, infinite).\n"
    "  was        per-warp average steps. rw/rwbm: EXACT expectation under the paper's\n"
    "             sequential model: thread j has p_j = (A-j)/T (rw) or 1-((T-A+j)/T)^w (rwbm);\n"
    "             warps are consecutive groups of L threads in service order (the last may be\n"
    "             partial); was = mean over warps of E[max of the warp's steps].\n"
    "             queue: exact E[max of m distinct random positions of 1..N] = m(N+1)/(m+1).\n"
    "  was_eq1    queue only: Eq. (1) as printed, N - S_L(N)/N^L (Faulhaber). It is the max of\n"
    "             L i.i.d. positions on 0..N-1, inconsistent with TAS's 1..N; was_eq1_minus_was\n"
    "             shows the gap (-> -(3L+1)/(2(L+1)), -1.4697 for L = 32).\n"
    "  collisions_expected  birthday paradox N(N-1)/(2T) (§3.2.2); collisions_bound: times A/T.\n"
    "--theorems prints Theorem 1 (lim_{A->N} U' = U/w) and Theorem 2\n"
    "(lim_{A->N} V' = V/w + (w-1)/(2w)) at each grid point: lhs, rhs as printed, residual\n"
    "lhs - rhs (computed without cancellation), its limit as A -> N, and a verdict.\n"
    "Example (Figure 4): alloclab model --algo rw --N 1000:5000:1000 "
    "--free 0.5,0.1,0.01,0.007,0.005 --T 1e6\n"
    "\n"
    "corw and rwmalloc (models the paper lacks; model/include/alloclab/model/warp_chains.hpp):\n"
    "a warp serves its needing lanes in rounds; a round yields a random capacity C and\n"
    "min(need, C) lanes are served. The number of lanes in need is an absorbing Markov chain\n"
    "solved exactly (Eigen) per warp; warps are served one at a time in a random order (the\n"
    "simulator's sequential mode), a warp served after j others sees A minus their pages.\n"
    "  corw      C = free bits in the distinct words the lanes read (each lane a fresh random\n"
    "            word per round; hypergeometric over the pool). tas = mean over lanes of the\n"
    "            round a lane is served, was = mean over warps of E[rounds]; the paper's\n"
    "            'TAS = WAS' holds only for was (a served lane stops counting).\n"
    "            tas_first_warp/was_first_warp: one warp at free count A.\n"
    "  rwmalloc  --pages n: C = sum over the free runs of the warp's window of --lanes\n"
    "            consecutive words of floor(run/n). Keys without suffix join runs across words\n"
    "            (the simulator, paper §4.3 text); _in_word keeps runs inside a word (the GPU,\n"
    "            Algorithm 3 as written, n <= w). p_word: P(a pool word holds a run >= n),\n"
    "            p_window(_in_word): P(the window holds one). utilisation_in_word: Figure 11's\n"
    "            setting (empty pool, n-page requests until one fails): n floor(w/n)/w.\n"
    "Example: alloclab model --algo rwmalloc --pages 4 --N 1024 --free 0.5 --T 1e6";

struct ModelOptions {
  std::string algo;
  GridOptions grid;
  Format format = Format::table;
  bool theorems = false;
};

void run_model(const ModelOptions& o) {
  const auto parsed = parse_algorithm(o.algo);
  const bool warp_model = parsed && (*parsed == Algorithm::corw || *parsed == Algorithm::rwmalloc);
  if (!parsed || (*parsed != Algorithm::queue && *parsed != Algorithm::rw &&
                  *parsed != Algorithm::rwbm && !warp_model))
    throw InputError("--algo", "unknown or unmodelled algorithm '" + o.algo +
                                   "' (the model covers queue|rw|rwbm|corw|rwmalloc)");
  if (o.grid.pages != 1 && *parsed != Algorithm::rwmalloc)
    throw InputError("--pages", "only rwmalloc serves requests of more than one page");
  if (o.theorems && warp_model)
    throw InputError("--theorems", "Theorems 1 and 2 are about rw/rwbm");
  const auto grid = expand_grid(o.grid, *parsed, GridUse::model);
  std::vector<Record> records;
  for (const Scenario& s : grid) {
    if (o.theorems) {
      for (auto& r : model::theorem_records(s)) records.push_back(std::move(r));
    } else if (s.algo == Algorithm::corw) {
      records.push_back(model::evaluate_corw(s));
    } else if (s.algo == Algorithm::rwmalloc) {
      records.push_back(model::evaluate_rwmalloc(s));
    } else {
      records.push_back(model::evaluate(s));
    }
  }
  write_records(std::cout, records, o.format);
}

}  // namespace

void add_model_command(CLI::App& app) {
  auto opts = std::make_shared<ModelOptions>();
  auto* cmd = app.add_subcommand("model", "analytic TAS/WAS model (Eq. 1-5, Theorems 1-2)");
  cmd->footer(kModelHelp);
  cmd->add_option("--algo", opts->algo, "queue|rw|rwbm|corw|rwmalloc")->required();
  add_grid_options(*cmd, opts->grid);
  cmd->add_option("--pages", opts->grid.pages,
                  "consecutive pages per request (rwmalloc; N*pages must not exceed A)")
      ->default_val(1);
  add_format_option(*cmd, opts->format);
  cmd->add_flag("--theorems", opts->theorems,
                "check Theorems 1 and 2 at each grid point instead of printing the quantities");
  cmd->callback([opts] { run_model(*opts); });
}

}  // namespace alloclab::cli
