// The running requests of a replay engine in admission order (vLLM's running queue): each
// admission takes a new, larger order, so admitting appends; finishing or preempting a request
// leaves a hole that iteration skips and that is swept out once holes outnumber the living.
// Replaces a std::map: no node allocation per admission, iteration over contiguous memory.
#ifndef KVSIM_SIM_RUNNING_SET_H_
#define KVSIM_SIM_RUNNING_SET_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "kvcache/base/check.h"

namespace kvsim {

template <typename Slot>
class RunningSet {
 public:
  struct Entry {
    int64_t order;
    Slot slot;  // kHole: finished or preempted
  };
  static constexpr Slot kHole = static_cast<Slot>(-1);

  class Iterator {
   public:
    Iterator(const Entry* at, const Entry* end) : at_(at), end_(end) { Skip(); }
    std::pair<int64_t, Slot> operator*() const { return {at_->order, at_->slot}; }
    Iterator& operator++() {
      ++at_;
      Skip();
      return *this;
    }
    bool operator!=(const Iterator& o) const { return at_ != o.at_; }

   private:
    void Skip() {
      while (at_ != end_ && at_->slot == kHole) ++at_;
    }
    const Entry* at_;
    const Entry* end_;
  };

  // REQUIRES: order above every order added before.
  void Append(int64_t order, Slot slot) {
    KVSIM_DCHECK(entries_.empty() || entries_.back().order < order);
    entries_.push_back({order, slot});
    ++size_;
  }
  // REQUIRES: `order` is running.
  void Erase(int64_t order) {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), order,
                               [](const Entry& e, int64_t o) { return e.order < o; });
    KVSIM_DCHECK(it != entries_.end() && it->order == order && it->slot != kHole);
    it->slot = kHole;
    --size_;
    while (!entries_.empty() && entries_.back().slot == kHole) entries_.pop_back();  // Last() stays O(1)
    if (entries_.size() > 2 * size_ + 16)
      entries_.erase(std::remove_if(entries_.begin(), entries_.end(), [](const Entry& e) { return e.slot == kHole; }),
                     entries_.end());
  }
  // The newest admission (vLLM preempts from the back). REQUIRES: !empty().
  Slot Last() const { return entries_.back().slot; }
  // The order of the newest running request whose slot satisfies `pred`, or -1 when none does.
  // Scans from the back: cheap when such a request is among the newest admissions.
  template <typename Pred>
  int64_t NewestOrderWhere(Pred pred) const {
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
      if (it->slot != kHole && pred(it->slot)) return it->order;
    return -1;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Iterator begin() const { return Iterator(entries_.data(), entries_.data() + entries_.size()); }
  Iterator end() const { return Iterator(entries_.data() + entries_.size(), entries_.data() + entries_.size()); }

 private:
  std::vector<Entry> entries_;  // by order; holes keep theirs, so the search still works
  size_t size_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_RUNNING_SET_H_
