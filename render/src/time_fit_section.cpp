// The report's "Kernel time model (not in the paper)" section, made from a time_fit.json written
// by `alloclab fit-time` (validation/time_fit.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "alloclab/render/sections.hpp"

namespace alloclab::render {
namespace {

std::string pct(const nlohmann::json& summary, const char* field) {
  if (!summary.is_object()) return "-";
  return fmt::format("{:.1f}%", 100.0 * summary.at(field).get<double>());
}

std::string group_label(const nlohmann::json& g) {
  const unsigned w = g.at("w").get<unsigned>();
  return w ? fmt::format("{} w={}", g.at("algo").get<std::string>(), w)
           : g.at("algo").get<std::string>();
}

std::string coefficients_text(const nlohmann::json& c) {
  std::string out = fmt::format("α = {:.4g} ms", c.at("coefficients_ms").at("alpha").get<double>());
  for (const auto& [k, v] : c.at("coefficients_ms").items())
    if (k != "alpha") out += fmt::format(", β[{}] = {:.4g}", k, v.get<double>());
  return out;
}

}  // namespace

Section time_fit_section(const nlohmann::json& tf) {
  Section sec("time-fit", "Kernel time model (not in the paper)");
  const std::string device = tf.at("device").value("name", tf.value("device_id", std::string()));
  const std::string command = tf.value("command_line", std::string("alloclab fit-time"));
  const auto& method = tf.at("method");
  const std::string intro = fmt::format(
      "Per algorithm, kernel time on the {} as a linear function of the work done, kernel_ms = α "
      "+ Σ β_k · feature_k, fitted by least squares (Eigen column-pivoting QR) over the "
      "measured points of the standard grid, weighted by 1/kernel_ms² so that relative errors "
      "count (times span 7 µs to several ms and their noise is roughly proportional). Candidate "
      "features: N (threads: a fixed cost per request), N·TAS (total steps: the memory system's "
      "throughput), warps·WAS (warp-steps: a warp holds its SM slot until its slowest lane "
      "finishes), WAS (the critical path: with few warps the kernel lasts as long as its slowest "
      "warp) and collisions (failed atomic claims). Each candidate set is scored on held-out "
      "points: {}-fold cross-validation (folds from a hash of seed {} and the grid point), "
      "leave-one-N-out (interpolation in N) and leave-one-T-out (extrapolation to the other "
      "pool size). Selected: {}. The model-only fit is the best set without collisions; applied "
      "to the analytic model's TAS and WAS (sequential schedule) it predicts time without a GPU "
      "(`alloclab model ... --device {}` prints kernel_ms_predicted). R² is the standard, "
      "unweighted one over all points. Made by `{}` from {}.",
      device, method.value("kfold", 5), method.value("seed", 1),
      method.value("selection", std::string()), tf.value("device_id", std::string()), command,
      tf.at("source").value("sweep_csv", std::string()));
  sec.paragraph(intro);

  Table summary({"algorithm", "points", "selected features", "coefficients", "R²", "K-fold median",
                 "K-fold max", "leave-one-N-out median / max", "leave-one-T-out median / max",
                 "model-only features", "model-only prediction median / max"},
                {Align::left, Align::right, Align::left, Align::left});
  Table candidates(
      {"algorithm", "features", "every β ≥ 0", "R²", "K-fold RMS", "K-fold median", "K-fold max",
       "leave-one-N-out median / max", "leave-one-T-out median / max", "K-fold RMS, fitted per T"},
      {Align::left, Align::left});
  for (const auto& g : tf.at("fits")) {
    const auto& s = g.at("selected");
    const auto& m = g.at("model_only");
    const auto& me = g.at("model_only_prediction_error");
    summary.add_row({group_label(g), std::to_string(g.at("points").get<std::size_t>()),
                     s.at("features").get<std::string>(), coefficients_text(s),
                     fmt::format("{:.4f}", s.at("r_squared").get<double>()),
                     pct(s.at("kfold_relative_error"), "median"),
                     pct(s.at("kfold_relative_error"), "max"),
                     pct(s.at("leave_one_N_out_relative_error"), "median") + " / " +
                         pct(s.at("leave_one_N_out_relative_error"), "max"),
                     pct(s.at("leave_one_T_out_relative_error"), "median") + " / " +
                         pct(s.at("leave_one_T_out_relative_error"), "max"),
                     m.at("features").get<std::string>() + " (" + coefficients_text(m) + ")",
                     me.is_object() ? pct(me, "median") + " / " + pct(me, "max")
                                    : "no model: " + g.value("model_note", std::string())});
    for (const auto& c : g.at("candidates"))
      candidates.add_row({group_label(g), c.at("features").get<std::string>(),
                          c.value("physical", true) ? "yes" : "no",
                          fmt::format("{:.4f}", c.at("r_squared").get<double>()),
                          pct(c.at("kfold_relative_error"), "rms"),
                          pct(c.at("kfold_relative_error"), "median"),
                          pct(c.at("kfold_relative_error"), "max"),
                          pct(c.at("leave_one_N_out_relative_error"), "median") + " / " +
                              pct(c.at("leave_one_N_out_relative_error"), "max"),
                          pct(c.at("leave_one_T_out_relative_error"), "median") + " / " +
                              pct(c.at("leave_one_T_out_relative_error"), "max"),
                          pct(c.value("kfold_per_T_relative_error", nlohmann::json()), "rms")});
  }
  sec.heading("Selected fits");
  sec.table(std::move(summary));
  const std::string why =
      "Relative errors |predicted − measured| / measured. The model-only prediction error is "
      "over the measured points of algorithms the analytic model covers; it inherits the "
      "model's departures from hardware (RW's WAS on hardware exceeds the sequential model's, "
      "see the verdicts), so part of that error is the model's, not the time fit's.";
  sec.paragraph(why);
  sec.heading("Candidate feature sets, by held-out error");
  sec.table(std::move(candidates));

  // Predicted vs measured, log-log, one figure per algorithm: held-out (K-fold) predictions of
  // the selected fit and the model-only predictions, around the line predicted = measured.
  for (const auto& g : tf.at("fits")) {
    PlotSpec p;
    p.title = fmt::format("Kernel time, predicted vs measured: {} on {}", group_label(g), device);
    p.xlabel = "measured kernel time (ms)";
    p.ylabel = "predicted kernel time (ms)";
    p.logx = p.logy = true;
    Series held, model, diagonal;
    held.lines = model.lines = false;
    held.title = "held out (K-fold)";
    model.title = "model TAS/WAS only";
    diagonal.title = "predicted = measured";
    double lo = INFINITY, hi = 0;
    std::size_t dropped = 0;
    for (const auto& pt : g.at("per_point")) {
      const double y = pt.at("kernel_ms").get<double>();
      lo = std::min(lo, y);
      hi = std::max(hi, y);
      for (auto [key, series] : {std::pair<const char*, Series*>{"kfold_predicted_ms", &held},
                                 {"model_predicted_ms", &model}}) {
        if (!pt.at(key).is_number()) continue;
        const double v = pt.at(key).get<double>();
        if (v <= 0) {  // a log axis cannot show it; counted in the caption
          ++dropped;
          continue;
        }
        series->x.push_back(y);
        series->y.push_back(v);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    if (held.x.empty()) continue;
    diagonal.x = {lo, hi};
    diagonal.y = {lo, hi};
    p.series.push_back(diagonal);
    p.series.push_back(held);
    if (!model.x.empty()) p.series.push_back(model);
    std::string caption =
        p.title + ". Each point is one grid point of the standard grid (mean over trials). " +
        "Held out: predicted by the fit (" + g.at("selected").at("features").get<std::string>() +
        ") made without that point's fold.";
    if (!model.x.empty())
      caption += " Model TAS/WAS only: the collision-free fit (" +
                 g.at("model_only").at("features").get<std::string>() +
                 ") applied to the analytic model's TAS and WAS.";
    if (dropped) caption += fmt::format(" {} non-positive predictions not shown.", dropped);
    Figure f;
    f.id =
        fmt::format("time_fit_{}_w{}", g.at("algo").get<std::string>(), g.at("w").get<unsigned>());
    f.caption = caption;
    f.svg = render_svg(p);
    f.made_by = command;  // drawn from the time fit, not from sweep rows
    sec.figure(std::move(f));
  }
  return sec;
}

}  // namespace alloclab::render
