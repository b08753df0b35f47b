#include "sim/engine/lora_adapters.h"

#include <algorithm>

#include "kvcache/base/check.h"

namespace kvsim {

void AdapterSlots::Lru::Touch(uint32_t a) {
  auto it = where_.find(a);
  order_.splice(order_.begin(), order_, it->second);
}

uint32_t AdapterSlots::Lru::Insert(uint32_t a) {
  uint32_t evicted = 0;
  if (static_cast<int64_t>(order_.size()) >= capacity_) {
    evicted = order_.back();
    where_.erase(evicted);
    order_.pop_back();
  }
  order_.push_front(a);
  where_[a] = order_.begin();
  return evicted;
}

void AdapterSlots::Lru::Erase(uint32_t a) {
  auto it = where_.find(a);
  if (it == where_.end()) return;
  order_.erase(it->second);
  where_.erase(it);
}

AdapterSlots::Loads AdapterSlots::Activate(const std::vector<uint32_t>& batch) {
  Loads loads;
  KVSIM_DCHECK(static_cast<int64_t>(batch.size()) <= gpu_capacity());
  if (last_loaded_nothing_ && batch == last_batch_) return loads;
  // Resident adapters first: the batch's own entries are then the most recent and never evicted.
  for (uint32_t a : batch) {
    if (host_.Has(a)) host_.Touch(a);
    if (gpu_.Has(a)) gpu_.Touch(a);
  }
  for (uint32_t a : batch) {
    if (gpu_.Has(a)) continue;
    if (!host_.Has(a)) {
      ++loads.disk;
      // An adapter dropped from the host cache is removed from its GPU slot too (remove_adapter).
      if (const uint32_t dropped = host_.Insert(a)) gpu_.Erase(dropped);
    }
    ++loads.gpu;
    gpu_.Insert(a);
  }
  last_batch_ = batch;
  last_loaded_nothing_ = loads.gpu == 0;
  return loads;
}

void LazyAdapterSet::Join(uint32_t adapter, int64_t order) {
  if (adapter >= entries_.size()) entries_.resize(static_cast<size_t>(adapter) + 1);
  Entry& e = entries_[adapter];
  ++rows_;
  if (e.count++ == 0) {
    adapters_.push_back(adapter);
    e.earliest = order;
    e.stale = false;
  } else if (!e.stale && order < e.earliest) {
    e.earliest = order;
  }
}

void LazyAdapterSet::Leave(uint32_t adapter, int64_t order) {
  KVSIM_DCHECK(adapter < entries_.size() && entries_[adapter].count > 0);
  Entry& e = entries_[adapter];
  --rows_;
  if (--e.count == 0) {
    adapters_.erase(std::find(adapters_.begin(), adapters_.end(), adapter));
    e.stale = false;
  } else if (order == e.earliest) {
    e.stale = true;
  }
}

void LazyAdapterSet::SetEarliest(uint32_t adapter, int64_t order) {
  Entry& e = entries_[adapter];
  KVSIM_DCHECK(e.count > 0);
  e.earliest = order;
  e.stale = false;
}

const LoraKernelMemo::Time& LoraKernelMemo::Of(const LoraKernelTimer& timer, const LoraStepWork& w) {
  uint64_t h = static_cast<uint64_t>(w.lora_tokens) * 0x9e3779b97f4a7c15ULL;
  h ^= static_cast<uint64_t>(w.lora_rows) + 0x7f4a7c159e3779b9ULL + (h << 6) + (h >> 2);
  h ^= static_cast<uint64_t>(w.batch_tokens) + 0x7f4a7c159e3779b9ULL + (h << 6) + (h >> 2);
  h ^= static_cast<uint64_t>(w.adapters) + 0x7f4a7c159e3779b9ULL + (h << 6) + (h >> 2);
  Entry& e = entries_[(h * 0x9e3779b97f4a7c15ULL) >> 56];
  if (!e.used || e.work.lora_tokens != w.lora_tokens || e.work.lora_rows != w.lora_rows ||
      e.work.batch_tokens != w.batch_tokens || e.work.adapters != w.adapters) {
    const double seconds = timer.Seconds(w);
    e = {w, {LoraKernelTimer::NsOf(seconds), seconds}, true};
  }
  return e.time;
}

}  // namespace kvsim
