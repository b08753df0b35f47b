// RunningSet against a std::map of the same operations: iteration order, size, the newest entry,
// through holes, trailing erasures and compactions.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "sim/engine/running_set.h"

namespace kvsim {
namespace {

TEST(RunningSetTest, MatchesAnOrderedMapUnderRandomAdmissionsAndRemovals) {
  std::mt19937_64 rng(3);
  RunningSet<uint32_t> set;
  std::map<int64_t, uint32_t> reference;
  int64_t next_order = 0;
  for (int op = 0; op < 20000; ++op) {
    const bool admit = reference.empty() || rng() % 100 < 52;
    if (admit) {
      const auto slot = static_cast<uint32_t>(rng() % 1000);
      set.Append(next_order, slot);
      reference.emplace(next_order++, slot);
    } else {
      // Mostly the newest (preemption), else any (a finish).
      auto it = rng() % 4 == 0 ? std::prev(reference.end()) : std::next(reference.begin(), static_cast<long>(rng() % reference.size()));
      set.Erase(it->first);
      reference.erase(it);
    }
    ASSERT_EQ(set.size(), reference.size());
    ASSERT_EQ(set.empty(), reference.empty());
    if (!reference.empty()) {
      ASSERT_EQ(set.Last(), reference.rbegin()->second);
    }
    if (op % 97 == 0) {
      std::vector<std::pair<int64_t, uint32_t>> got, want(reference.begin(), reference.end());
      for (const auto [order, slot] : set) got.emplace_back(order, slot);
      ASSERT_EQ(got, want) << "op " << op;
    }
  }
}

}  // namespace
}  // namespace kvsim
