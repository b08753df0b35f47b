#include "reports/step_report.h"

#include <cmath>

#include "kvcache/base/text_format.h"
#include "kvcache/budget/all2all_backend.h"
#include "reports/capacity_report.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

double Nanos(double seconds) { return std::round(seconds * 1e9) / 1e9; }

std::string Ms(double seconds) { return Format("%.3f", seconds * 1e3); }

std::string Share(double part, double total) { return total > 0 ? Format("%.1f%%", 100 * part / total) : "-"; }

std::string BatchText(const StepBatch& b) {
  std::string text;
  if (b.decode_seqs > 0)
    text = Format("%lld decode sequences at context %lld", static_cast<long long>(b.decode_seqs),
                  static_cast<long long>(b.decode_context));
  if (b.prefill_seqs > 0)
    text += (text.empty() ? "" : " + ") + Format("%lld prefills of %lld tokens after %lld cached",
                                                 static_cast<long long>(b.prefill_seqs),
                                                 static_cast<long long>(b.prefill_tokens),
                                                 static_cast<long long>(b.prefill_context));
  return text;
}

std::string ComponentsText(const StepBreakdown& b) {
  const double total = b.total();
  TextTable parts({"component", "ms", "share"});
  const std::pair<const char*, double> rows[] = {
      {"linear", b.linear},   {"attention", b.attention},         {"other", b.other},
      {"lm_head", b.lm_head}, {"communication", b.communication}, {"overhead", b.overhead}};
  for (const auto& [name, v] : rows) parts.AddRow({name, Ms(v), Share(v, total)});
  parts.AddRow({"total", Ms(total), "100.0%"});
  return parts.Render();
}

std::string OperatorsText(const std::string& title, const std::vector<OperatorCost>& operators) {
  if (operators.empty()) return "";
  std::string out = "\n" + title + "\n";
  TextTable ops({"operator", "component", "kernels", "GFLOP", "MB moved", "ms"});
  for (const OperatorCost& op : operators)
    ops.AddRow({op.name, op.group, std::to_string(op.kernels), Format("%.2f", op.flops / 1e9), Format("%.2f", op.bytes / 1e6),
                Ms(op.seconds)});
  return out + ops.Render();
}

std::string SpeculativeText(const SpeculativeStepReport& r, const StepBatch& b) {
  const SpeculativeStep& s = r.step;
  const long long k = static_cast<long long>(s.tokens);
  const char* drafts = k == 1 ? "draft" : "drafts";
  std::string out = Format("\nSpeculative decoding (%s, %lld %s per decoding sequence); the step above is the plain one, "
                           "one token per decoding sequence\n", r.method.c_str(), k, drafts);
  out += Format("Verify pass: %lld decode sequences x %lld tokens (the last sampled token + %lld %s) at context %lld",
                static_cast<long long>(b.decode_seqs), k + 1, k, drafts, static_cast<long long>(b.decode_context));
  if (b.prefill_seqs > 0) out += " + the prefills";
  out += Format(" = %lld new tokens, %lld context tokens read\n", static_cast<long long>(s.verify_work.new_tokens),
                static_cast<long long>(s.verify_work.context_tokens));
  out += ComponentsText(s.verify);
  out += OperatorsText("Verify operators (summed over the layers; one TP rank):", s.verify_operators);
  if (s.proposer_passes > 0) {
    const DraftingTime& t = s.drafting;
    out += Format("\nProposer: %s, %lld pass%s = %s ms: the first over %lld sequences x %lld tokens (the last sampled "
                  "token + the drafts) at context %lld, %s ms; %lld more of 1 token, %s ms each; host work with the GPU "
                  "idle, %s ms (the drafter's inputs built after the read-back, %s ms; one pass's preparation)\n",
                  r.proposer.c_str(), static_cast<long long>(s.proposer_passes), s.proposer_passes == 1 ? "" : "es",
                  Ms(s.draft_seconds()).c_str(), static_cast<long long>(t.first_work.sequences),
                  static_cast<long long>(s.tokens + 1), static_cast<long long>(b.decode_context),
                  Ms(t.first_pass.total()).c_str(), static_cast<long long>(t.later_passes),
                  Ms(s.draft_pass.total()).c_str(), Ms(t.exposed_host_s).c_str(), Ms(t.prologue_s).c_str());
    out += "One pass of 1 token per sequence:\n";
    out += ComponentsText(s.draft_pass);
    out += OperatorsText("Proposer operators, one pass (summed over its layers; one TP rank):", s.draft_operators);
  } else {
    out += "\nProposer: " + (r.proposer.empty() ? r.method + ", time not modelled" : r.proposer) + ": 0 ms on the GPU\n";
  }
  std::string sum = "1";
  for (const double a : s.accepted_at) sum += Format(" + %.3f", a);
  out += Format("\nExpected tokens per step per decoding sequence: %s = %.3f\n", sum.c_str(), s.expected_tokens);
  out += Format("Time per output token: plain %s ms (one token per step); speculative (%s + %s ms) / %.3f = %s ms\n",
                Ms(s.plain_seconds_per_token()).c_str(), Ms(s.verify.total()).c_str(), Ms(s.draft_seconds()).c_str(),
                s.expected_tokens, Ms(s.seconds_per_token()).c_str());
  out += Format("Speculation %s at this batch: %.2fx the plain decode speed\n", s.pays() ? "pays" : "does not pay",
                s.plain_seconds_per_token() / s.seconds_per_token());
  if (!r.note.empty()) out += "Warning: " + r.note + "\n";
  return out;
}

