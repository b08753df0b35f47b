#include "workloads/bench_datasets.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "workloads/prefix_overlay.h"
#include "workloads/id_mix.h"

namespace kvsim {
namespace {

// One prompt of a dataset: its group's shared prefix, then text of its own.
struct Prompt {
  int64_t group = 0;
  uint64_t key = 0;  // the same key, the same text (a prompt sent again)
  int64_t prefix_tokens = 0, own_tokens = 0, output_tokens = 0;
};

struct Defaults {
  int64_t random_input = 1024, random_output = 128, random_prefix = 0;
  double random_range_ratio = 0.0;
  int64_t repetition_prefix = 256, repetition_suffix = 256, repetition_prefixes = 10, repetition_output = 128;
};

void CheckTokens(const std::optional<int64_t>& v, const char* flag, int64_t min) {
  if (v && (*v < min || *v > kMaxRequestTokens))
    throw Error(std::string(flag) + ": " + std::to_string(*v) + " is outside [" + std::to_string(min) + ", " +
                std::to_string(kMaxRequestTokens) + "]");
}

class DatasetSource final : public RequestSource {
 public:
  DatasetSource(const BenchDatasetOptions& o, int64_t count, ArrivalGenerator arrivals, uint64_t seed)
      : o_(o), count_(count), arrivals_(std::move(arrivals)), rng_(seed ^ 0xda7a5e7ULL) {
    const Defaults d;
    if (*o.name == BenchDataset::kRandom) {
      const int64_t in = o.random_input_len.value_or(d.random_input), out = o.random_output_len.value_or(d.random_output);
      const double ratio = o.random_range_ratio.value_or(d.random_range_ratio);
      prefix_ = o.random_prefix_len.value_or(d.random_prefix);
      // vLLM: floor for the low bound, ceil for the high one, an output of at least one token.
      in_lo_ = static_cast<int64_t>(std::floor(static_cast<double>(in) * (1 - ratio)));
      in_hi_ = static_cast<int64_t>(std::ceil(static_cast<double>(in) * (1 + ratio)));
      out_lo_ = std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(out) * (1 - ratio))));
      out_hi_ = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(out) * (1 + ratio))));
      if (prefix_ + in_lo_ < 1)
        throw Error("--random-input-len: with --random-range-ratio " + Format("%g", ratio) +
                    " and no --random-prefix-len a prompt could have no tokens");
      description_ = Format("vllm bench serve random dataset: input %lld-%lld, output %lld-%lld, shared prefix %lld tokens",
                            static_cast<long long>(in_lo_), static_cast<long long>(in_hi_), static_cast<long long>(out_lo_),
                            static_cast<long long>(out_hi_), static_cast<long long>(prefix_));
      return;
    }
    int64_t groups = 0, per_group = 0, prefix = 0, own = 0, output = 0;
    if (*o.name == BenchDataset::kPrefixRepetition) {
      groups = o.prefix_repetition_num_prefixes.value_or(d.repetition_prefixes);
      prefix = o.prefix_repetition_prefix_len.value_or(d.repetition_prefix);
      own = o.prefix_repetition_suffix_len.value_or(d.repetition_suffix);
      output = o.prefix_repetition_output_len.value_or(d.repetition_output);
      per_group = count / groups;
      if (per_group == 0)
        throw Error("--prefix-repetition-num-prefixes: " + std::to_string(groups) + " prefixes need at least as many requests "
                    "(--synthetic " + std::to_string(count) + ")");
      description_ = Format("vllm bench serve prefix_repetition dataset: %lld prefixes of %lld tokens, suffix %lld, output %lld",
                            static_cast<long long>(groups), static_cast<long long>(prefix), static_cast<long long>(own),
                            static_cast<long long>(output));
    } else {
      groups = *o.num_groups;
      per_group = *o.num_prompts_per_group;
      prefix = *o.system_prompt_len;
      own = *o.question_len;
      output = *o.output_len;
      description_ = Format("inference-perf shared_prefix dataset: %lld groups x %lld prompts, system prompt %lld, "
                            "question %lld, output %lld", static_cast<long long>(groups), static_cast<long long>(per_group),
                            static_cast<long long>(prefix), static_cast<long long>(own), static_cast<long long>(output));
    }
    if (groups > (int64_t{1} << 24) / std::max<int64_t>(per_group, 1))
      throw Error("--synthetic: a dataset of more than 2^24 distinct prompts is not generated here");
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t p = 0; p < per_group; ++p)
        pool_.push_back({g, static_cast<uint64_t>(pool_.size()), prefix, own, output});
    std::shuffle(pool_.begin(), pool_.end(), rng_);
    // vLLM tops a short list up with prompts drawn again at random; inference-perf sends its
    // prompts round and round.
    oversample_ = *o.name == BenchDataset::kPrefixRepetition;
  }

  std::optional<TraceRequest> Next() override {
    if (next_ >= count_) return std::nullopt;
    Prompt p;
    const size_t i = static_cast<size_t>(next_);
    if (pool_.empty()) {
      p.key = i;
      p.prefix_tokens = prefix_;
      p.own_tokens = std::uniform_int_distribution<int64_t>(in_lo_, in_hi_)(rng_);
      p.output_tokens = std::uniform_int_distribution<int64_t>(out_lo_, out_hi_)(rng_);
    } else if (i < pool_.size()) {
      p = pool_[i];
    } else {
      p = oversample_ ? pool_[std::uniform_int_distribution<size_t>(0, pool_.size() - 1)(rng_)] : pool_[i % pool_.size()];
    }
    TraceRequest r;
    r.id = static_cast<uint64_t>(next_++);
    const int64_t at = arrivals_.NextArrivalNs();
    if (first_ < 0) first_ = at;
    r.arrival_ns = at - first_;
    r.prompt_tokens = p.prefix_tokens + p.own_tokens;
    r.output_tokens = p.output_tokens;
    if (BenchDatasetHasBlockIds(o_)) {
      r.block_id_tokens = kOverlayBlockTokens;
      const int64_t blocks = (r.prompt_tokens + kOverlayBlockTokens - 1) / kOverlayBlockTokens;
      const int64_t shared = p.prefix_tokens / kOverlayBlockTokens;  // full blocks of the prefix only
      r.block_ids.reserve(static_cast<size_t>(blocks));
      for (int64_t j = 0; j < blocks; ++j)
        r.block_ids.push_back(j < shared ? MixIds(0xb10cULL + static_cast<uint64_t>(p.group), static_cast<uint64_t>(j))
                                         : MixIds(0x0217ULL + p.key, static_cast<uint64_t>(j)));
    }
    return r;
  }
  double progress() const override { return static_cast<double>(next_) / static_cast<double>(count_); }
  std::string Describe() const override { return description_ + ", " + std::to_string(count_) + " requests"; }

 private:
  BenchDatasetOptions o_;
  int64_t count_;
  int64_t next_ = 0, first_ = -1;
  ArrivalGenerator arrivals_;
  std::mt19937_64 rng_;
  int64_t prefix_ = 0, in_lo_ = 0, in_hi_ = 0, out_lo_ = 0, out_hi_ = 0;  // random
  std::vector<Prompt> pool_;                                                // the others
  bool oversample_ = false;
  std::string description_;
};

}  // namespace

