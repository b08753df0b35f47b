// What a ReplayEngine is told (EngineOptions) and what it counts (EngineCounters).
#ifndef KVSIM_SIM_ENGINE_ENGINE_OPTIONS_H_
#define KVSIM_SIM_ENGINE_ENGINE_OPTIONS_H_

#include <cstddef>
#include <cstdint>

#include "sim/engine/engine_kinds.h"
#include "sim/engine/lora_adapters.h"
#include "sim/engine/speculation.h"

namespace kvsim {

struct EngineOptions {
  int64_t max_num_seqs = 256;
  int64_t max_num_batched_tokens = 8192;
  int64_t max_model_len = 8192;
  int64_t block_size = 16;          // for prefix keys
  bool prefix_caching = false;      // compute prefix keys from the trace's block ids
  Stepping stepping = Stepping::kEvent;
  SchedulerKind scheduler = SchedulerKind::kVllmV1;  // v0 always steps token by token
  // Speculative decoding (speculation.h). Its random acceptance has no closed form over many
  // steps, so every request is visited every step (no lazy decode, no quiet runs); decode-only
  // steps skip the scheduler's passes (explicit decode runs, replay_engine_decode_runs.cpp).
  SpeculationOptions speculation;
  // vLLM v1's async scheduling (vllm/v1/engine/core.py step_with_batch_queue, batch queue of 2; on by
  // default since v0.14 with the mp/uni executors, vllm/config/vllm.py): the scheduler pass for step
  // k + 1 runs while step k executes, so a request that arrives during step k is first scheduled in
  // step k + 2. The pass for the first step after an idle engine sees everything that arrived.
  bool async_scheduling = false;
  // SGLang's --scheduler-recv-interval (recv_polling.h): arrivals reach the scheduler only at the
  // iterations its SchedulerRecvSkipper lets receive. 1: every step, as vLLM.
  int64_t scheduler_recv_interval = 1;
  // An engine step that runs no forward (the host's scheduling, a connector-only execute_model and
  // the output handling): what an idle engine spins on while a KV tier load is in flight. vLLM's
  // worker reports a finished load only from a step's get_finished, so the load is seen at the end
  // of the step during which it ended (offload_tiers.h). 0: the load is seen the moment it ends.
  int64_t idle_step_ns = 0;
  // LoRA adapters (lora_adapters.h): at most max_loras distinct adapters run in a step, a miss loads
  // the adapter before the step's forward, and the LoRA kernels lengthen steps that run adapters.
  // The kernels' time depends on which requests run, which changes only at an arrival, a finish or
  // a preemption: decoders are lazy and quiet runs time the batch's LoRA terms with each step. With
  // speculation too, every request is visited every step (explicit decode runs).
  LoraReplayOptions lora;
  // Arrivals take a full engine slot while the compact backlog is empty and fewer than this many
  // slotted requests wait; past that they wait compact until admission reaches them (the
  // ReplayEngine's waiting queue). Results do not depend on it: 0 sends every arrival to the
  // backlog, SIZE_MAX none (the tests compare the two). 64 slots are ~23 KB.
  size_t slotted_arrivals = 64;
};

struct EngineCounters {
  int64_t steps = 0;
  int64_t events = 0;       // arrivals, admissions, explicit grows, preemptions, completions
  int64_t preemptions = 0;
  int64_t draft_tokens = 0;     // speculative: draft tokens verified
  int64_t accepted_tokens = 0;  // of them accepted
  int64_t drafting_ns = 0;      // time the proposer's passes added to the steps
  int64_t verify_steps = 0;     // steps that verified drafts
  LoraCounters lora;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_ENGINE_OPTIONS_H_
