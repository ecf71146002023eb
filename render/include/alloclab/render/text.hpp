// Text for the report's two outputs, HTML and Markdown. Prose is written once, as plain text in
// which `backticks` mark code and [label](#anchor) a link; inline_html() turns that into escaped
// HTML, and the Markdown output keeps it as written.
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/workload.hpp"

namespace alloclab::render {

// Text for HTML element content and attribute values (<, >, &, ").
std::string html_escape(const std::string& s);

// Escaped HTML of prose: `code` spans as <code>...</code> (an unmatched backtick stays as is),
// [label](href) as a link (a label without brackets, an href without spaces; Markdown keeps both
// as written).
std::string inline_html(const std::string& text);

// Text for one Markdown table cell: '|' escaped, line breaks as spaces.
std::string markdown_cell(const std::string& text);

// An anchor id from free text: lower case letters and digits, other runs as one '-'
// ("model vs sim (sequential): tas" -> "model-vs-sim-sequential-tas").
std::string anchor_id(const std::string& text);

// "50%", "0.7%": the free fraction A/T as the paper labels it.
std::string fraction_label(std::uint64_t A, std::uint64_t T);

// "256 B", "4 KiB", "64 MiB" (core/workload.hpp, beside parse_bytes, which reads them back).
using alloclab::bytes_label;

}  // namespace alloclab::render
