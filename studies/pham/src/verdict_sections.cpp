// The verdict-facing sections: the report's opening summary, the verdict tables per claim and
// allocator, the comparison table, the Theorem 1/2 checks and the errata.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "alloclab/model/model.hpp"
#include "alloclab/render/study_report.hpp"
#include "alloclab/render/text.hpp"
#include "alloclab/studies/pham_sections.hpp"

namespace alloclab::render {

using validation::Outcome;
using validation::TidyRow;
using validation::Verdict;

std::string claim_of(const Verdict& v) {
  std::string claim = v.check;
  if (v.point.backend != "sim" || v.point.mode.empty() || claim.find("sim (") != std::string::npos)
    return claim;
  // The first "sim" that is a word of its own: "model vs sim: tas", "sim WAS <= bound".
  for (std::size_t pos = claim.find("sim"); pos != std::string::npos;
       pos = claim.find("sim", pos + 3)) {
    const bool starts = pos == 0 || claim[pos - 1] == ' ';
    const bool ends = pos + 3 == claim.size() || claim[pos + 3] == ' ' || claim[pos + 3] == ':';
    if (starts && ends) return claim.insert(pos + 3, " (" + v.point.mode + ")");
  }
  return claim;
}

std::string verdict_anchor(const std::string& claim, Algorithm algo) {
  return "verdicts-" + anchor_id(claim) + "-" + anchor_id(std::string(name(algo)));
}

namespace {

struct Counts {
  std::size_t pass = 0, explained = 0, fail = 0;
  void add(Outcome o) {
    pass += o == Outcome::pass;
    explained += o == Outcome::expected_departure;
    fail += o == Outcome::fail;
  }
  std::size_t total() const { return pass + explained + fail; }
  std::string text() const {
    if (explained == 0 && fail == 0) return fmt::format("pass ({})", pass);
    std::string out = fmt::format("{} pass", pass);
    if (explained) out += fmt::format(", {} explained", explained);
    if (fail) out += fmt::format(", {} FAIL", fail);
    return out;
  }
};

// Claims in the order the verdicts first raise them.
std::vector<std::string> claims_in_order(const std::vector<Verdict>& verdicts) {
  std::vector<std::string> out;
  for (const auto& v : verdicts) {
    const auto c = claim_of(v);
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::vector<Algorithm> algorithms_in(const std::vector<Verdict>& verdicts) {
  std::vector<Algorithm> out;
  for (const auto& a : kAlgorithms)
    if (std::any_of(verdicts.begin(), verdicts.end(),
                    [&](const Verdict& v) { return v.point.algo == a.id; }))
      out.push_back(a.id);
  return out;
}

std::string number(double x, const char* format = "{:.6g}") {
  return std::isfinite(x) ? fmt::format(fmt::runtime(format), x) : std::string("-");
}

// A theorem record's verdict in a word or two ("false as printed", "holds", "A>N, not the
// limit"): the check at the record's point, evaluated again, says it (TheoremCheck::lead); the
// record's verdict text is shown, never read.
std::string theorem_lead(const Record& r, const std::string& theorem) {
  const auto at = [&r](const char* key) {
    return static_cast<std::uint64_t>(r.number(key).value_or(0));
  };
  const auto w = static_cast<unsigned>(at("w"));
  return theorem == "1" ? model::check_theorem1(at("N"), at("A"), at("T"), w).lead
                        : model::check_theorem2(at("N"), at("A"), at("T"), w,
                                                static_cast<unsigned>(at("lanes")))
                              .lead;
}

}  // namespace

Section comparison_section(const std::vector<TidyRow>& rows) {
  Section s("comparison", "Model vs simulation vs hardware");
  s.paragraph(
      "Every grid point with TAS, WAS or the WAS bound, one column per quantity and source: "
      "exact model values, and means ± 95% CI half-widths of simulations and GPU runs.");
  std::vector<std::string> columns;
  std::map<std::string, std::map<std::string, std::string>> cells;  // point -> column -> text
  std::vector<std::pair<std::string, const validation::PointKey*>> order;
  for (const auto& r : rows) {
    if (r.metric != "tas" && r.metric != "was" && r.metric != "was_bound") continue;
    const auto& p = r.point;
    const std::string key =
        fmt::format("{}|{}|{}|{}|{}|{}", name(p.algo), p.T, p.A, p.w, p.N, p.pages);
    auto [it, fresh] = cells.try_emplace(key);
    if (fresh) order.emplace_back(key, &p);
    const std::string col =
        r.metric + " " + (p.mode.empty() ? p.backend : p.backend + " (" + p.mode + ")");
    if (std::find(columns.begin(), columns.end(), col) == columns.end()) columns.push_back(col);
    it->second[col] = !r.mean   ? "-"
                      : r.n > 1 ? fmt::format("{:.4g} ± {:.2g}", *r.mean, r.ci95)
                                : fmt::format("{:.6g}", *r.mean);
  }
  std::vector<std::string> head = {"algo", "T", "A", "w", "N"};
  head.insert(head.end(), columns.begin(), columns.end());
  std::vector<Align> align(head.size(), Align::right);
  align[0] = Align::left;
  Table t(head, align);
  for (const auto& [key, p] : order) {
    std::vector<Cell> row = {std::string(name(p->algo)), fmt::format("{}", p->T),
                             fmt::format("{}", p->A), fmt::format("{}", p->w),
                             fmt::format("{}", p->N)};
    const auto& c = cells[key];
    for (const auto& col : columns) {
      const auto f = c.find(col);
      row.emplace_back(f == c.end() ? std::string() : f->second);
    }
    t.add_row(std::move(row));
  }
  s.table(std::move(t));
  return s;
}

Section verdicts_section(const std::vector<Verdict>& verdicts) {
  Section s("verdicts", "Verdicts");
  s.paragraph(
      "One table per claim and allocator. z = (observed - reference) / (sd / sqrt(n)), judged "
      "against a family-wise 95% threshold (Bonferroni over the comparisons, Student's t on the "
      "trials' degrees of freedom); model vs GPU also by relative error; WAS against the bound "
      "one-sided. Each departure says what explains it, or FAIL.");
  for (const auto& claim : claims_in_order(verdicts))
    for (const auto algo : algorithms_in(verdicts)) {
      std::vector<const Verdict*> group;
      Counts counts;
      for (const auto& v : verdicts)
        if (v.point.algo == algo && claim_of(v) == claim) {
          group.push_back(&v);
          counts.add(v.outcome);
        }
      if (group.empty()) continue;
      // Rows by pool, then free pages, word width, request size and N, as a reader scans them.
      std::stable_sort(group.begin(), group.end(), [](const Verdict* a, const Verdict* b) {
        const auto& p = a->point;
        const auto& q = b->point;
        return std::tie(p.T, p.A, p.w, p.pages, p.N) < std::tie(q.T, q.A, q.w, q.pages, q.N);
      });
      const bool pages = caps(algo).requests == RequestKind::pages;
      std::vector<std::string> head = {"N", "A", "T", "w"};
      if (pages) head.push_back("pages");
      for (const char* h : {"observed", "± CI95", "reference", "z", "relative error", "inside CI95",
                            "verdict", "explanation"})
        head.emplace_back(h);
      std::vector<Align> align(head.size(), Align::right);
      align[align.size() - 2] = align.back() = Align::left;
      Table t(head, align);
      for (const Verdict* v : group) {
        std::vector<Cell> row = {fmt::format("{}", v->point.N), fmt::format("{}", v->point.A),
                                 fmt::format("{}", v->point.T), fmt::format("{}", v->point.w)};
        if (pages) row.emplace_back(fmt::format("{}", v->point.pages));
        row.emplace_back(number(v->observed));
        row.emplace_back(number(v->observed_ci95, "{:.3g}"));
        row.emplace_back(number(v->reference));
        row.emplace_back(number(v->z, "{:.2f}"));
        row.emplace_back(fmt::format("{:+.2f}%", 100 * v->relative_error));
        row.emplace_back(v->inside_ci95 ? "yes" : "no");
        row.emplace_back(std::string(validation::outcome_name(v->outcome)));
        row.emplace_back(v->explanation);
        t.add_row(std::move(row), v->outcome == Outcome::fail);
      }
      s.heading(fmt::format("{}: {} ({})", name(algo), claim, counts.text()),
                verdict_anchor(claim, algo));
      s.table(std::move(t));
    }
  if (verdicts.empty())
    s.paragraph(
        "No comparisons: the sweep holds no model value beside a "
        "simulated or measured one.");
  return s;
}

Section theorems_section(const std::vector<Record>& theorem_checks) {
  Section s("theorems", "Theorems 1 and 2, checked numerically");
  s.paragraph(
      "At T = 10^6, N = 5000, A in {N, N+1, 1.01 N, 2 N}, w in {32, 64}: lhs and rhs as printed, "
      "their residual (computed without cancellation), its limit as A -> N, and a verdict.");
  s.table(records_table(theorem_checks));
  return s;
}

Section errata_section(const std::vector<validation::Erratum>& errata) {
  return errata_section("errata", "Errata of paper 000", errata);
}

Section summary_section(const std::vector<Verdict>& verdicts,
                        const std::vector<Record>& theorem_checks, std::size_t errata,
                        const std::vector<SectionLink>& contents) {
  Section s("pham-summary", "Paper 000: summary");
  Counts all;
  for (const auto& v : verdicts) all.add(v.outcome);
  s.paragraph(fmt::format(
      "{} checks of the models against simulation and hardware: {} pass, {} departures explained "
      "by the data (each says why), {} FAIL. Per allocator and claim (each cell links to its "
      "table):",
      all.total(), all.pass, all.explained, all.fail));

  const auto algos = algorithms_in(verdicts);
  std::vector<std::string> head = {"claim"};
  for (const auto a : algos) head.emplace_back(name(a));
  Table t(head, std::vector<Align>(head.size(), Align::left));
  for (const auto& claim : claims_in_order(verdicts)) {
    std::vector<Cell> row = {claim};
    bool failed = false;
    for (const auto a : algos) {
      Counts c;
      for (const auto& v : verdicts)
        if (v.point.algo == a && claim_of(v) == claim) c.add(v.outcome);
      failed = failed || c.fail > 0;
      if (c.total() == 0) {
        row.emplace_back("-");
        continue;
      }
      std::string href = "#";
      href += verdict_anchor(claim, a);
      row.emplace_back(c.text(), std::move(href));
    }
    t.add_row(std::move(row), failed);
  }
  s.table(std::move(t));
  s.paragraph(
      "model: the paper's sequential model (Eq. 1-5; the warp chains for CoRW and RW_malloc); "
      "rounds model: the parallel-rounds model; sim (mode): the CPU simulator in that schedule; "
      "gpu: hardware; bound: Eq. (3)/(5), one-sided; was_service_order: WAS over warps formed "
      "in service order, the sequential model's own definition.");

  // The paper's statements checked without sweep data.
  Table paper({"statement", "verdict"}, {Align::left, Align::left});
  for (const std::string theorem : {"1", "2"}) {
    std::map<std::string, std::size_t> leads;
    for (const auto& r : theorem_checks) {
      const FieldValue* th = r.find("theorem");
      if (th && field_text(th) == theorem) ++leads[theorem_lead(r, theorem)];
    }
    if (leads.empty()) continue;
    std::string text;
    for (const auto& [lead, n] : leads)
      text += fmt::format("{}{} ({} of the points)", text.empty() ? "" : "; ", lead, n);
    paper.add_row({Cell("Theorem " + theorem, "#theorems"), text});
  }
  paper.add_row({Cell("errors in paper 000", "#errata"),
                 errata ? fmt::format("{} errata, each with its evidence", errata)
                        : std::string("none recorded")});
  s.table(std::move(paper));

  std::vector<std::string> items;
  for (const auto& c : contents)
    items.push_back(fmt::format("[{}](#{}){}", c.title, c.id,
                                c.figures ? fmt::format(" ({} figures)", c.figures) : ""));
  s.heading("Contents");
  s.list(std::move(items));
  return s;
}

}  // namespace alloclab::render
