// The report's one table type: built once, rendered as HTML and as Markdown. Every table of the
// report (run metadata, comparisons, verdicts, errata, the sections' summaries) is one of these.
#pragma once

#include <string>
#include <vector>

#include "alloclab/core/result.hpp"

namespace alloclab::render {

// A cell: plain text (escaped on output), optionally a link (href, e.g. "#verdicts-rw") or a
// link target (id).
struct Cell {
  std::string text, href, id;
  Cell(std::string t) : text(std::move(t)) {}  // NOLINT: cells are written as strings
  Cell(const char* t) : text(t) {}             // NOLINT
  Cell(std::string t, std::string link) : text(std::move(t)), href(std::move(link)) {}
  static Cell target(std::string t, std::string anchor) {
    Cell c(std::move(t));
    c.id = std::move(anchor);
    return c;
  }
};

enum class Align { right, left };  // numbers right (the default), prose left

class Table {
 public:
  // align: per column; missing entries are right-aligned.
  explicit Table(std::vector<std::string> head, std::vector<Align> align = {});

  // Throws std::logic_error when the row does not have one cell per column (a bug, not input).
  // highlight: a row to be seen at once (a failed check): shaded in HTML, bold in Markdown.
  Table& add_row(std::vector<Cell> cells, bool highlight = false);

  bool empty() const { return rows_.empty(); }
  std::size_t size() const { return rows_.size(); }
  const std::vector<std::string>& head() const { return head_; }

  std::string html() const;
  std::string markdown() const;

 private:
  struct Row {
    std::vector<Cell> cells;
    bool highlight;
  };
  std::vector<std::string> head_;
  std::vector<Align> align_;
  std::vector<Row> rows_;
};

// Records as a table: the union of their keys in first-seen order, numbers with 6 significant
// digits, null as "-". A record whose "verdict" is "FAIL" is highlighted. Columns whose values
// are text (explanations, claims) are left-aligned.
Table records_table(const std::vector<Record>& records);

// A field's text as records_table writes it ("" for a missing field).
std::string field_text(const FieldValue* v);

}  // namespace alloclab::render
