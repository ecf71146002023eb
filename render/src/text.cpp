#include "alloclab/render/text.hpp"

#include <fmt/format.h>

#include <iterator>

#include "alloclab/core/slug.hpp"

namespace alloclab::render {

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// Escaped text with [label](href) links as <a> (label without brackets, href without spaces;
// anything else stays text).
std::string links_html(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto open = text.find('[', pos);
    const auto mid = open == std::string::npos ? open : text.find("](", open);
    const auto close = mid == std::string::npos ? mid : text.find(')', mid);
    const bool link = close != std::string::npos &&
                      text.find_first_of("[]", open + 1) >= mid &&  // no nested brackets
                      text.find(' ', mid) > close;
    if (open == std::string::npos || mid == std::string::npos || close == std::string::npos) {
      out += html_escape(text.substr(pos));
      break;
    }
    if (!link) {
      out += html_escape(text.substr(pos, open + 1 - pos));
      pos = open + 1;
      continue;
    }
    out += html_escape(text.substr(pos, open - pos));
    out += "<a href=\"" + html_escape(text.substr(mid + 2, close - mid - 2)) + "\">" +
           html_escape(text.substr(open + 1, mid - open - 1)) + "</a>";
    pos = close + 1;
  }
  return out;
}

}  // namespace

std::string inline_html(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto open = text.find('`', pos);
    const auto close = open == std::string::npos ? open : text.find('`', open + 1);
    if (close == std::string::npos) {
      out += links_html(text.substr(pos));
      break;
    }
    out += links_html(text.substr(pos, open - pos));
    out += "<code>" + html_escape(text.substr(open + 1, close - open - 1)) + "</code>";
    pos = close + 1;
  }
  return out;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string anchor_id(const std::string& text) {
  return slug(text);
}

std::string fraction_label(std::uint64_t A, std::uint64_t T) {
  return fmt::format("{:.3g}%", 100.0 * static_cast<double>(A) / static_cast<double>(T));
}

}  // namespace alloclab::render
