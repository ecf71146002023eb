// `alloclab model`: the analytic model of paper 000 over a grid. Everything is computed before
// anything is printed, so bad input leaves stdout empty.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/rounds.hpp"
#include "alloclab/validation/time_fit.hpp"

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
    "  kernel_ms_predicted  with --device NAME: kernel time on that GPU predicted from the\n"
    "             model alone: the device's committed fit kernel_ms = alpha + beta . (N, N*TAS,\n"
    "             warps*WAS, WAS) (`alloclab fit-time`, reports/data/<device>/time_fit.json;\n"
    "             --data-dir or $ALLOCLAB_DATA_DIR point elsewhere) applied to tas and was.\n"
    "--theorems prints Theorem 1 (lim_{A->N} U' = U/w) and Theorem 2\n"
    "(lim_{A->N} V' = V/w + (w-1)/(2w)) at each grid point: lhs, rhs as printed, residual\n"
    "lhs - rhs (computed without cancellation), its limit as A -> N, and a verdict.\n"
    "Example (Figure 4): alloclab model --algo rw --N 1000:5000:1000 "
    "--free 0.5,0.1,0.01,0.007,0.005 --T 1e6\n"
    "\n"
    "--schedule rounds (rw|rwbm; not in the paper): all unfinished threads probe at once each\n"
    "round, reads see the state at the start of the round, and the free count falls as they\n"
    "succeed (the simulator's lockstep mode, the GPU when all threads run together). RW: of k\n"
    "threads on one free page one wins; RW-BM: of k threads on a word with f free bits min(k,f)\n"
    "win. Quantities: tas = E[sum of unfinished threads over rounds]/N; was = mean over warps\n"
    "(consecutive thread ids, as on hardware) of E[max lane steps], exact from\n"
    "P(warp done | m unfinished) = C(N-L,m)/C(N,m); rounds = E[rounds until all are done];\n"
    "method = exact_chain (RW, Markov chain over m, N <= 512), exact_profiles (RW-BM, tiny\n"
    "pools: chain over word profiles) or mean_field+tail (large N: expected state advanced\n"
    "round by round with a variance correction, then a chain over the last 256 threads).\n"
    "collisions: expected failed atomic claims of the same process (model/collisions.hpp,\n"
    "mean field; a loser retries on a word holding every earlier claim, as in lockstep);\n"
    "rwbm also collisions_synchronous: losers retry together (an upper model of a GPU).\n"
    "Example: alloclab model --algo rwbm --schedule rounds --N 1024..1048576*2 --free 0.01 "
    "--T 2^25\n"
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
  std::string schedule = "sequential";
  std::string device, data_dir;  // kernel-time prediction (issue 6, validation/time_fit.hpp)
};

void run_model(const ModelOptions& o) {
  const auto parsed = parse_algorithm(o.algo);
  const bool warp_model = parsed && (*parsed == Algorithm::corw || *parsed == Algorithm::rwmalloc);
  if (!parsed || (*parsed != Algorithm::queue && *parsed != Algorithm::rw &&
                  *parsed != Algorithm::rwbm && !warp_model))
    throw InputError("--algo", "unknown or unmodelled algorithm '" + o.algo +
                                   "' (the model covers queue|rw|rwbm|corw|rwmalloc)");
  const bool rounds = o.schedule == "rounds";
  if (!rounds && o.schedule != "sequential")
    throw InputError("--schedule", "unknown schedule '" + o.schedule + "' (sequential|rounds)");
  if (rounds && *parsed != Algorithm::rw && *parsed != Algorithm::rwbm)
    throw InputError("--schedule", "the rounds schedule models rw|rwbm only");
  if (rounds && o.theorems)
    throw InputError("--theorems", "the theorems are about the sequential schedule");
  if (o.grid.pages != 1 && *parsed != Algorithm::rwmalloc)
    throw InputError("--pages", "only rwmalloc serves requests of more than one page");
  if (o.theorems && warp_model)
    throw InputError("--theorems", "Theorems 1 and 2 are about rw/rwbm");
  const auto points = expand_grid_points(o.grid, *parsed, GridUse::model);
  std::optional<nlohmann::json> time_fit;
  if (!o.device.empty()) {
    if (o.theorems) throw InputError("--device", "predicts kernel time; not with --theorems");
    time_fit = validation::load_time_fit(
        o.data_dir.empty() ? validation::default_data_dir() : o.data_dir, o.device);
  }
  const auto evaluate = [&](const Scenario& s) -> std::vector<Record> {
    if (o.theorems) return model::theorem_records(s);
    // rounds: hardware warps run in parallel rounds, so its WAS is the better time predictor.
    Record r = rounds ? model::evaluate_rounds(s) : model::evaluate(s);
    if (time_fit) validation::add_predicted_kernel_time(r, s, *time_fit);
    return {std::move(r)};
  };
  write_records(std::cout, evaluate_points(points, evaluate, std::cerr), o.format);
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
  cmd->add_option("--schedule", opts->schedule,
                  "sequential (the paper's model) or rounds (parallel rounds, rw|rwbm)")
      ->capture_default_str();
  cmd->add_option("--device", opts->device,
                  "add kernel_ms_predicted from this GPU's kernel-time fit, e.g. nvidia-h200");
  cmd->add_option("--data-dir", opts->data_dir,
                  "where device fits live (<dir>/<device>/time_fit.json; default "
                  "$ALLOCLAB_DATA_DIR, else the source tree's reports/data)");
  cmd->callback([opts] { run_model(*opts); });
}

}  // namespace alloclab::cli
