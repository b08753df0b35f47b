#include "reports/text_table.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace kvsim {
namespace {

// A cell is right-aligned when it is a number, possibly signed, grouped and with a unit suffix.
bool LooksNumeric(const std::string& s) {
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+')) return false;
  for (unsigned char c : s)
    if (!std::isdigit(c) && std::string_view("+-.,%xB ()KiBGM").find(static_cast<char>(c)) == std::string_view::npos)
      return false;
  return true;
}

size_t DisplayWidth(const std::string& s) {
  size_t n = 0;  // count UTF-8 code points, not bytes, so "≈" or "×" do not skew columns
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string TextTable::Render() const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t i = 0; i < header_.size(); ++i) width[i] = DisplayWidth(header_[i]);
  for (const auto& row : rows_)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], DisplayWidth(row[i]));
  std::string out;
  auto emit = [&](const std::vector<std::string>& row, bool header) {
    for (size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      const std::string pad(width[i] - DisplayWidth(cell), ' ');
      if (i) out += "  ";
      out += (!header && align_numbers_ && LooksNumeric(cell)) ? pad + cell : cell + (i + 1 < width.size() ? pad : "");
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  };
  emit(header_, true);
  size_t total = 0;
  for (size_t w : width) total += w;
  out += std::string(total + 2 * (width.size() - 1), '-') + "\n";
  for (const auto& row : rows_) emit(row, false);
  return out;
}

}  // namespace kvsim