nlohmann::json SecondsJson(const StepBreakdown& s) {
  return {{"linear", Nanos(s.linear)},   {"attention", Nanos(s.attention)},
          {"other", Nanos(s.other)},     {"lm_head", Nanos(s.lm_head)},
          {"communication", Nanos(s.communication)}, {"overhead", Nanos(s.overhead)},
          {"total", Nanos(s.total())}};
}

nlohmann::json OperatorsJson(const std::vector<OperatorCost>& operators) {
  nlohmann::json j = nlohmann::json::array();
  for (const OperatorCost& op : operators)
    j.push_back({{"name", op.name}, {"component", op.group}, {"kernels", op.kernels},
                 {"flops", op.flops}, {"bytes", op.bytes}, {"seconds", Nanos(op.seconds)}});
  return j;
}

nlohmann::json WorkJson(const StepWork& w) {
  return {{"sequences", w.sequences}, {"new_tokens", w.new_tokens}, {"context_tokens", w.context_tokens},
          {"attended_pairs", w.attended}};
}

nlohmann::json SpeculativeJson(const SpeculativeStepReport& r) {
  const SpeculativeStep& s = r.step;
  nlohmann::json j;
  j["method"] = r.method;
  j["num_speculative_tokens"] = s.tokens;
  j["acceptance_rates"] = s.accepted_at;
  j["expected_tokens_per_step"] = s.expected_tokens;
  j["verify"] = {{"batch", WorkJson(s.verify_work)}, {"seconds", SecondsJson(s.verify)},
                 {"operators", OperatorsJson(s.verify_operators)}};
  nlohmann::json p = {{"what", r.proposer}, {"on_gpu", s.proposer_passes > 0}, {"passes", s.proposer_passes},
                      {"seconds", Nanos(s.draft_seconds())}};
  if (s.proposer_passes > 0)
  {
    p["first_pass"] = {{"batch", WorkJson(s.drafting.first_work)}, {"seconds", SecondsJson(s.drafting.first_pass)}};
    p["pass"] = {{"batch", WorkJson(s.draft_work)}, {"seconds", SecondsJson(s.draft_pass)},
                 {"operators", OperatorsJson(s.draft_operators)}};
    p["later_passes"] = s.drafting.later_passes;
    p["exposed_host_seconds"] = Nanos(s.drafting.exposed_host_s);
    p["prologue_seconds"] = Nanos(s.drafting.prologue_s);  // part of exposed_host_seconds
  }
  j["proposer"] = std::move(p);
  j["step_seconds"] = Nanos(s.step_seconds());
  j["seconds_per_output_token"] = {{"plain", Nanos(s.plain_seconds_per_token())}, {"speculative", Nanos(s.seconds_per_token())}};
  j["speedup"] = s.plain_seconds_per_token() / s.seconds_per_token();
  j["pays"] = s.pays();
  j["warnings"] = nlohmann::json::array();
  if (!r.note.empty()) j["warnings"].push_back(r.note);
  return j;
}