bool BenchDatasetHasBlockIds(const BenchDatasetOptions& o) {
  if (!o.name) return false;
  if (*o.name == BenchDataset::kRandom) return o.random_prefix_len.value_or(0) > 0;
  return true;
}

void ValidateBenchDataset(const BenchDatasetOptions& o) {
  const bool random = o.name == BenchDataset::kRandom, repetition = o.name == BenchDataset::kPrefixRepetition,
             shared = o.name == BenchDataset::kSharedPrefix;
  auto only = [](bool allowed, bool given, const char* flag, const char* dataset) {
    if (given && !allowed) throw Error(std::string(flag) + ": sets the " + dataset + " dataset; give --dataset-name " + dataset);
  };
  only(random, o.random_input_len.has_value(), "--random-input-len", "random");
  only(random, o.random_output_len.has_value(), "--random-output-len", "random");
  only(random, o.random_prefix_len.has_value(), "--random-prefix-len", "random");
  only(random, o.random_range_ratio.has_value(), "--random-range-ratio", "random");
  only(repetition, o.prefix_repetition_prefix_len.has_value(), "--prefix-repetition-prefix-len", "prefix_repetition");
  only(repetition, o.prefix_repetition_suffix_len.has_value(), "--prefix-repetition-suffix-len", "prefix_repetition");
  only(repetition, o.prefix_repetition_num_prefixes.has_value(), "--prefix-repetition-num-prefixes", "prefix_repetition");
  only(repetition, o.prefix_repetition_output_len.has_value(), "--prefix-repetition-output-len", "prefix_repetition");
  only(shared, o.num_groups.has_value(), "--num-groups", "shared_prefix");
  only(shared, o.num_prompts_per_group.has_value(), "--num-prompts-per-group", "shared_prefix");
  only(shared, o.system_prompt_len.has_value(), "--system-prompt-len", "shared_prefix");
  only(shared, o.question_len.has_value(), "--question-len", "shared_prefix");
  only(shared, o.output_len.has_value(), "--shared-prefix-output-len", "shared_prefix");
  CheckTokens(o.random_input_len, "--random-input-len", 0);
  CheckTokens(o.random_output_len, "--random-output-len", 1);
  CheckTokens(o.random_prefix_len, "--random-prefix-len", 0);
  if (o.random_range_ratio && !(*o.random_range_ratio >= 0 && *o.random_range_ratio < 1))
    throw Error("--random-range-ratio: " + Format("%g", *o.random_range_ratio) + " is outside [0, 1) (vLLM refuses it too)");
  CheckTokens(o.prefix_repetition_prefix_len, "--prefix-repetition-prefix-len", 0);
  CheckTokens(o.prefix_repetition_suffix_len, "--prefix-repetition-suffix-len", 0);
  CheckTokens(o.prefix_repetition_num_prefixes, "--prefix-repetition-num-prefixes", 1);
  CheckTokens(o.prefix_repetition_output_len, "--prefix-repetition-output-len", 1);
  if (repetition && o.prefix_repetition_prefix_len.value_or(256) + o.prefix_repetition_suffix_len.value_or(256) < 1)
    throw Error("--prefix-repetition-prefix-len/--prefix-repetition-suffix-len: a prompt needs at least one token");
  if (shared) {
    for (const auto& [v, flag] : {std::pair{o.num_groups, "--num-groups"}, std::pair{o.num_prompts_per_group, "--num-prompts-per-group"},
                                  std::pair{o.system_prompt_len, "--system-prompt-len"}, std::pair{o.question_len, "--question-len"},
                                  std::pair{o.output_len, "--shared-prefix-output-len"}})
      if (!v) throw Error(std::string(flag) + ": the shared_prefix dataset needs it (inference-perf has no default)");
    CheckTokens(o.num_groups, "--num-groups", 1);
    CheckTokens(o.num_prompts_per_group, "--num-prompts-per-group", 1);
    CheckTokens(o.system_prompt_len, "--system-prompt-len", 0);
    CheckTokens(o.question_len, "--question-len", 0);
    CheckTokens(o.output_len, "--shared-prefix-output-len", 1);
    if (*o.system_prompt_len + *o.question_len < 1)
      throw Error("--system-prompt-len/--question-len: a prompt needs at least one token");
  }
}

std::unique_ptr<RequestSource> MakeBenchDatasetSource(const BenchDatasetOptions& options, int64_t count,
                                                      ArrivalGenerator arrivals, uint64_t seed) {
  ValidateBenchDataset(options);
  return std::make_unique<DatasetSource>(options, count, std::move(arrivals), seed);
}

}  // namespace kvsim
