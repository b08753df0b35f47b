// BlockKeyMap against std::unordered_map: the open-addressing map with backward-shift deletion
// must agree with a reference on every lookup through growth, collisions and erasures.
#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

#include "kvcache/block_key_map.h"

namespace kvsim {
namespace {

TEST(BlockKeyMapTest, KeepsTheFirstBlockForAKey) {
  BlockKeyMap m;
  EXPECT_EQ(m.Find(42), -1);
  EXPECT_TRUE(m.Insert(42, 7));
  EXPECT_FALSE(m.Insert(42, 9));  // vLLM keeps the first block registered under a hash
  EXPECT_EQ(m.Find(42), 7);
  EXPECT_EQ(m.size(), 1u);
  m.Erase(42);
  EXPECT_EQ(m.Find(42), -1);
  EXPECT_EQ(m.size(), 0u);
  m.Erase(42);  // erasing an absent key is a no-op
  EXPECT_EQ(m.size(), 0u);
}

TEST(BlockKeyMapTest, CollidingKeysSurviveErasuresInTheirProbeRun) {
  // Keys whose home slot is the same (low bits equal, high bits folded in equally) form one run;
  // erasing from its middle must shift the rest back, not cut the run.
  BlockKeyMap m;
  const BlockKey base = 5;
  std::vector<BlockKey> keys;
  for (BlockKey i = 0; i < 8; ++i) keys.push_back(base + (i << 40));
  for (size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(m.Insert(keys[i], static_cast<int32_t>(i)));
  m.Erase(keys[2]);
  m.Erase(keys[5]);
  for (size_t i = 0; i < keys.size(); ++i)
    EXPECT_EQ(m.Find(keys[i]), (i == 2 || i == 5) ? -1 : static_cast<int32_t>(i)) << i;
}

TEST(BlockKeyMapTest, AgreesWithAReferenceMapOverRandomOperations) {
  BlockKeyMap m;
  std::unordered_map<BlockKey, int32_t> ref;
  std::mt19937_64 rng(7);
  for (int op = 0; op < 200000; ++op) {
    const BlockKey key = rng() % 5000 * 0x9e3779b97f4a7c15ULL;  // a small key space: many repeats
    const int choice = static_cast<int>(rng() % 3);
    if (choice == 0) {
      const int32_t block = static_cast<int32_t>(rng() % 100000);
      EXPECT_EQ(m.Insert(key, block), ref.emplace(key, block).second);
    } else if (choice == 1) {
      m.Erase(key);
      ref.erase(key);
    } else {
      auto it = ref.find(key);
      ASSERT_EQ(m.Find(key), it == ref.end() ? -1 : it->second) << "op " << op;
    }
    ASSERT_EQ(m.size(), ref.size());
  }
  size_t visited = 0;
  m.ForEach([&](BlockKey k, int32_t b) {
    ++visited;
    EXPECT_EQ(ref.at(k), b);
  });
  EXPECT_EQ(visited, ref.size());
}

}  // namespace
}  // namespace kvsim
