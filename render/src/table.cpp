#include "alloclab/render/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "alloclab/render/text.hpp"

namespace alloclab::render {

Table::Table(std::vector<std::string> head, std::vector<Align> align)
    : head_(std::move(head)), align_(std::move(align)) {
  align_.resize(head_.size(), Align::right);
}

Table& Table::add_row(std::vector<Cell> cells, bool highlight) {
  if (cells.size() != head_.size())
    throw std::logic_error(fmt::format("table row of {} cells under {} columns ('{}' ...)",
                                       cells.size(), head_.size(),
                                       head_.empty() ? std::string() : head_.front()));
  rows_.push_back({std::move(cells), highlight});
  return *this;
}

std::string Table::html() const {
  std::string out = "<table>\n<tr>";
  for (std::size_t i = 0; i < head_.size(); ++i)
    out +=
        (align_[i] == Align::left ? "<th class=\"l\">" : "<th>") + html_escape(head_[i]) + "</th>";
  out += "</tr>\n";
  for (const auto& r : rows_) {
    out += r.highlight ? "<tr class=\"fail\">" : "<tr>";
    for (std::size_t i = 0; i < r.cells.size(); ++i) {
      const Cell& c = r.cells[i];
      out += "<td";
      if (align_[i] == Align::left) out += " class=\"l\"";
      if (!c.id.empty()) out += " id=\"" + html_escape(c.id) + "\"";
      out += '>';
      out += c.href.empty()
                 ? html_escape(c.text)
                 : "<a href=\"" + html_escape(c.href) + "\">" + html_escape(c.text) + "</a>";
      out += "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
  return out;
}

std::string Table::markdown() const {
  std::string out = "|";
  for (const auto& h : head_) out += ' ' + markdown_cell(h) + " |";
  out += "\n|";
  for (const auto a : align_) out += a == Align::left ? ":---|" : "---:|";
  out += '\n';
  for (const auto& r : rows_) {
    out += '|';
    for (const auto& c : r.cells) {
      std::string text = markdown_cell(c.text);
      if (!c.href.empty()) text = "[" + text + "](" + c.href + ")";
      if (r.highlight && !text.empty()) text = "**" + text + "**";
      if (!c.id.empty()) text = "<a id=\"" + c.id + "\"></a>" + text;
      out += ' ' + text + " |";
    }
    out += '\n';
  }
  return out;
}

std::string field_text(const FieldValue* v) {
  if (!v) return "";
  return std::visit(
      [](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>)
          return "-";
        else if constexpr (std::is_same_v<X, double>)
          return fmt::format("{:.6g}", x);
        else if constexpr (std::is_same_v<X, bool>)
          return x ? "yes" : "no";
        else if constexpr (std::is_same_v<X, std::string>)
          return x;
        else
          return fmt::format("{}", x);
      },
      *v);
}

Table records_table(const std::vector<Record>& records) {
  std::vector<std::string> keys;
  std::vector<Align> align;
  for (const auto& r : records)
    for (const auto& [k, v] : r.fields) {
      const auto it = std::find(keys.begin(), keys.end(), k);
      const bool text = std::holds_alternative<std::string>(v);
      if (it == keys.end()) {
        keys.push_back(k);
        align.push_back(text ? Align::left : Align::right);
      } else if (text) {
        align[static_cast<std::size_t>(it - keys.begin())] = Align::left;
      }
    }
  Table t(keys, align);
  for (const auto& r : records) {
    std::vector<Cell> cells;
    for (const auto& k : keys) cells.emplace_back(field_text(r.find(k)));
    const FieldValue* verdict = r.find("verdict");
    const bool failed = verdict && std::holds_alternative<std::string>(*verdict) &&
                        std::get<std::string>(*verdict) == "FAIL";
    t.add_row(std::move(cells), failed);
  }
  return t;
}

}  // namespace alloclab::render
