// `kvsim validate` output: one row per log (logged/kvsim and the relative error of each figure,
// '!' outside its tolerance) and the summary line with the pass rates.
#ifndef KVSIM_REPORTS_VALIDATION_REPORT_H_
#define KVSIM_REPORTS_VALIDATION_REPORT_H_

#include <string>

#include "kvcache/budget/log_validation.h"

namespace kvsim {

std::string RenderValidationText(const LogValidation& validation, double min_weights_rate, double min_kv_rate);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_VALIDATION_REPORT_H_
