// RequestTable against std::unordered_map, and its slot reuse (values keep their capacity).
#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

#include "kvcache/request_table.h"

namespace kvsim {
namespace {

TEST(RequestTableTest, InsertFindErase) {
  RequestTable<int64_t> t;
  EXPECT_EQ(t.find(1), nullptr);
  t.insert(1) = 10;
  t.insert(2) = 20;
  EXPECT_EQ(t.at(1), 10);
  EXPECT_EQ(*t.find(2), 20);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.count(3), 0u);
  t.erase(1);
  EXPECT_EQ(t.find(1), nullptr);
  EXPECT_EQ(t.at(2), 20);
  EXPECT_EQ(t.size(), 1u);
}

TEST(RequestTableTest, ErasedSlotsAreReusedWithTheirCapacity) {
  RequestTable<std::vector<int>> t;
  std::vector<int>& v = t.insert(7);
  v.assign(1000, 1);
  t.erase(7);
  std::vector<int>& w = t.insert(8);  // the slot 7 left: contents are whatever it held
  EXPECT_GE(w.capacity(), 1000u);
}

TEST(RequestTableTest, AgreesWithAReferenceMapThroughGrowthAndDeletion) {
  RequestTable<uint64_t> t;
  std::unordered_map<RequestId, uint64_t> ref;
  std::mt19937_64 rng(11);
  RequestId next = 0;
  for (int op = 0; op < 300000; ++op) {
    const int choice = static_cast<int>(rng() % 10);
    if (choice < 5 || ref.empty()) {
      const RequestId id = next++;
      const uint64_t value = rng();
      t.insert(id) = value;
      ref[id] = value;
    } else if (choice < 8) {
      auto it = ref.begin();
      std::advance(it, static_cast<long>(rng() % std::min<size_t>(ref.size(), 16)));
      t.erase(it->first);
      ref.erase(it);
    } else {
      const RequestId id = rng() % (next + 1);
      auto it = ref.find(id);
      const uint64_t* v = t.find(id);
      ASSERT_EQ(v == nullptr, it == ref.end()) << "id " << id;
      if (v) {
        ASSERT_EQ(*v, it->second);
      }
    }
    ASSERT_EQ(t.size(), ref.size());
  }
  size_t visited = 0;
  t.ForEach([&](RequestId id, const uint64_t& v) {
    ++visited;
    EXPECT_EQ(ref.at(id), v);
  });
  EXPECT_EQ(visited, ref.size());
}

}  // namespace
}  // namespace kvsim
