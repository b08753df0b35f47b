#include "reports/lora_report.h"

#include "kvcache/base/text_format.h"

namespace kvsim {

nlohmann::json LoraToJson(const LoraSummary& l) {
  return {{"max_loras", l.max_loras},
          {"max_cpu_loras", l.max_cpu_loras},
          {"max_lora_rank", l.max_lora_rank},
          {"requests", l.requests},
          {"adapter_gpu_mib", l.adapter_gpu_mib},
          {"adapter_host_mib", l.adapter_host_mib},
          {"host_link_gb_per_s", l.host_link_gb_per_s},
          {"disk_read_gb_per_s", l.disk_read_gb_per_s},
          {"gpu_load_ms", l.gpu_load_ms},
          {"disk_load_ms", l.disk_load_ms},
          {"gpu_loads", l.gpu_loads},
          {"disk_loads", l.disk_loads},
          {"load_s", l.load_s},
          {"kernel_s", l.kernel_s},
          {"host_s", l.host_s},
          {"lora_steps", l.lora_steps},
          {"max_step_adapters", l.max_step_adapters},
          {"waited_requests", l.waited_requests},
          {"units", "MiB = 2^20 bytes; adapter_gpu_mib per GPU, adapter_host_mib every shard; gpu_loads are GPU-slot "
                    "misses, disk_loads the host-cache misses among them"}};
}

std::string RenderLoraText(const LoraSummary& l) {
  return Format("\nLoRA: %lld slots (rank %lld), host cache %lld adapters; %lld requests on adapters, %lld of them waited "
                "for a slot; at most %lld adapters in a step\n"
                "  adapter loads: %lld into GPU slots (%.3f MiB, %.3f ms each over %.0f GB/s), %lld of them read from disk "
                "first (%.3f MiB, %.3f ms at %.2f GB/s); %.3f s of loads, %.3f s of LoRA kernels and %.3f s of LoRA host work (metadata, launches) in "
                "%lld steps\n",
                static_cast<long long>(l.max_loras), static_cast<long long>(l.max_lora_rank),
                static_cast<long long>(l.max_cpu_loras), static_cast<long long>(l.requests),
                static_cast<long long>(l.waited_requests), static_cast<long long>(l.max_step_adapters),
                static_cast<long long>(l.gpu_loads), l.adapter_gpu_mib, l.gpu_load_ms, l.host_link_gb_per_s,
                static_cast<long long>(l.disk_loads), l.adapter_host_mib, l.disk_load_ms, l.disk_read_gb_per_s, l.load_s,
                l.kernel_s, l.host_s, static_cast<long long>(l.lora_steps));
}

}  // namespace kvsim
