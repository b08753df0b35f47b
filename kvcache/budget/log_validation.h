// kvsim's capacity model against what real vLLM servers printed at start-up: every log row with a
// model config is planned with the row's settings (vLLM defaults for blank cells) and compared on
// weights (2% tolerance), KV cache GiB and GPU KV cache tokens (5%), and GPU blocks (5%, not gated).
#ifndef KVSIM_KVCACHE_BUDGET_LOG_VALIDATION_H_
#define KVSIM_KVCACHE_BUDGET_LOG_VALIDATION_H_

#include <optional>
#include <string>
#include <vector>

#include "kvcache/budget/deployment.h"
#include "kvcache/budget/vllm_log_rows.h"

namespace kvsim {

// One figure of one row: what the log says and what kvsim predicts.
struct ComparedFigure {
  std::optional<double> logged;
  std::optional<double> predicted;
  bool within = false;         // |predicted − logged| / logged within the metric's tolerance
  double relative_error = 0;   // (predicted − logged) / logged
};

// A metric counted over the rows that logged it.
struct MetricTally {
  const char* label;
  double tolerance;  // relative
  int checked = 0;
  int within = 0;

  double rate() const { return checked ? static_cast<double>(within) / checked : 1.0; }
  // Compares one row's figure and counts it when the log has it.
  ComparedFigure Add(std::optional<double> logged, std::optional<double> predicted);
};

struct ValidatedRow {
  std::string row_id, model_id, gpu_model;
  int tensor_parallel_size = 1, pipeline_parallel_size = 1;
  ComparedFigure weights_gib, kv_cache_gib, tokens, blocks;
  bool planned = false;  // false: kvsim refused the row's settings (see note)
  std::string note;      // why the row could not be planned, or that it does not fit
};

struct LogValidation {
  std::vector<ValidatedRow> rows;
  int planned = 0;
  int skipped = 0;  // rows without a model config
  MetricTally weights{"weights", 0.02};
  MetricTally kv_cache{"KV cache GiB", 0.05};
  MetricTally tokens{"GPU KV cache tokens", 0.05};
  MetricTally blocks{"GPU blocks (not gated)", 0.05};
  // Rows where vLLM refused to start (negative KV cache memory): within when kvsim does not fit either.
  MetricTally refusals{"start-up refusals", 0.0};

  bool Passes(double min_weights_rate, double min_kv_rate) const {
    return weights.rate() >= min_weights_rate && kv_cache.rate() >= min_kv_rate && tokens.rate() >= min_kv_rate &&
           refusals.rate() >= min_kv_rate;
  }
};

// The deployment a log row describes (engine, version or the release current at the log's date,
// quantization, dtype, GPU and server settings, LoRA slots and the speculative proposer).
DeploymentOptions OptionsForLogRow(const VllmLogRow& row);

// Where a row's config_file cell ("configs/org__name.json") is read from: `configs_dir` / its
// file name when `configs_dir` is given; else the cell as a path relative to `logs_dir` (the CSV's
// directory) when that file exists, so a table can ship the configs its rows need beside it; else
// the preset org/name. A speculative_config's draft "model" ending in .json is looked for the
// same way (beside the CSV or in `configs_dir`), else read as the flag reads it. Rows whose settings kvsim refuses are kept with the reason as their note.
LogValidation ValidateAgainstLogs(const std::vector<VllmLogRow>& rows, const std::string& configs_dir,
                                  const std::string& data_dir, const std::string& logs_dir = "");

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_LOG_VALIDATION_H_
