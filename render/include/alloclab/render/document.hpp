// A report section as data: headings, paragraphs, tables, lists and figures, in order. Sections
// are built once and rendered to HTML and to Markdown by the same code (report.cpp), so the two
// outputs cannot drift apart.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "alloclab/render/plot.hpp"
#include "alloclab/render/table.hpp"
#include "alloclab/validation/tidy.hpp"

namespace alloclab::render {

struct Heading {
  std::string text, id;  // a sub-heading inside the section; id: anchor, may be empty
};
struct Paragraph {
  std::string text;  // prose, `code` marked with backticks (text.hpp)
};
struct BulletList {
  std::vector<std::string> items;  // prose, as Paragraph
};
struct Figure {
  std::string id;       // also the file name figures/<id>.svg
  std::string caption;  // prose
  std::string svg;
  // The sweep rows the figure draws: its "Made by" names the sweep command that wrote them
  // (provenance.hpp). Empty for figures not drawn from sweep rows, which set made_by instead.
  std::vector<validation::PointKey> rows;
  std::string made_by;  // a command, for figures drawn from other data (e.g. a time fit)
};

using Block = std::variant<Heading, Paragraph, BulletList, Table, Figure>;

struct Section {
  std::string id, title;  // <h2 id=...>title</h2>
  std::vector<Block> blocks;

  Section(std::string anchor, std::string heading_text)
      : id(std::move(anchor)), title(std::move(heading_text)) {}
  Section& heading(std::string text, std::string anchor = {}) {
    blocks.emplace_back(Heading{std::move(text), std::move(anchor)});
    return *this;
  }
  Section& paragraph(std::string text) {
    blocks.emplace_back(Paragraph{std::move(text)});
    return *this;
  }
  Section& list(std::vector<std::string> items) {
    if (!items.empty()) blocks.emplace_back(BulletList{std::move(items)});
    return *this;
  }
  Section& table(Table t) {
    if (!t.empty()) blocks.emplace_back(std::move(t));
    return *this;
  }
  Section& figure(std::optional<Figure> f) {
    if (f) blocks.emplace_back(std::move(*f));
    return *this;
  }
  bool empty() const { return blocks.empty(); }
  std::size_t figure_count() const;
};

// A figure from a plot: series without points are dropped; nullopt when none is left. The SVG is
// rendered by gnuplot (render_svg throws where gnuplot is missing). The caption is the plot's
// title followed by `caption`.
std::optional<Figure> make_figure(const std::string& id, PlotSpec plot, const std::string& caption,
                                  std::vector<validation::PointKey> rows = {});

}  // namespace alloclab::render
