// LoRA adapters in the replay, as vLLM serves them with --enable-lora (the v0.11 line; the scheduler's
// rule read again on main at 00024d31, the worker's caches at 0030b9ff):
//  - v1/core/sched/scheduler.py schedule(): the adapters of the running requests scheduled this
//    step form scheduled_loras; a waiting request whose adapter is not among them when they already
//    number max_loras is set aside (skipped_waiting_requests) and the pass goes on to the next
//    waiting request; the skipped ones go back to the head of the queue in their order. Requests on
//    the base model are never held back. (The engine counts the adapters of all running requests:
//    the waiting pass runs only when every running request was scheduled, so the sets agree. V0's
//    core/scheduler.py _schedule_prefills counts the running requests' adapters and sets aside the
//    same way, so --scheduler vllm-v0 shares the rule.)
//  - lora/worker_manager.py LRUCacheWorkerLoRAManager._apply_adapters / add_adapter, called from
//    the model runner's set_active_loras before every forward: each adapter of the batch not yet
//    registered is read from its checkpoint into host memory (_load_adapter; the registered
//    adapters are an LRU of max_cpu_loras), then activated into one of max_loras GPU slots
//    (LRUCacheLoRAModelManager.activate_adapter evicts the least recently used slot and copies A
//    and B host -> device). Both happen synchronously, so the step that first runs a request on an
//    adapter that is not resident is longer by the load. Adapters already resident are touched
//    first, so a load never evicts an adapter of the same batch.
// What the loads cost is set by the run (sim/run/): bytes of one adapter over the host link, and
// the checkpoint's bytes over the disk's read bandwidth.
#ifndef KVSIM_SIM_ENGINE_LORA_ADAPTERS_H_
#define KVSIM_SIM_ENGINE_LORA_ADAPTERS_H_

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "sim/timing/lora_host.h"
#include "sim/timing/lora_kernels.h"

namespace kvsim {

struct LoraReplayOptions {
  int64_t max_loras = 0;       // GPU slots; 0: LoRA off (no adapter is modelled, no cost)
  int64_t max_cpu_loras = 0;   // host LRU of registered adapters (>= max_loras)
  int64_t gpu_load_ns = 0;     // one adapter's A and B host -> device
  int64_t disk_load_ns = 0;    // one adapter's checkpoint disk -> host
  const LoraKernelTimer* kernels = nullptr;  // the punica kernels' time per step; null: not timed
  const LoraHostTimer* host = nullptr;       // the host's metadata and launches; null: not timed
  bool enabled() const { return max_loras > 0; }
};

struct LoraCounters {
  int64_t gpu_loads = 0;         // activations into a GPU slot (GPU misses)
  int64_t disk_loads = 0;        // of them, adapters read from disk first (host misses)
  int64_t load_ns = 0;           // time the loads added to steps
  int64_t kernel_ns = 0;         // time the LoRA kernels added to steps
  int64_t host_ns = 0;           // time LoRA's host work (metadata, launches from the CPU) added besides
  int64_t lora_steps = 0;        // steps that ran any request on an adapter
  int64_t waited_requests = 0;   // requests set aside at least once for want of an adapter slot
  int64_t max_step_adapters = 0; // the most distinct adapters in one step
  int64_t requests = 0;          // requests that arrived on an adapter
};

// The GPU slots and the host cache, each least recently used first out.
class AdapterSlots {
 public:
  AdapterSlots(int64_t gpu_slots, int64_t host_slots) : gpu_(gpu_slots), host_(host_slots) {}
  struct Loads {
    int64_t gpu = 0, disk = 0;
  };
  // Makes every adapter of `batch` (distinct, nonzero, at most the GPU slots) resident for a step.
  Loads Activate(const std::vector<uint32_t>& batch);
  bool OnGpu(uint32_t adapter) const { return gpu_.Has(adapter); }
  bool OnHost(uint32_t adapter) const { return host_.Has(adapter); }
  int64_t gpu_capacity() const { return gpu_.capacity(); }

 private:
  class Lru {
   public:
    explicit Lru(int64_t capacity) : capacity_(capacity) {}
    bool Has(uint32_t a) const { return where_.count(a) != 0; }
    int64_t capacity() const { return capacity_; }
    void Touch(uint32_t a);
    // Inserts `a` as the most recent; returns the evicted adapter, or 0.
    uint32_t Insert(uint32_t a);
    void Erase(uint32_t a);

   private:
    int64_t capacity_;
    std::list<uint32_t> order_;  // most recent at the front
    std::unordered_map<uint32_t, std::list<uint32_t>::iterator> where_;
  };
  Lru gpu_, host_;
  // speed: the last batch, and whether activating it loaded nothing. Activating a batch whose
  // adapters are all resident only touches them in its order, which leaves the caches as they were
  // when the same batch did the same just before: such a step (most decode steps) changes nothing.
  std::vector<uint32_t> last_batch_;
  bool last_loaded_nothing_ = false;
};

// The adapters of the lazy decoders (replay_engine.h): how many lazy requests run on each and the
// earliest running order among them, kept as requests become lazy and explicit.
// speed: a step's batch is then built from at most max_loras entries instead of a walk over the
// running set (the batch touches the adapters in the order of each one's earliest request).
class LazyAdapterSet {
 public:
  void Join(uint32_t adapter, int64_t order);
  // When the earliest request on an adapter leaves, the adapter's earliest order is stale until
  // SetEarliest gives it again (the engine finds it in its running set).
  void Leave(uint32_t adapter, int64_t order);
  void SetEarliest(uint32_t adapter, int64_t order);
  bool Stale(uint32_t adapter) const { return entries_[adapter].stale; }
  int64_t Earliest(uint32_t adapter) const { return entries_[adapter].earliest; }
  const std::vector<uint32_t>& adapters() const { return adapters_; }  // those with lazy requests
  int64_t rows() const { return rows_; }  // lazy requests on any adapter

 private:
  struct Entry {
    int64_t count = 0;
    int64_t earliest = 0;
    bool stale = false;
  };
  std::vector<Entry> entries_;  // by adapter id
  std::vector<uint32_t> adapters_;
  int64_t rows_ = 0;
};

// speed: the punica kernels' time of a step depends only on its LoraStepWork, which repeats from
// step to step (the same batch decoding); the timer's figures for the last few shapes are kept.
class LoraKernelMemo {
 public:
  struct Time {
    int64_t ns = 0;
    double seconds = 0;
  };
  const Time& Of(const LoraKernelTimer& timer, const LoraStepWork& w);

 private:
  struct Entry {
    LoraStepWork work;
    Time time;
    bool used = false;
  };
  static constexpr size_t kEntries = 256;
  std::vector<Entry> entries_ = std::vector<Entry>(kEntries);
};

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_LORA_ADAPTERS_H_
