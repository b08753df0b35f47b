#include "reports/capacity_report.h"

#include <cmath>

#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

std::string G(double bytes) { return Format("%.2f", BytesToGiB(bytes)); }

std::string Delta(double value, double reference) {
  return Format("%+.1f%%", 100.0 * (value - reference) / reference);
}

double Round(double v, int digits) {
  const double f = std::pow(10.0, digits);
  return std::round(v * f) / f;
}

}  // namespace

std::string RenderCapacityText(const CapacityResult& r) {
  const EffectiveSettings& s = r.settings;
  std::string out;
  out += "kvsim capacity: " + s.model + " on " + s.gpu_name + Format(" (%.2f GiB as CUDA reports)", s.gpu_total_gib) +
         ", engine " + NameOf(s.engine) +
         (s.engine == Engine::kVllm ? " " + s.vllm_version + " (era " + NameOf(s.vllm_era) + ")" : "") + "\n";
  out += Format("settings: dtype %s, quantization %s, kv-cache-dtype %s, TP %d%s, PP %d, ", s.dtype.c_str(),
                s.quantization.c_str(), s.kv_cache_dtype.c_str(), s.tensor_parallel_size,
                s.tensor_parallel_size > 1 ? (std::string(" over ") + NameOf(s.interconnect)).c_str() : "", s.pipeline_parallel_size);
  out += Format("gpu-memory-utilization %.2f,\n          max-model-len %lld, max-num-seqs %lld, max-num-batched-tokens %lld, block-size %lld\n",
                s.gpu_memory_utilization, static_cast<long long>(s.max_model_len), static_cast<long long>(s.max_num_seqs),
                static_cast<long long>(s.max_num_batched_tokens), static_cast<long long>(s.block_size));
  if (s.data_parallel_size > 1 || s.enable_expert_parallel)
    out += Format("          data-parallel-size %d%s%s: %d GPUs in all; every figure below is per GPU of one replica\n",
                  s.data_parallel_size, s.enable_expert_parallel ? " with expert parallelism (experts over TP x DP)" : "",
                  s.data_parallel_size > 1 ? (std::string(", MoE tokens by ") + NameOf(s.all2all_backend)).c_str() : "",
                  s.data_parallel_size * s.tensor_parallel_size * s.pipeline_parallel_size);
  if (s.decode_context_parallel_size > 1)
    out += Format("          decode-context-parallel-size %d: each request's tokens spread over %d of the TP ranks (token i on "
                  "rank i %% %d), so the KV cache holds %d times one GPU's tokens\n",
                  s.decode_context_parallel_size, s.decode_context_parallel_size, s.decode_context_parallel_size,
                  s.decode_context_parallel_size);
  out += "parameters: " + Thousands(r.params);
  if (r.active_params != r.params) out += " (" + Thousands(r.active_params) + " active per token)";
  out += "\n\n";

  TextTable mem({"per GPU (GiB = 2^30 bytes)", "GiB", "of reserved"});
  auto share = [&](double b) { return Format("%.1f%%", 100.0 * b / r.reserved_bytes); };
  mem.AddRow({"GPU memory (CUDA total)", Format("%.2f", s.gpu_total_gib), ""});
  mem.AddRow({Format("reserved (x %.2f utilization)", s.gpu_memory_utilization), G(r.reserved_bytes), "100.0%"});
  mem.AddRow({"  weights", G(r.weights_bytes), share(r.weights_bytes)});
  if (r.draft_weights_bytes > 0)  // loaded with the model, so before the KV budget
    mem.AddRow({"    of which drafter: " + r.draft_what, G(r.draft_weights_bytes), share(r.draft_weights_bytes)});
  if (r.lora.gpu_bytes() > 0) {
    mem.AddRow({Format("    of which LoRA slots (%lld x rank %lld)", static_cast<long long>(r.lora_slots),
                       static_cast<long long>(r.lora_rank)),
                G(r.lora.gpu_bytes()), share(r.lora.gpu_bytes())});
    for (const auto& m : r.lora.modules)
      mem.AddRow({Format("      %s (x%lld)", m.module.c_str(), static_cast<long long>(m.layers)), G(m.total()), ""});
    if (r.lora.extra_vocab_weight_bytes > 0)
      mem.AddRow({"      extra vocabulary rows", G(r.lora.extra_vocab_weight_bytes), ""});
  }
  mem.AddRow({"  activation peak (profile run)", G(r.activation_peak_bytes), share(r.activation_peak_bytes)});
  mem.AddRow({"  runtime overhead (non-torch)", G(r.non_torch_bytes), share(r.non_torch_bytes)});
  if (r.encoder_profile_bytes > 0)  // its own line, multimodal models only
    mem.AddRow({"  encoder profile (multimodal)", G(r.encoder_profile_bytes), share(r.encoder_profile_bytes)});
  if (r.sparse_indexer_bytes > 0)  // DeepSeek-V3.2 only
    mem.AddRow({"  sparse indexer workspace (profile)", G(r.sparse_indexer_bytes), share(r.sparse_indexer_bytes)});
  if (r.cuda_graph_bytes > 0)  // vLLM >= 0.21 (or its estimate switched on) charges them before the KV cache
    mem.AddRow({Format("  CUDA graphs (%lld captured, profiled)", static_cast<long long>(r.cuda_graphs_captured)),
                G(r.cuda_graph_bytes), share(r.cuda_graph_bytes)});
  mem.AddRow({"  KV cache", G(r.kv_cache_bytes), share(r.kv_cache_bytes)});
  if (r.spec_lookahead_bytes > 0)  // held inside the pool, not reserved before it
    mem.AddRow({Format("    of which spec-decode slots (%lld x max-num-seqs)", static_cast<long long>(r.spec_decode_slots)),
                G(r.spec_lookahead_bytes), share(r.spec_lookahead_bytes)});
  out += mem.Render() + "\n";

  const StageCapacity& b = r.stages[r.bottleneck_stage];
  TextTable kv({"KV cache", "value"});
  kv.AddRow({"bytes per token (all layers)", Thousands(static_cast<int64_t>(r.kv_bytes_per_token)) +
                                                 Format(" (%.1f KiB)", r.kv_bytes_per_token / 1024.0)});
  kv.AddRow({"bytes per block", Thousands(b.layout.block_bytes) + Format(" (%lld tokens x %lld layers/group)",
                                                                          static_cast<long long>(s.block_size),
                                                                          static_cast<long long>(b.layout.group_size))});
  if (b.layout.groups.size() > 1) kv.AddRow({"layer groups (hybrid)", std::to_string(b.layout.groups.size())});
  kv.AddRow({"GPU blocks", Thousands(r.num_gpu_blocks)});
  if (r.usable_gpu_blocks != r.num_gpu_blocks)
    kv.AddRow({"  usable by requests", Thousands(r.usable_gpu_blocks)});  // the null block left out
  kv.AddRow({"GPU KV cache size (tokens)", Thousands(r.gpu_kv_cache_tokens)});
  for (const auto& [tokens, requests] : r.concurrency_at)
    kv.AddRow({Format("max concurrency @ %lld tokens%s", static_cast<long long>(tokens),
                      tokens == r.trace_mean_tokens ? " (trace mean)" : ""),
               Format("%.2fx", requests)});
  kv.AddRow({Format("max concurrency @ %lld tokens", static_cast<long long>(s.max_model_len)),
             Format("%.2fx", r.max_concurrency)});
  out += kv.Render() + "\n";

  TextTable base({Format("one %lld-token request vs rules of thumb", static_cast<long long>(s.max_model_len)), "GiB", "vs modelled"});
  base.AddRow({"modelled: weights + activation + runtime + its KV", G(r.modelled_one_request_bytes), ""});
  base.AddRow({"rule of thumb: 1.2 x weights", G(r.baseline_1_2x_bytes), Delta(r.baseline_1_2x_bytes, r.modelled_one_request_bytes)});
  base.AddRow({"article 003: 2.4P + 4sLhd_h (fp16, MHA)", G(r.baseline_article003_bytes),
               Delta(r.baseline_article003_bytes, r.modelled_one_request_bytes)});
  base.AddRow({"what the server reserves (total x utilization)", G(r.reserved_bytes), Delta(r.reserved_bytes, r.modelled_one_request_bytes)});
  out += base.Render();
  if (r.stages.size() > 1) {
    out += "\n";
    TextTable st({"PP stage", "layers", "weights GiB", "activation GiB", "KV GiB", "blocks"});
    for (const auto& stage : r.stages)
      st.AddRow({std::to_string(stage.stage), Format("%lld-%lld", static_cast<long long>(stage.first_layer),
                                                     static_cast<long long>(stage.end_layer - 1)),
                 G(stage.weights.total_bytes()), G(stage.overhead.activation_peak_bytes), G(stage.kv_cache_bytes),
                 Thousands(stage.num_blocks)});
    out += st.Render();
  }
  if (!r.offload_tiers.empty()) {
    out += "\n";
    TextTable t({"KV tier below the GPU (" + r.offload_connector + ")", "GiB per replica", "GiB per GPU", "tokens"});
    for (const auto& tier : r.offload_tiers)
      t.AddRow({tier.tier == "cpu" ? "host memory (pinned at start-up)" : "disk", G(tier.bytes_per_replica),
                G(tier.bytes_per_gpu), Thousands(tier.tokens)});
    t.AddRow({"GPU staging buffer, outside the KV pool", "", G(r.offload_gpu_staging_bytes), ""});
    out += t.Render();
  }
  for (const auto& note : r.notes) out += "note: " + note + "\n";
  return out;
}

