#include "reports/validation_report.h"

#include "kvcache/base/text_format.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

std::string Cell(const ComparedFigure& f, const char* fmt) {
  if (!f.logged) return "";
  if (!f.predicted) return Format(fmt, *f.logged) + "/-";
  return Format(fmt, *f.logged) + "/" + Format(fmt, *f.predicted) + Format(" %+.1f%%", 100 * f.relative_error) +
         (f.within ? "" : " !");
}

std::string TallyText(const MetricTally& t) {
  return Format("%s within %.0f%%: %d/%d rows (%.1f%%)", t.label, 100 * t.tolerance, t.within, t.checked, 100 * t.rate());
}

}  // namespace

std::string RenderValidationText(const LogValidation& v, double min_weights_rate, double min_kv_rate) {
  TextTable table({"row", "model", "gpu x tp/pp", "weights GiB log/kvsim", "KV GiB log/kvsim", "tokens log/kvsim",
                   "blocks log/kvsim", "note"});
  for (const ValidatedRow& row : v.rows) {
    std::string note = row.note;
    if (row.planned) note = note.substr(0, 40);
    else if (note.size() > 60) note = note.substr(0, 57) + "...";
    table.AddRow({row.row_id, row.model_id.substr(0, 36),
                  (row.gpu_model.empty() ? std::string("?") : row.gpu_model.substr(0, 22)) + " x" +
                      std::to_string(row.tensor_parallel_size) + "/" + std::to_string(row.pipeline_parallel_size),
                  Cell(row.weights_gib, "%.2f"), Cell(row.kv_cache_gib, "%.2f"), Cell(row.tokens, "%.0f"),
                  Cell(row.blocks, "%.0f"), note});
  }
  const bool pass = v.Passes(min_weights_rate, min_kv_rate);
  return table.Render() + "('!' marks a figure outside its tolerance; " + std::to_string(v.skipped) +
         " rows without a model config skipped; " + std::to_string(v.planned) + " rows planned)\n" + "summary: " +
         TallyText(v.weights) + "; " + TallyText(v.kv_cache) + "; " + TallyText(v.tokens) + "; " + TallyText(v.blocks) +
         (v.refusals.checked > 0 ? Format("; vLLM start-up refusals kvsim refuses too: %d/%d rows", v.refusals.within,
                                          v.refusals.checked)
                                   : std::string()) + " -> " + (pass ? "PASS" : "FAIL") + "\n";
}

}  // namespace kvsim
