// A plain-text table for the console: columns sized to their widest cell, numbers right-aligned.
#ifndef KVSIM_REPORTS_TEXT_TABLE_H_
#define KVSIM_REPORTS_TEXT_TABLE_H_

#include <string>
#include <vector>

namespace kvsim {

class TextTable {
 public:
  // `align_numbers`: right-align cells that are numbers (off for label/value tables whose values
  // mix numbers and text).
  explicit TextTable(std::vector<std::string> header, bool align_numbers = true)
      : header_(std::move(header)), align_numbers_(align_numbers) {}
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  bool align_numbers_ = true;
};

}  // namespace kvsim

#endif  // KVSIM_REPORTS_TEXT_TABLE_H_
