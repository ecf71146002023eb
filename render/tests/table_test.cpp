// The report's table and prose text, against hand-written HTML and Markdown.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "alloclab/render/table.hpp"
#include "alloclab/render/text.hpp"

using namespace alloclab;
using namespace alloclab::render;

TEST_CASE("a table renders the same rows as HTML and as Markdown", "[render][table]") {
  Table t({"claim", "N"}, {Align::left});
  t.add_row({"a < b & c", "1024"});
  t.add_row({Cell("x|y", "#verdicts-rw"), "2"}, true);
  t.add_row({Cell::target("run 1", "run-1"), "3"});
  CHECK(t.size() == 3);
  CHECK(t.html() ==
        "<table>\n<tr><th class=\"l\">claim</th><th>N</th></tr>\n"
        "<tr><td class=\"l\">a &lt; b &amp; c</td><td>1024</td></tr>\n"
        "<tr class=\"fail\"><td class=\"l\"><a href=\"#verdicts-rw\">x|y</a></td><td>2</td></tr>\n"
        "<tr><td class=\"l\" id=\"run-1\">run 1</td><td>3</td></tr>\n"
        "</table>\n");
  CHECK(t.markdown() ==
        "| claim | N |\n"
        "|:---|---:|\n"
        "| a < b & c | 1024 |\n"
        "| **[x\\|y](#verdicts-rw)** | **2** |\n"
        "| <a id=\"run-1\"></a>run 1 | 3 |\n");
}

TEST_CASE("a row with the wrong number of cells is a bug, not a table", "[render][table]") {
  Table t({"a", "b"});
  CHECK_THROWS_AS(t.add_row({"only one"}), std::logic_error);
  CHECK(t.empty());
}

TEST_CASE("records become a table: union of keys, text left, FAIL highlighted", "[render][table]") {
  Record pass, fail;
  pass.set("check", std::string("model vs sim: tas"))
      .set("z", 1.23456789)
      .set("verdict", std::string("pass"));
  fail.set("check", std::string("model vs gpu: was"))
      .set_quantity("z", std::nullopt)
      .set("verdict", std::string("FAIL"))
      .set("inside", false);
  const Table t = records_table({pass, fail});
  CHECK(t.head() == std::vector<std::string>{"check", "z", "verdict", "inside"});
  CHECK(t.html() ==
        "<table>\n<tr><th class=\"l\">check</th><th>z</th><th class=\"l\">verdict</th>"
        "<th>inside</th></tr>\n"
        "<tr><td class=\"l\">model vs sim: tas</td><td>1.23457</td><td class=\"l\">pass</td>"
        "<td></td></tr>\n"
        "<tr class=\"fail\"><td class=\"l\">model vs gpu: was</td><td>-</td>"
        "<td class=\"l\">FAIL</td><td>no</td></tr>\n"
        "</table>\n");
}

TEST_CASE("prose: code spans, links and escapes", "[render][text]") {
  CHECK(html_escape("<a href=\"x\">&</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
  CHECK(inline_html("run `alloclab report <dir>` & see [the appendix](#provenance).") ==
        "run <code>alloclab report &lt;dir&gt;</code> &amp; see <a "
        "href=\"#provenance\">the appendix</a>.");
  // Brackets that are not links stay text: a formula, an href with a space, an open backtick.
  CHECK(inline_html("E[max] (x)") == "E[max] (x)");
  CHECK(inline_html("[a](b c)") == "[a](b c)");
  CHECK(inline_html("β[N*TAS] = 3, `open") == "β[N*TAS] = 3, `open");
  // A code span keeps brackets as code.
  CHECK(inline_html("`[a](#b)`") == "<code>[a](#b)</code>");
  CHECK(markdown_cell("a|b\nc") == "a\\|b c");
  CHECK(anchor_id("model vs sim (sequential): tas") == "model-vs-sim-sequential-tas");
  CHECK(anchor_id("gpu WAS <= bound") == "gpu-was-bound");
  CHECK(fraction_label(5000, 1000000) == "0.5%");
  CHECK(fraction_label(7000, 1000000) == "0.7%");
  CHECK(fraction_label(500000, 1000000) == "50%");
}
