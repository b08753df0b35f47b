// What binds a replay (what a sweep names when a point misses its SLOs): the prompt-length limit
// (max-model-len rejections), the offered load (not served, sim/stats/load_check.h), memory (the KV
// pool full, preemptions) or compute (step time), each with its figures.
#ifndef KVSIM_SIM_BINDING_H_
#define KVSIM_SIM_BINDING_H_

#include <string>

#include "sim/stats/replay_summary.h"

namespace kvsim {

// The reject reason the engine gives prompts of max_model_len tokens or more.
inline constexpr const char* kPromptTooLongReason = "prompt_tokens >= max_model_len";

// Every limit that applies, most basic first, joined by "; ". Never empty.
std::string WhatBinds(const ReplaySummary& summary);

// The served-load violation ("offered load not served: ..."), or "" when the load was served.
std::string LoadCheckViolation(const LoadCheck& check);

}  // namespace kvsim

#endif  // KVSIM_SIM_BINDING_H_