// How the experts run, and what the step assumes about the other DP ranks.
std::string MoeText(const MoeLayout& m, const std::string& quantized_kernel) {
  std::string out = Format("\nMoE: %g experts, top %g, on %s", m.experts, m.top_k, m.kernel);
  if (!quantized_kernel.empty()) out += " (" + quantized_kernel + ")";
  if (m.expert_parallel)
    out += Format("; expert parallel over %d ranks, %g experts each", m.ranks, m.local_experts);
  else if (m.ranks > 1)
    out += Format("; every expert sliced over %d ranks", m.ranks);
  out += "\n";
  if (m.dp > 1)
    out += Format("DP %d: each DP rank is taken to run a batch like this one (vLLM steps the DP ranks together; idle ranks "
                  "run dummy batches), so the MoE layers see %d times this batch's tokens; tokens move by %s%s\n", m.dp, m.dp,
                  NameOf(m.all2all), m.expert_parallel && !GathersEveryToken(m.all2all) ? " (routed)" : " (gathered on every rank)");
  out += "experts_imbalance: each expert's rows padded to the kernel's M block";
  out += m.expert_parallel ? ", and the busiest rank's routed rows instead of the mean (uniform routing)\n" : " (uniform routing)\n";
  return out;
}

nlohmann::json MoeJson(const MoeLayout& m) {
  nlohmann::json j = {{"experts", m.experts},   {"top_k", m.top_k}, {"kernel", m.kernel}, {"ranks", m.ranks},
          {"data_parallel_size", m.dp}, {"expert_parallel", m.expert_parallel}, {"local_experts", m.local_experts},
          {"assumption", "every DP rank runs a batch like this one; routing uniform over the experts"}};
  if (m.dp > 1) j["all2all_backend"] = NameOf(m.all2all);
  return j;
}

}  // namespace

std::string RenderStepText(const StepReport& r) {
  const EffectiveSettings& s = r.settings;
  const std::string dcp = s.decode_context_parallel_size > 1 ? Format(", DCP %d", s.decode_context_parallel_size) : "";
  std::string out = Format("One engine step of %s on %s (TP %d%s, PP %d, dtype %s, quantization %s, KV %s)\n",
                           s.model.c_str(), s.gpu_name.c_str(), s.tensor_parallel_size, dcp.c_str(), s.pipeline_parallel_size,
                           s.dtype.c_str(), s.quantization.empty() ? "none" : s.quantization.c_str(),
                           s.kv_cache_dtype.c_str());
  out += "Batch: " + BatchText(r.batch) + Format(" = %lld new tokens, %lld context tokens read\n",
                                                 static_cast<long long>(r.work.new_tokens),
                                                 static_cast<long long>(r.work.context_tokens));
  out += "Step time model: " + r.step_time_model + "\n\n";
  out += ComponentsText(r.seconds);
  out += OperatorsText("Operators (summed over the layers; one TP rank):", r.operators);
  if (r.moe) out += MoeText(*r.moe, r.quantized_kernel);
  else if (!r.quantized_kernel.empty()) out += "\nQuantized GEMMs run on: " + r.quantized_kernel + "\n";
  if (r.speculative) out += SpeculativeText(*r.speculative, r.batch);
  for (const std::string& note : r.notes) out += "\nnote: " + note + "\n";
  out += "\nMB = 10^6 bytes; GFLOP = 10^9 floating-point operations; ms = 10^-3 s\n";
  return out;
}

nlohmann::json StepToJson(const StepReport& r) {
  nlohmann::json j;
  j["kvsim_version"] = KVSIM_VERSION;
  j["settings"] = SettingsToJson(r.settings);
  j["step_time_model"] = r.step_time_model;
  j["batch"] = {{"decode_seqs", r.batch.decode_seqs},       {"decode_context", r.batch.decode_context},
                {"prefill_seqs", r.batch.prefill_seqs},     {"prefill_tokens", r.batch.prefill_tokens},
                {"prefill_context", r.batch.prefill_context}, {"new_tokens", r.work.new_tokens},
                {"context_tokens", r.work.context_tokens},   {"attended_pairs", r.work.attended}};
  j["seconds"] = SecondsJson(r.seconds);
  j["operators"] = OperatorsJson(r.operators);
  if (r.speculative) j["speculative"] = SpeculativeJson(*r.speculative);
  if (r.moe) j["moe"] = MoeJson(*r.moe);
  if (!r.quantized_kernel.empty()) j["quantized_kernel"] = r.quantized_kernel;
  if (!r.notes.empty()) j["notes"] = r.notes;
  return j;
}

}  // namespace kvsim
