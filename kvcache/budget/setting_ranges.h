// The ranges a deployment's settings must lie in before anything is planned: parallel sizes the model
// can be split by, a memory fraction, lengths and counts of at least one, sizes a GPU can have.
#ifndef KVSIM_KVCACHE_BUDGET_SETTING_RANGES_H_
#define KVSIM_KVCACHE_BUDGET_SETTING_RANGES_H_

#include "kvcache/budget/deployment_settings.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

// Throws kvsim::Error naming the flag and its range.
void CheckSettingRanges(const ModelSpec& spec, const DeploymentConfig& c);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_SETTING_RANGES_H_