nlohmann::json SettingsToJson(const EffectiveSettings& s) {
  nlohmann::json j = {
      {"model", s.model}, {"architecture", s.architecture}, {"engine", NameOf(s.engine)}, {"vllm_version", s.vllm_version},
      {"vllm_era", NameOf(s.vllm_era)}, {"gpu", s.gpu_id}, {"gpu_name", s.gpu_name}, {"gpu_total_gib", s.gpu_total_gib},
      {"interconnect", NameOf(s.interconnect)},
      {"gpu_memory_utilization", s.gpu_memory_utilization}, {"dtype", s.dtype}, {"quantization", s.quantization},
      {"kv_cache_dtype", s.kv_cache_dtype}, {"tensor_parallel_size", s.tensor_parallel_size},
      {"pipeline_parallel_size", s.pipeline_parallel_size}, {"max_model_len", s.max_model_len},
      {"max_num_seqs", s.max_num_seqs}, {"max_num_batched_tokens", s.max_num_batched_tokens},
      {"block_size", s.block_size}, {"enable_prefix_caching", s.enable_prefix_caching},
      {"hybrid_kv_cache_manager", s.kv_grouping == KvGrouping::kHybrid}};
  j["kv_cache_memory_gib"] = s.kv_cache_memory_gib ? nlohmann::json(*s.kv_cache_memory_gib) : nlohmann::json();
  j["data_parallel_size"] = s.data_parallel_size;
  if (s.decode_context_parallel_size > 1) j["decode_context_parallel_size"] = s.decode_context_parallel_size;
  j["enable_expert_parallel"] = s.enable_expert_parallel;
  // Only data parallelism moves MoE tokens between ranks (vLLM builds the manager at DP > 1).
  if (s.data_parallel_size > 1) j["all2all_backend"] = NameOf(s.all2all_backend);
  return j;
}

