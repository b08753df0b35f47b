// How long one engine step takes, operator by operator, on one GPU of the deployment (one TP rank;
// pipeline stages run one after the other):
//
//   linear         per layer QKV, O, MLP gate/up and down (MoE: the router, the shared experts and
//                  the routed experts, moe_layer.h: one grouped GEMM over the distinct experts the
//                  tokens touch, plus the routing imbalance), timed by gemm_time.h; weights at their
//                  stored size, on the kernel lowbit_gemm.h picks for the format and GPU (weight-only
//                  formats stream fewer bytes and spend compute unpacking; W8A8 at the 8-bit peak;
//                  FP4 on Blackwell's FP4 tensor cores)
//   attention      per layer, FlashAttention over the batch: 2·(q width + v width) FLOPs per attended
//                  (query, key) pair against the 16-bit peak, and the KV cache read (context tokens ×
//                  KV bytes per token per layer; sliding-window layers read at most a window per
//                  sequence), whichever is slower, plus a kernel floor
//   ssm_state      (an attention-group operator) hybrid models' state-only layers: each scheduled
//                  request's conv and SSM / linear-attention state read and written once per layer
//                  (recurrent_state.h) at the elementwise bandwidth, a kernel floor per update kernel
//   other          embedding, fused residual-add + RMSNorm twice per layer, RoPE, the gated activation
//                  and the final norm: bytes moved at the elementwise bandwidth, a kernel floor each
//   lm_head        the vocabulary GEMM for one row per sequence and per verified draft token, then
//                  sampling over the logits
//   communication  TP: two all-reduces per layer of tokens × hidden × 2 bytes (latency + ring traffic
//                  2·(tp−1)/tp over the link); PP: one activation hand-off per stage boundary; DP with
//                  MoE: each MoE layer's dispatch and combine (moe_layer.h, expert_parallel.h)
//   overhead       the scheduler's per-step CPU work, plus CUDA-graph replay (decode-only batches up
//                  to 512 sequences run as one graph; mixed batches launch attention eagerly between
//                  graph pieces) or, under --enforce-eager, every kernel's launch when the CPU is slower
//                  than the GPU
// Efficiencies come from kernel_efficiency.h (defaults, or a calibration). The replay calls StepNs
// once per step: the token- and sequence-dependent parts are memoised, the rest is a few
// multiply-adds.
#ifndef KVSIM_SIM_STEP_MODEL_H_
#define KVSIM_SIM_STEP_MODEL_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kvcache/base/check.h"
#include "kvcache/base/wide_int.h"
#include "kvcache/budget/capacity_planner.h"
#include "sim/timing/fa2_multi_query_attention.h"
#include "sim/timing/gemm_time.h"
#include "sim/timing/kernel_efficiency.h"
#include "sim/timing/lowbit_gemm.h"
#include "sim/timing/moe_layer.h"
#include "sim/timing/operator_cost.h"
#include "sim/timing/recurrent_state.h"
#include "sim/timing/step_timer.h"

namespace kvsim {

// A GEMM a step runs once besides the model's layers, on this GPU's shard, unquantized.
struct ExtraGemm {
  std::string name;
  int64_t n = 0, k = 0;  // output and input features
};

struct StepModelOptions {
  double fixed_step_ms = 0;           // > 0: every step takes this long (no model)
  KernelEfficiency efficiency;        // defaults, or a calibration's
  std::string calibration;            // where `efficiency` came from: "" = defaults, else the file
  std::string calibration_gpu;        // the GPU the calibration was fitted on (must be the deployment's)
  bool enforce_eager = false;         // no CUDA graphs
  // vLLM v1's async scheduling (vllm/v1/engine/core.py step_with_batch_queue): the host schedules and
  // prepares step k + 1 while the GPU runs step k, so the host's work lengthens a step only where it
  // exceeds the GPU's.
  bool overlap_host = false;
  double link_bytes_per_s = 0;        // TP all-reduce bandwidth per direction; 0: from the interconnect
  // Small kernels the step launches outside the model's forward (a drafter pass's position, slot
  // and input-buffer updates): kernel_floor_us each on the GPU, counted in `other`. Their launches
  // are host work the caller puts in step_overhead_ms.
  int64_t input_update_kernels = 0;
  // GEMMs outside the layers' (a drafter's fc / eh_proj joining the token embedding and the target's
  // hidden state): timed and counted in `linear`.
  std::vector<ExtraGemm> extra_gemms;
};

// The step's time by component, seconds.
struct StepBreakdown {
  double linear = 0, attention = 0, other = 0, lm_head = 0, communication = 0, overhead = 0;
  double total() const { return linear + attention + other + lm_head + communication + overhead; }
};

class StepModel final : public StepTimer {
 public:
  // Throws kvsim::Error when the GPU lacks a figure the model needs (the dense peak for the
  // compute format, the memory bandwidth), naming it and the flags that supply it.
  StepModel(const ModelSpec& spec, const CapacityResult& capacity, const GpuSpec& gpu, const StepModelOptions& options);

