// The host side of a step that runs requests on LoRA adapters: what vLLM's CPU does besides the
// punica kernels' GPU time (lora_kernels.h), and how much of it the step exposes.
//
// Metadata, every step with an adapter. The model runner's set_active_loras (vllm/v1/worker/
// lora_model_runner_mixin.py; InputBatch.make_lora_inputs makes a Python tuple of one adapter id per
// scheduled token) hands a LoRAMapping to PunicaWrapperGPU.update_metadata (lora/punica_wrapper/
// punica_gpu.py, v0.11 line): convert_mapping (punica_wrapper/utils.py) walks the tokens in a Python
// loop (lora_index_to_id.index per token) and builds the index tensors (13 PyTorch ops), the base
// wrapper copies four of them into its buffers, then LoRAKernelMeta.prepare_tensors (lora/ops/
// triton_ops/lora_kernel_metadata.py) runs for the tokens and for the sampled rows: 14 ops each
// (three fill_, eq, all, the copies, a stable sort, unique, cumsum). prepare_tensors synchronises
// with the GPU twice (`if no_lora:` reads a CUDA bool; torch.unique's output size is data
// dependent): the host cannot finish it while the previous step still runs, so async scheduling
// (vllm/v1/engine/core.py step_with_batch_queue) does not hide it. Both syncs are still there in the
// 2026 line (prepare_tensors with captured_lora_counts). The metadata is therefore added to the step
// whether or not the host otherwise overlaps the GPU.
//
// Launches. Under CUDA graphs the LoRA kernels are inside the graph (the decode graphs of the V0
// engine, V1's full and piecewise graphs: lora_shrink / lora_expand are custom ops inside the
// pieces). Without a graph — --enforce-eager, the V0 engine's prefill steps (it captures decode
// batches only: vllm/worker/model_runner.py), decode batches above the largest captured size —
// every wrapped module of every layer launches from Python:
//   vLLM >= 0.8 (punica_gpu.py add_lora_linear): lora_shrink (one Triton launch for all slices, after
//     output_tensor.zero_()) and lora_expand (one Triton launch): 2 Triton + 1 PyTorch launch;
//   vLLM <= 0.7 (the V0-era wrapper's add_shrink / add_expand loop "TODO fuse these kernels"): a
//     shrink and an expand per slice, and a torch.zeros buffer per slice: 2·slices Triton + slices
//     PyTorch launches (qkv: 6 + 3, gate_up: 4 + 2, o and down: 2 + 1);
//   the embedding: one expand plus the A lookup (F.embedding); lm_head (add_lora_logits): shrink and
//     expand plus its buffer's zeroing.
// A Triton launch from Python costs more than a PyTorch op's: JITFunction.run binds the arguments,
// looks up the compiled kernel and calls its launcher. Published figures: 18 µs after Triton's
// launch rewrite (triton-lang/triton#3648, April 2024, in Triton 3.0/3.1, which vLLM 0.6–0.7 use
// with torch 2.5); about 11 µs for the Triton JIT dispatch of 2026 (meta-pytorch/tritonbench#1002,
// against 2.2 µs for a precompiled launch; vllm-project/vllm#34838 measures 8.68 µs on GB200's
// Grace). Launches cost the step only where the CPU falls behind the GPU: as StepModel's eager
// overhead does, the step's own launches (StepModel::EagerLaunchSeconds) and the LoRA ones are
// compared with the GPU time the step already has.
#ifndef KVSIM_SIM_TIMING_LORA_HOST_H_
#define KVSIM_SIM_TIMING_LORA_HOST_H_

#include <cstdint>
#include <vector>

#include "kvcache/budget/lora_memory.h"

namespace kvsim {

struct LoraHostCosts {
  double torch_launch_s = 4e-6;     // one PyTorch op from Python (KernelEfficiency::launch_us)
  double triton_launch_s = 11e-6;   // one Triton kernel from Python (see above)
  // convert_mapping's loop and make_lora_inputs' tuple per scheduled token: the loop of
  // punica_wrapper/utils.py and tuple(np.repeat(...)) timed with CPython 3.11 on one AMD EPYC core
  // at 1,024 and 8,192 tokens: 120–170 ns and 24–36 ns per token. Building the tensors from the
  // lists (torch.tensor) comes on top and is not counted.
  double per_token_s = 0.15e-6;
  bool per_slice_kernels = false;   // vLLM <= 0.7: a shrink and an expand per slice
  bool eager = false;               // --enforce-eager: every step launches from the CPU
  bool prefill_from_cpu = false;    // the V0 engine: only decode-only steps replay a graph
  int64_t max_graph_sequences = 512;  // larger decode batches launch from the CPU
  // The base step: its own kernels launched from the CPU when no graph runs, and the host time it
  // exposes before the GPU work (0 when async scheduling overlaps it).
  double base_launch_s = 0;
  double base_exposed_host_s = 0;
};

// One step's shape, as far as the host is concerned.
struct LoraHostStep {
  int64_t batch_tokens = 0;  // every scheduled token (convert_mapping walks them all)
  int64_t sequences = 0;
  bool decode_only = false;
};

class LoraHostTimer {
 public:
  LoraHostTimer(const std::vector<LoraKernelShape>& shapes, const LoraHostCosts& costs);

  // PyTorch ops of the metadata per step: convert_mapping 13, the base wrapper's copies 4,
  // prepare_tensors 14 for the tokens and 14 for the sampled rows.
  static constexpr int64_t kMetadataOps = 13 + 4 + 2 * 14;

  // The metadata's host seconds for a step (exposed whatever the scheduling).
  double MetadataSeconds(int64_t batch_tokens) const;
  // Whether the step's LoRA kernels are launched from Python rather than replayed in a graph.
  bool LaunchesFromCpu(const LoraHostStep& s) const;
  // The CPU seconds of one step's LoRA launches, and their counts.
  double LaunchSeconds() const { return launch_s_; }
  int64_t triton_launches() const { return triton_launches_; }
  int64_t torch_launches() const { return torch_launches_; }
  // What LoRA's host side adds to a step whose base length is `base_s` (GPU time and whatever host
  // time it exposes) and whose LoRA kernels take `kernel_s` on the GPU, the kernels included: with
  // a graph kernel_s; from the CPU, the longer of kernel_s and the LoRA launches less the GPU time
  // the base step had in hand over its own launches. Plus the metadata.
  double AddedSeconds(double base_s, double kernel_s, const LoraHostStep& s) const;

 private:
  LoraHostCosts c_;
  int64_t triton_launches_ = 0, torch_launches_ = 0;
  double launch_s_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_LORA_HOST_H_