nlohmann::json CapacityToJson(const CapacityResult& r) {
  nlohmann::json j;
  j["kvsim_version"] = KVSIM_VERSION;
  j["units"] = "GiB = 2^30 bytes; all memory figures per GPU";
  j["settings"] = SettingsToJson(r.settings);
  j["params"] = r.params;
  j["active_params"] = r.active_params;
  j["weights_gib"] = Round(BytesToGiB(r.weights_bytes), 4);
  j["activation_peak_gib"] = Round(BytesToGiB(r.activation_peak_bytes), 4);
  j["non_torch_gib"] = Round(BytesToGiB(r.non_torch_bytes), 4);
  if (r.encoder_profile_bytes > 0) j["encoder_profile_gib"] = Round(BytesToGiB(r.encoder_profile_bytes), 4);
  if (r.sparse_indexer_bytes > 0) j["sparse_indexer_workspace_gib"] = Round(BytesToGiB(r.sparse_indexer_bytes), 4);
  if (r.cuda_graph_bytes > 0) {
    j["cuda_graph_gib"] = Round(BytesToGiB(r.cuda_graph_bytes), 4);
    j["cuda_graphs_captured"] = r.cuda_graphs_captured;
  }
  j["kv_cache_gib"] = Round(BytesToGiB(r.kv_cache_bytes), 4);
  j["reserved_gib"] = Round(BytesToGiB(r.reserved_bytes), 4);
  j["kv_bytes_per_token"] = r.kv_bytes_per_token;
  const StageCapacity& b = r.stages[r.bottleneck_stage];
  j["kv_block_bytes"] = b.layout.block_bytes;
  j["kv_layer_groups"] = b.layout.groups.size();
  j["num_gpu_blocks"] = r.num_gpu_blocks;
  j["usable_gpu_blocks"] = r.usable_gpu_blocks;
  if (r.spec_decode_slots > 0) {  // present only with drafts
    j["spec_decode_slots"] = r.spec_decode_slots;
    j["spec_decode_slots_gib"] = Round(BytesToGiB(r.spec_lookahead_bytes), 4);
  }
  if (r.draft_weights_bytes > 0) j["draft"] = {{"what", r.draft_what}, {"weights_gib", Round(BytesToGiB(r.draft_weights_bytes), 4)}};
  if (r.lora.gpu_bytes() > 0) {  // present only with --enable-lora
    nlohmann::json lora = {{"max_loras", r.lora_slots}, {"max_lora_rank", r.lora_rank},
                           {"gpu_gib", Round(BytesToGiB(r.lora.gpu_bytes()), 4)},
                           {"gpu_bytes", r.lora.gpu_bytes()},
                           {"extra_vocab_weight_bytes", r.lora.extra_vocab_weight_bytes},
                           {"host_cache_gib", Round(BytesToGiB(r.lora.host_bytes), 4)}};
    nlohmann::json modules = nlohmann::json::array();
    for (const auto& m : r.lora.modules)
      modules.push_back({{"module", m.module}, {"layers", m.layers}, {"lora_a_bytes", m.a_bytes},
                         {"lora_b_bytes", m.b_bytes}, {"extra_vocab_embedding_bytes", m.other_bytes}});
    lora["modules"] = modules;
    j["lora"] = lora;
  }
  j["gpu_kv_cache_tokens"] = r.gpu_kv_cache_tokens;
  j["max_concurrency"] = Round(r.max_concurrency, 4);
  nlohmann::json at = nlohmann::json::array();
  for (const auto& [tokens, requests] : r.concurrency_at) at.push_back({{"tokens", tokens}, {"requests", Round(requests, 4)}});
  j["max_concurrency_at"] = at;
  if (r.trace_mean_tokens > 0) j["trace_mean_tokens"] = r.trace_mean_tokens;  // present only with --trace
  j["baseline_1_2x_gib"] = Round(BytesToGiB(r.baseline_1_2x_bytes), 4);
  j["baseline_article003_gib"] = Round(BytesToGiB(r.baseline_article003_bytes), 4);
  j["modelled_one_request_gib"] = Round(BytesToGiB(r.modelled_one_request_bytes), 4);
  j["stages"] = nlohmann::json::array();
  for (const auto& st : r.stages) {
    j["stages"].push_back({{"stage", st.stage}, {"first_layer", st.first_layer}, {"end_layer", st.end_layer},
                           {"weights_gib", Round(BytesToGiB(st.weights.total_bytes()), 4)},
                           {"quantized_weights_gib", Round(BytesToGiB(st.weights.quantized_bytes), 4)},
                           {"rope_cache_gib", Round(BytesToGiB(st.weights.rope_cache_bytes), 4)},
                           {"forward_peak_gib", Round(BytesToGiB(st.overhead.forward_peak_bytes), 4)},
                           {"sampler_peak_gib", Round(BytesToGiB(st.overhead.sampler_peak_bytes), 4)},
                           {"activation_peak_gib", Round(BytesToGiB(st.overhead.activation_peak_bytes), 4)},
                           {"non_torch_gib", Round(BytesToGiB(st.overhead.non_torch_bytes), 4)},
                           {"kv_cache_gib", Round(BytesToGiB(st.kv_cache_bytes), 4)},
                           {"num_blocks", st.num_blocks}});
  }
  if (!r.offload_tiers.empty()) {
    nlohmann::json tiers = nlohmann::json::array();
    for (const auto& tier : r.offload_tiers)
      tiers.push_back({{"tier", tier.tier}, {"gib_per_replica", Round(BytesToGiB(tier.bytes_per_replica), 4)},
                       {"gib_per_gpu", Round(BytesToGiB(tier.bytes_per_gpu), 4)}, {"tokens", tier.tokens}});
    j["kv_offload"] = {{"connector", r.offload_connector}, {"tiers", tiers},
                       {"gpu_staging_gib", Round(BytesToGiB(r.offload_gpu_staging_bytes), 4)}};
  }
  j["notes"] = r.notes;
  return j;
}

}  // namespace kvsim
