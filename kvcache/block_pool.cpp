#include "kvcache/block_pool.h"

#include <string>
#include <unordered_set>
#include <utility>

#include "kvcache/base/check.h"

namespace kvsim {

BlockPool::BlockPool(int64_t num_blocks, FreeBlockOrder order)
    : lru_(order == FreeBlockOrder::kLru),
      blocks_(static_cast<size_t>(num_blocks), Block{kNoBlock, kNoBlock, 0, 0, !lru_, false}),
      index_of_(lru_ ? static_cast<size_t>(num_blocks) : 0) {
  KVSIM_DCHECK(num_blocks >= 2);
  // Initially ordered by block id, like vLLM's FreeKVCacheBlockQueue (block 1 handed out first).
  if (lru_) {
    for (BlockId b = 1; b < static_cast<BlockId>(num_blocks); ++b) PushBack(b);
    return;
  }
  // speed: the stack's bottom, blocks fresh_.. in that order from the top, is implicit (a replay
  // touches only the blocks its peak needs; pushing every id cost a pass over the pool per run).
  blocks_[kNullBlock].queued = false;
  stack_.reserve(static_cast<size_t>(num_blocks));
  num_queued_ = num_blocks - 1;
}

BlockId BlockPool::PopFrontLifo() {
  KVSIM_DCHECK(num_queued_ > 0);
  BlockId b;
  if (!stack_.empty()) {
    b = stack_.back();
    stack_.pop_back();
  } else {
    b = fresh_++;
  }
  blocks_[b].queued = false;
  blocks_[b].filled_slots = 0;
  --num_queued_;
  return b;
}

void BlockPool::PushBackLifo(BlockId b) {
  Block& blk = blocks_[b];
  KVSIM_DCHECK(!blk.queued && blk.ref_count == 0 && b != kNullBlock);
  blk.queued = true;
  stack_.push_back(b);
  ++num_queued_;
}

void BlockPool::UseKeyGroup(int64_t group) const {
  KVSIM_DCHECK(group >= 1);
  if (group == group_) return;
  if (run_map_.size() == 0) return Reindex(group);  // nothing indexed: take the declared runs
  if (group % group_ == 0) return;                 // runs of group_ are sub-runs of the declared ones
  Reindex(1);
}

void BlockPool::Reindex(int64_t group) const {
  std::vector<BlockId> keyed;
  for (BlockId b : run_blocks_)
    if (b != kNoBlock) keyed.push_back(b);
  KVSIM_DCHECK(keyed.empty() || group == 1);
  runs_.clear();
  run_blocks_.clear();
  free_runs_.clear();
  run_map_ = BlockKeyMap();
  group_ = group;
  shift_ = (group & (group - 1)) == 0 ? __builtin_ctzll(static_cast<unsigned long long>(group)) : -1;
  // Every key leads its own run of one: any keys satisfy that.
  for (BlockId b : keyed) {
    const int32_t run = NewRun(index_of_[b].key);
    run_blocks_[static_cast<size_t>(run)] = b;
    runs_[static_cast<size_t>(run)].live = 1;
    index_of_[b].slot = run;
  }
}

int32_t BlockPool::NewRun(BlockKey leader) const {
  int32_t run;
  if (!free_runs_.empty()) {
    run = free_runs_.back();
    free_runs_.pop_back();
  } else {
    run = static_cast<int32_t>(runs_.size());
    runs_.emplace_back();
    run_blocks_.resize(run_blocks_.size() + static_cast<size_t>(group_), kNoBlock);
  }
  runs_[static_cast<size_t>(run)] = Run{leader, 0};
  run_map_.Insert(leader, run);
  return run;
}

void BlockPool::AssignKeys(const BlockId* blocks, const BlockKey* keys, int64_t n, BlockKey leader, int64_t pos) {
  KVSIM_DCHECK(lru_ && pos >= 0 && pos + n <= group_);
  int32_t run = FindRun(leader);
  for (int64_t i = 0; i < n; ++i) {
    const BlockId b = blocks[i];
    Block& blk = blocks_[b];
    if (blk.keyed) continue;
    if (run < 0) run = NewRun(leader);
    const size_t slot = static_cast<size_t>(run * group_ + pos + i);
    if (run_blocks_[slot] != kNoBlock) {
      KVSIM_DCHECK(index_of_[run_blocks_[slot]].key == keys[i]);  // leader and position determine the key
      continue;
    }
    run_blocks_[slot] = b;
    ++runs_[static_cast<size_t>(run)].live;
    index_of_[b] = IndexEntry{keys[i], static_cast<int32_t>(slot)};
    blk.keyed = true;
    num_cached_ += blk.queued;
  }
}

void BlockPool::DropRun(int32_t run) {
  run_map_.Erase(runs_[static_cast<size_t>(run)].leader);
  free_runs_.push_back(run);
}

void BlockPool::CheckKeyIndex() const {
  const int64_t n = num_blocks();
  int64_t keyed = 0;
  std::unordered_set<BlockKey> keys;
  for (BlockId b = 0; b < n; ++b) {
    if (!blocks_[b].keyed) continue;
    ++keyed;
    KVSIM_CHECK(lru_ && b != kNullBlock, "a key on the null block or outside LRU mode");
    const int32_t slot = index_of_[b].slot;
    KVSIM_CHECK(slot >= 0 && static_cast<size_t>(slot) < run_blocks_.size() && run_blocks_[static_cast<size_t>(slot)] == b,
                "keyed block " + std::to_string(b) + " is not in its run");
    KVSIM_CHECK(keys.insert(index_of_[b].key).second, "two blocks carry one key");
  }
  KVSIM_CHECK(run_blocks_.size() == runs_.size() * static_cast<size_t>(group_), "run storage disagrees with the runs");
  std::vector<bool> unused(runs_.size(), false);
  for (int32_t r : free_runs_) {
    KVSIM_CHECK(r >= 0 && static_cast<size_t>(r) < runs_.size() && !unused[static_cast<size_t>(r)], "bad free run");
    unused[static_cast<size_t>(r)] = true;
  }
  int64_t held = 0, live_runs = 0;
  for (size_t r = 0; r < runs_.size(); ++r) {
    int64_t count = 0;
    for (int64_t pos = 0; pos < group_; ++pos) {
      const size_t slot = r * static_cast<size_t>(group_) + static_cast<size_t>(pos);
      const BlockId b = run_blocks_[slot];
      if (b == kNoBlock) continue;
      KVSIM_CHECK(b > 0 && b < n && blocks_[b].keyed && index_of_[b].slot == static_cast<int32_t>(slot),
                  "a run holds a block that does not name it");
      KVSIM_CHECK(pos != 0 || index_of_[b].key == runs_[r].leader, "a run's first block carries another key than its leader");
      ++count;
    }
    KVSIM_CHECK(count == runs_[r].live, "a run's count of blocks drifted");
    held += count;
    if (unused[r]) {
      KVSIM_CHECK(count == 0, "a free run holds blocks");
      continue;
    }
    KVSIM_CHECK(count > 0 && run_map_.Find(runs_[r].leader) == static_cast<int32_t>(r), "a live run is not found by its leader");
    ++live_runs;
  }
  KVSIM_CHECK(held == keyed, "the runs hold other blocks than the keyed ones");
  KVSIM_CHECK(static_cast<int64_t>(run_map_.size()) == live_runs, "the run map holds dead runs");
}

}  // namespace kvsim
