#include "sim/run/offload_setup.h"

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "sim/run/request_sources.h"

namespace kvsim {

void CheckOffloadInputs(const Deployment& d, const ReplayOptions& r) {
  if (!r.offload.enabled()) return;
  // Chunks are named by prefix keys: without them nothing stored could ever be found.
  if (!d.config.enable_prefix_caching || !TraceHasBlockIds(r))
    throw Error("--kv-offload: tiers find prompt chunks by their prefix keys: needs prefix caching on and a trace with "
                "block ids (Mooncake hash_ids) or --shared-prefix/--conversations");
}

std::unique_ptr<OffloadTiers> MakeOffloadTiers(const Deployment& d, const ReplayOptions& r, const CapacityResult& cap) {
  if (!r.offload.enabled()) return nullptr;
  CheckOffloadInputs(d, r);
  if (cap.settings.decode_context_parallel_size > 1)
    throw Error("--kv-offload: with --decode-context-parallel-size above 1 not modelled: each rank would offload its "
                "own share of every block");
  const int64_t block = cap.settings.block_size;
  OffloadConfig per_gpu = r.offload;
  if (per_gpu.chunk_tokens == 0) per_gpu.chunk_tokens = block;
  if (per_gpu.chunk_tokens % block != 0)
    throw Error(Format("--kv-offload-chunk-tokens: %lld is not a multiple of the block size %lld",
                       static_cast<long long>(per_gpu.chunk_tokens), static_cast<long long>(block)));
  // vLLM's --kv-offloading-size is the sum over the ranks; each GPU keeps its own shard.
  const double gpus = static_cast<double>(cap.settings.tensor_parallel_size) * cap.settings.pipeline_parallel_size;
  for (TierSpec& t : per_gpu.tiers) {
    t.capacity_bytes /= gpus;
    if (t.kind == TierKind::kHost && t.read_bytes_per_s <= 0) {
      if (d.gpu.host_link_bytes_per_s <= 0)
        throw Error("--kv-offload: the GPU table has no host link figure for " + d.gpu.id + "; give --kv-host-link GB/s");
      t.read_bytes_per_s = t.write_bytes_per_s = d.gpu.host_link_bytes_per_s;
    }
  }
  const StageCapacity& stage = cap.stages[cap.bottleneck_stage];
  return std::make_unique<OffloadTiers>(per_gpu, block, stage.layout.bytes_per_token);
}

}  // namespace kvsim