  // The step's duration in integer nanoseconds (>= 1). Not thread-safe (memoises).
  int64_t StepNs(const StepWork& work) const override;
  std::unique_ptr<DecodeRunTimer> DecodeRun(int64_t sequences) const override;
  std::unique_ptr<DecodeRunTimer> VerifyRun(int64_t sequences, int64_t tokens) const override;
  StepBreakdown Breakdown(const StepWork& work) const;
  std::vector<OperatorCost> Operators(const StepWork& work) const;

 private:
  // What attention costs for one batch shape, whatever the context: the terms StepNs and the decode
  // runs share, so both compute a layer's time with the same operations in the same order.
  struct AttentionTerms {
    double t = 0, per_layer_kv = 0, query_bytes = 0, flops_per_pair = 0, compute_rate = 0, memory_rate = 0,
           floor_s = 0, full_layers = 0, window_layers = 0, window_attended = 0, window_context = 0,
           seq_tokens = 0;  // the batch's fixed cost per layer, in tokens of K/V reads (KernelEfficiency)
    // `count` layers attending `attended` (query, key) pairs over `context` cached tokens: the slower
    // of compute and KV reads (with the per-sequence cost), plus a kernel floor; their FLOPs and the
    // bytes they move per layer.
    double LayerSeconds(double attended, double context, double count, double* flops, double* bytes) const {
      *flops = flops_per_pair * attended;
      *bytes = (context + t) * per_layer_kv + query_bytes;
      const double reads = (context + t + seq_tokens) * per_layer_kv + query_bytes;
      return (std::max(*flops / compute_rate, reads / memory_rate) + floor_s) * count;
    }
  };
  AttentionTerms AttentionTermsFor(int64_t new_tokens, int64_t sequences) const;

 public:
  // The steps of a quiet decode run (sim/engine/replay_engine.h): `sequences` requests decoding one token
  // each, steps that differ only in the context they read. Ns(context) is StepNs of that step bit
  // for bit (the same operations in the same order); what depends only on the batch is looked up
  // once, and the call inlines into the run's loop.
  class DecodeSteps final : public DecodeRunTimer {
   public:
    // `tokens` > 1: each request verifies tokens − 1 drafts (StepTimer::VerifyRun); Ns per step then.
    DecodeSteps(const StepModel& model, int64_t sequences, int64_t tokens = 1);
    int64_t Ns(int64_t context_tokens) const override {
      if (fixed_ns_ > 0) return fixed_ns_;
      const double att = Attention(context_tokens) + state_seconds_;
      const double gpu = linear_ + att + other_ + lm_head_ + communication_;
      const double overhead = overhead_known_ ? overhead_ : m_.Overhead(Work(context_tokens), gpu);
      return RoundNs((gpu + overhead) * 1e9);
    }

    // Whether Ns never decreases as the context grows: with a fixed overhead every operation is
    // monotone (a product or quotient of positives, a sum, max, min, rounding); the eager launch
    // term subtracts the GPU time, and its rounding need not be.
    bool Nondecreasing() const override { return fixed_ns_ > 0 || overhead_known_; }

    // Times the steps of a run: step k reads context_tokens + k·stride (the batch decodes one token
    // each) and lasts Ns of that, bit for bit; out[k] gets its duration. Steps are taken until the
    // clock *now_ns reaches horizon_ns or `limit` steps (at least one); returns how many, *now_ns
    // advanced past them.
    // speed: with a CUDA graph's fixed overhead, a decode step's exact time is affine in the context
    // between a few breakpoints (where KV reads overtake compute, where a window caps), so each step
    // adds a 128-bit slope in units of 2^-48 ns and rounds by a shift. The fixed point and Ns's
    // doubles each approximate the same exact sum; a step whose sum lies too close to a rounding
    // edge (+0.5 ns) for the error bound to settle which side Ns lands on (a few in 10^5) is
    // computed as Ns computes it. Without a known overhead every step is Ns.
    int64_t TimeSteps(int64_t context_tokens, int64_t stride, int64_t limit, int64_t horizon_ns, int64_t* now_ns,
                      int64_t* out) const override;

