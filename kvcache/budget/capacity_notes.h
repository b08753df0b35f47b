// What a capacity plan says about the settings it was given: the ones that change its reading
// (LoRA host cache, state pages, hybrid padding, chunked prefill off) and the ones another setting
// makes moot, so that no setting is taken in silence.
#ifndef KVSIM_KVCACHE_BUDGET_CAPACITY_NOTES_H_
#define KVSIM_KVCACHE_BUDGET_CAPACITY_NOTES_H_

#include "kvcache/budget/capacity_result.h"

namespace kvsim {

// LoRA slots and rank into `r`, and the notes on adapters and drafts.
void NoteSpeculativeAndLora(const DeploymentConfig& c, CapacityResult& r);

// Notes on the layout and the engine settings of a planned `r` (its stages filled).
void NoteSettings(const DeploymentConfig& c, CapacityResult& r);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_CAPACITY_NOTES_H_
