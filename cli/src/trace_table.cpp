#include "alloclab/cli/trace_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/workload.hpp"

namespace alloclab::cli {

namespace {

template <class Pick>
std::string listed(const std::vector<const TraceEntry*>& entries, Pick pick) {
  std::string out;
  for (const TraceEntry* e : entries)
    for (std::string_view v : pick(*e)) out += (out.empty() ? "" : ", ") + std::string(v);
  return out;
}

}  // namespace

const TraceEntry& pick_trace(const TraceRequest& r) {
  const auto entries = TraceTable::instance().all();
  const bool by_figure = !r.figure.empty();
  const std::string& key = by_figure ? r.figure : r.allocator;
  for (const TraceEntry* e : entries) {
    const auto& keys = by_figure ? e->figures : e->allocators;
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) return *e;
  }
  if (by_figure)
    throw InputError("--figure",
                     fmt::format("figure {} is not traced (traced: {})", r.figure,
                                 listed(entries, [](const TraceEntry& e) { return e.figures; })));
  throw InputError("--allocator",
                   fmt::format("'{}' has no trace (traced: {}; or --figure {})", r.allocator,
                               listed(entries, [](const TraceEntry& e) { return e.allocators; }),
                               listed(entries, [](const TraceEntry& e) { return e.figures; })));
}

TraceDocument run_trace(const TraceRequest& r) {
  const TraceEntry& e = pick_trace(r);
  static constexpr std::string_view kEvery[] = {"--format", "--out", "--seed", "--help"};
  for (const std::string& option : r.given) {
    if (std::find(std::begin(kEvery), std::end(kEvery), option) != std::end(kEvery)) continue;
    if (option == "--figure" && !r.figure.empty()) continue;
    if (std::find(e.options.begin(), e.options.end(), option) != e.options.end()) continue;
    std::string takes;
    for (std::string_view o : e.options) takes += (takes.empty() ? "" : ", ") + std::string(o);
    throw InputError(option, fmt::format("not taken by the trace of {}{}", e.name,
                                         takes.empty() ? std::string(" (it takes no options)")
                                                       : " (it takes " + takes + ")"));
  }
  return e.run(r);
}

std::vector<TraceOp> parse_trace_ops(const std::string& text, std::uint64_t max_size,
                                     std::uint32_t max_count, const std::string& example) {
  if (text.empty()) throw InputError("--ops", "the requests, e.g. --ops " + example);
  std::vector<TraceOp> ops;
  std::vector<bool> freed;  // per a: freed already
  std::size_t start = 0;
  constexpr std::size_t kMaxOps = 64;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    auto bad = [&](const std::string& why) {
      return InputError("--ops",
                        fmt::format("'{}': {} (aS, aSxK or fI, e.g. {})", item, why, example));
    };
    auto number = [&](const std::string& digits, const char* what) {
      if (digits.empty() || digits.size() > 9 ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        throw bad(fmt::format("{} is not a whole number", what));
      return std::stoull(digits);
    };
    if (item.size() < 2 || (item[0] != 'a' && item[0] != 'f')) throw bad("not an operation");
    TraceOp op;
    if (item[0] == 'f') {
      op.alloc = false;
      op.target = number(item.substr(1), "the allocation's index");
      if (op.target >= freed.size())
        throw bad(fmt::format("only {} allocation{} before it", freed.size(),
                              freed.size() == 1 ? "" : "s"));
      if (freed[op.target]) throw bad("that allocation is freed already");
      freed[op.target] = true;
    } else {
      const std::size_t x = item.find('x');
      std::string size = item.substr(1, x == std::string::npos ? std::string::npos : x - 1);
      op.size = parse_bytes("--ops", size);
      if (op.size > max_size)
        throw bad(fmt::format("a request of {} is over {}", op.size, max_size));
      if (x != std::string::npos) {
        const auto k = number(item.substr(x + 1), "the count after x");
        if (k < 1 || k > max_count) throw bad(fmt::format("K is 1 .. {}", max_count));
        op.count = static_cast<std::uint32_t>(k);
      }
      freed.push_back(false);
    }
    ops.push_back(op);
    if (ops.size() > kMaxOps)
      throw bad(fmt::format("a trace follows at most {} operations", kMaxOps));
  }
  return ops;
}

namespace {
std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '&')
      out += "&amp;";
    else if (ch == '<')
      out += "&lt;";
    else if (ch == '>')
      out += "&gt;";
    else
      out += ch;
  }
  return out;
}
}  // namespace

std::string cell_rows_svg(const std::vector<CellRow>& rows, const std::string& legend) {
  const int c = 12;
  std::size_t label = 0, width = 0;
  for (const auto& row : rows) {
    label = std::max(label, row.label.size());
    width = std::max(width, row.cells.size());
  }
  const std::size_t x0 = 6 * label + 8;
  std::string f = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"monospace\" font-size=\"9\">\n",
      std::max(x0 + c * width + 10, 5 * legend.size() + 10), c * rows.size() + 34);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::size_t y = 10 + c * r;
    f += fmt::format("<text x=\"2\" y=\"{}\">{}</text>\n", y + 9, xml_escaped(rows[r].label));
    for (std::size_t i = 0; i < rows[r].cells.size(); ++i) {
      const auto& [fill, glyph] = rows[r].cells[i];
      f += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"white\"/>\n",
          x0 + c * i, y, c, c, fill);
      if (glyph != ' ')
        f += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"white\">{}</text>\n", x0 + c * i + 3,
                         y + 9, xml_escaped(std::string(1, glyph)));
    }
  }
  f += fmt::format("<text x=\"2\" y=\"{}\">{}</text>\n</svg>\n", c * rows.size() + 28,
                   xml_escaped(legend));
  return f;
}

}  // namespace alloclab::cli