   private:
    StepWork Work(int64_t context_tokens) const;
    // StepModel::AddAttention for this batch (decode only).
    double Attention(int64_t context_tokens) const {
      if (!has_attention_) return 0;
      const AttentionTerms& a = attention_;
      const double attended = static_cast<double>(tokens_ * context_tokens + attended_per_batch_),
                   context = static_cast<double>(context_tokens);
      double seconds = 0, flops = 0, bytes = 0;
      if (a.full_layers > 0) seconds += a.LayerSeconds(attended, context, a.full_layers, &flops, &bytes);
      if (tokens_ > 1 && m_.fa2_verify_) seconds += Fa2VerifyExcess(attended, context);
      if (a.window_layers > 0)
        seconds += a.LayerSeconds(std::min(attended, a.window_attended), std::min(context, a.window_context), a.window_layers,
                                  &flops, &bytes);
      return seconds;
    }

    // AddAttention's FlashAttention-2 verify term for this batch (0 when it does not apply).
    double Fa2VerifyExcess(double attended, double context) const;

    const StepModel& m_;
    int64_t sequences_ = 0, fixed_ns_ = 0;
    int64_t tokens_ = 1, attended_per_batch_ = 0;  // tokens each; Σ tokens·(tokens + 1)/2
    double linear_ = 0, other_ = 0, lm_head_ = 0, communication_ = 0;
    double state_seconds_ = 0;  // StepModel::AddRecurrentState for this batch
    bool overhead_known_ = false;
    double overhead_ = 0;
    bool has_attention_ = false;
    AttentionTerms attention_;
    // The same step in fixed point (TimeSteps), 2^-48 ns: time = base + the larger of each pair at
    // context c, a line a + s·c, or past `cap_at` (a window's cap) the constant `capped`.
    struct Line {
      Int128 a = 0;
      int64_t s = 0;
      int64_t cap_at = INT64_MAX;
      Int128 capped = 0;
    };
    struct Piece {
      Int128 time = 0, slope = 0;  // the first step's exact time and the growth per step, 2^-48 ns
      int64_t steps = 0;           // how many steps the lines stay as they are
      uint64_t tolerance = 0;      // the error bound, 2^-48 ns
    };
    bool PieceAt(int64_t context, int64_t stride, Piece* piece) const;
    bool affine_ = false;
    Int128 base_ = 0;
    int pairs_ = 0;
    Line compute_[2], memory_[2];  // full layers, then window layers
  };

  // vLLM's largest captured CUDA-graph batch (max_capture_size); larger decode batches launch eagerly.
  static constexpr int64_t kMaxGraphSequences = 512;

  bool fixed() const { return fixed_ns_ > 0; }
  // "per-operator (calibration: FILE)", "per-operator (default efficiencies)" or "fixed 20 ms".
  std::string Describe() const override;
  const KernelEfficiency& efficiency() const { return eff_; }
  // The routed experts' layout and kernel, if the model has MoE layers; the quantized GEMMs' kernel.
  std::optional<MoeLayout> Moe() const { return moe_ ? std::optional<MoeLayout>(moe_->Layout()) : std::nullopt; }
  const LowBitGemm& quantized_kernel() const { return lowbit_; }
  // The CPU time of launching every kernel of a step one by one (no graph): LoRA's launches
  // (lora_host.h) are weighed against the GPU time left over after these.
  double EagerLaunchSeconds() const { return static_cast<double>(KernelsPerStep()) * eff_.launch_us * 1e-6; }

 private:
  struct Gemm {
    std::string name;
    int64_t n = 0, k = 0;
    double weight_bytes = 0;
    double layers = 0;        // how many layers run it
    bool quantized = false;   // stored in the checkpoint's quantized format
    bool attention = false;   // an attention or mixer projection (AttentionFormat: fp8 in a mixed checkpoint)
  };
  double WeightBytes(int64_t n, int64_t k, bool quantizable, const QuantizationSpec& format) const;
  void AddGemm(const char* name, int64_t n, int64_t k, bool quantizable, double layers, const CapacityResult& cap,
               bool attention = false);
  void BuildAttentionGemms(const ModelSpec& spec, const CapacityResult& cap);
  void BuildMlpGemms(const ModelSpec& spec, const CapacityResult& cap);
  void BuildExperts(const ModelSpec& spec, const CapacityResult& cap, const GpuSpec& gpu, const StepModelOptions& o);
  GemmShape Shape(const Gemm& g, int64_t m) const;
  void AddLinear(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const;
  void AddAttention(const StepWork& w, std::vector<OperatorCost>* out, double* seconds) const;
  void AddRecurrentState(int64_t sequences, std::vector<OperatorCost>* out, double* seconds) const;
  void AddOther(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const;
  void AddLmHead(int64_t rows, std::vector<OperatorCost>* out, double* seconds) const;
  void AddCommunication(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const;
  double Overhead(const StepWork& w, double gpu_seconds) const;
  double SequentialOverhead(const StepWork& w, double gpu_seconds) const;  // the host's time, not overlapped
  int64_t KernelsPerStep() const;
  using AddFn = void (StepModel::*)(int64_t, std::vector<OperatorCost>*, double*) const;
  // speed: the table hit is inline (four per step); computing a missing entry is not.
  double Memo(std::vector<double>& memo, int64_t key, AddFn add) const {
    if (key >= 0 && static_cast<size_t>(key) < memo.size() && memo[static_cast<size_t>(key)] == memo[static_cast<size_t>(key)])
      return memo[static_cast<size_t>(key)];  // x == x: computed (not NaN)
    return MemoMiss(memo, key, add);
  }
  double MemoMiss(std::vector<double>& memo, int64_t key, AddFn add) const;

  // llround for the non-negative seconds·1e9 of a step (exact below 2^52: x + 0.5 is exact for x ≥ 1,
  // and below 1 both give at most 1, which the floor of 1 ns absorbs), at least 1.
  static int64_t RoundNs(double ns) { return std::max<int64_t>(1, static_cast<int64_t>(ns + 0.5)); }

  int64_t fixed_ns_ = 0;
  std::string calibration_;
  KernelEfficiency eff_;
  GemmDevice gemm_;
  LowBitGemm lowbit_;               // the kernel the quantized GEMMs run on (lowbit_gemm.h)
  GemmDevice gemmq_;                // gemm_ at the quantized kernel's peak
  LowBitGemm lowbit_attention_;     // the same for the attention projections (AttentionFormat)
  GemmDevice gemmq_attention_;
  double peak16_ = 0, hbm_ = 0;
  bool eager_ = false;
  bool overlap_host_ = false;  // StepModelOptions::overlap_host
  double input_update_kernels_ = 0;  // StepModelOptions::input_update_kernels
  int tp_ = 1, pp_ = 1;
  int dcp_ = 1;  // decode context parallelism: each rank holds and reads 1/dcp of every request's KV
  double act_bytes_ = 2;            // activation element size
  double hidden_ = 0, layers_ = 0, kv_layers_ = 0, gated_ = 1, inter_per_gpu_ = 0;
  double own_kv_layers_ = 0;  // kv_layers_ less the layers reading another layer's KV
  double q_width_ = 0, kv_width_ = 0, v_width_ = 0;  // per GPU
  double absorbed_width_ = 0;       // MLA: heads × (2 × kv_lora_rank + rope dim), 0 otherwise
  double kv_bytes_per_token_ = 0;   // all layers of this GPU's stages, per token
  double window_layers_ = 0, window_tokens_ = 0;  // sliding-window share
  double vocab_per_gpu_ = 0, lm_head_bytes_ = 0;
  // --cpu-offload-gb: the decoder-layer weights kept in CPU memory (every stage's, per TP rank), the
  // time one forward takes to read them over the host link, and their share of the layers' bytes.
  double offloaded_bytes_ = 0, offload_seconds_ = 0, offloaded_share_ = 0;
  RecurrentStateTraffic recurrent_state_;  // hybrid models' per-request recurrent state (none: no term)
  double link_ = 0, allreduce_latency_s_ = 0;
  // QK norms over all heads under TP (QkNormSpan): all-reduces of the per-token sums of squares per
  // attention layer (q's and k's apart, or joined; 0 otherwise), or the bytes of one token's q and k
  // gathered whole (0 otherwise).
  double qk_norm_all_reduces_ = 0, qk_norm_gathered_bytes_per_token_ = 0;
  std::vector<Gemm> gemms_;
  std::optional<MoeLayerTimer> moe_;  // the routed experts, if the model has MoE layers
  // Grouped-query attention on a GPU where vLLM runs FlashAttention-2: a verify step's tile-bound
  // attention (fa2_multi_query_attention.h), none otherwise.
  std::optional<Fa2MultiQueryAttention> fa2_verify_;
  // Memoised per token count / sequence count (NaN: not computed yet).
  mutable std::vector<double> linear_memo_, other_memo_, comm_memo_, lm_head_memo_;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_STEP_MODEL_H_
