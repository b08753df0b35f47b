// kvsim step: the predicted time of one engine iteration for a batch, with the breakdown.
#include <boost/program_options.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/model/model_catalog.h"
#include "reports/step_report.h"
#include "cli/commands.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"
#include "cli/deployment_flags.h"
#include "cli/output.h"
#include "cli/shared_flags.h"
#include "cli/step_model_flags.h"
#include "kvcache/budget/speculative_memory.h"
#include "sim/run/speculation_setup.h"
#include "sim/timing/speculative_step.h"
#include "sim/timing/step_model.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

constexpr int64_t kMaxCount = 1000000;        // sequences or tokens per step
constexpr int64_t kMaxContext = 100000000;    // tokens

void CheckRange(int64_t v, int64_t lo, int64_t hi, const char* flag) {
  if (v < lo || v > hi)
    throw Error(Format("--%s: %lld is outside [%lld, %lld]", flag, static_cast<long long>(v), static_cast<long long>(lo),
                       static_cast<long long>(hi)));
}

StepWork WorkOf(const StepBatch& b) {
  CheckRange(b.decode_seqs, 0, kMaxCount, "decode-seqs");
  CheckRange(b.decode_context, 0, kMaxContext, "decode-context");
  CheckRange(b.prefill_seqs, 0, kMaxCount, "prefill-seqs");
  CheckRange(b.prefill_tokens, b.prefill_seqs > 0 ? 1 : 0, kMaxCount, "prefill-tokens");
  CheckRange(b.prefill_context, 0, kMaxContext, "prefill-context");
  if (b.decode_seqs == 0 && b.prefill_seqs == 0)
    throw Error("no batch: give --decode-seqs D [--decode-context K] and/or --prefill-seqs P --prefill-tokens N");
  if (b.prefill_seqs * b.prefill_tokens + b.decode_seqs > kMaxCount)
    throw Error(Format("the batch has more than %lld new tokens", static_cast<long long>(kMaxCount)));
  StepWork w;
  if (b.decode_seqs > 0) w.Add(1, b.decode_context, b.decode_seqs);
  if (b.prefill_seqs > 0) w.Add(b.prefill_tokens, b.prefill_context, b.prefill_seqs);
  return w;
}

// vLLM's scheduler never forms a batch past its running cap, its token budget or its KV cache
// (vllm/v1/core/sched/scheduler.py: max_num_running_reqs, token_budget, kv_cache_manager.allocate_slots),
// so the time of one would answer for a step the server never runs. The caps are held to when given
// (a contradiction on the command line); left at their defaults (and past the KV cache), step stays a
// what-if calculator for any batch.
void RefuseBatchTheServerCannotForm(const StepBatch& b, const CapacityResult& cap, const po::variables_map& vm) {
  const int64_t seqs = b.decode_seqs + b.prefill_seqs;
  const int64_t new_tokens = b.decode_seqs + b.prefill_seqs * b.prefill_tokens;
  if (vm.count("max-num-seqs") && seqs > cap.settings.max_num_seqs)
    throw Error(Format("the batch has %lld sequences (--decode-seqs + --prefill-seqs) but --max-num-seqs is %lld; "
                       "vLLM never runs more at once", static_cast<long long>(seqs),
                       static_cast<long long>(cap.settings.max_num_seqs)));
  if (vm.count("max-num-batched-tokens") && new_tokens > cap.settings.max_num_batched_tokens)
    throw Error(Format("the batch computes %lld new tokens but --max-num-batched-tokens is %lld; vLLM's scheduler "
                       "never schedules more in one step (a longer prefill is chunked over steps)",
                       static_cast<long long>(new_tokens), static_cast<long long>(cap.settings.max_num_batched_tokens)));
}

// With --speculative-config: the verify pass, the drafter's passes and what they give per token.
void AddSpeculation(const Deployment& d, const CapacityResult& cap, const StepModel& model,
                    const StepModelOptions& model_options, const StepBatch& b, const std::string& spec_acceptance,
                    StepReport& report) {
  const SpeculativeSettings& sp = d.config.speculative;
  if (!sp.method.empty() && sp.num_speculative_tokens == 0)
    throw Error("--speculative-config: give num_speculative_tokens (k >= 1): the step verifies k drafts per sequence");
  const std::vector<double> rates = ResolveAcceptanceRates(sp, spec_acceptance, "step");
  if (rates.empty()) return;
  if (b.decode_seqs == 0)
    throw Error("--speculative-config: drafts are proposed and verified for decoding sequences; give --decode-seqs D "
                "(a prefill chunk is not speculated)");
  if (b.decode_seqs * (1 + sp.num_speculative_tokens) + b.prefill_seqs * b.prefill_tokens > kMaxCount)
    throw Error(Format("the verify pass (%lld tokens per decoding sequence) has more than %lld new tokens",
                       static_cast<long long>(1 + sp.num_speculative_tokens), static_cast<long long>(kMaxCount)));
  const std::unique_ptr<DraftingTimer> proposer = MakeProposerTimer(d, cap, model_options);
  StepWork prefills;
  if (b.prefill_seqs > 0) prefills.Add(b.prefill_tokens, b.prefill_context, b.prefill_seqs);
  SpeculativeStepReport s;
  s.method = sp.method;
  s.step = TimeSpeculativeStep(model, proposer.get(), ProposerPasses(sp), b.decode_seqs, b.decode_context, prefills, rates);
  if (s.step.proposer_passes > 0) s.proposer = cap.draft_what.empty() ? sp.method + " drafter" : cap.draft_what;
  else if (ClassifyProposer(sp) == ProposerKind::kNgram) s.proposer = "n-gram matching on the CPU (no GPU time)";
  s.note = UntimedProposerNote(sp);
  report.speculative = std::move(s);
}

}  // namespace

int RunStepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  DeploymentOptions opts;
  StepModelFlags model_flags;
  StepBatch batch;
  std::string json_path, spec_acceptance;
  po::options_description desc(
      "kvsim step: the predicted time of one engine iteration (one forward pass over a batch) and where it goes\n\n"
      "Usage: kvsim step [--model M] [--gpu G] [-tp T] [--dtype ..] [-q ..] [--kv-cache-dtype ..]\n"
      "                  [--decode-seqs D --decode-context K] [--prefill-seqs P --prefill-tokens N --prefill-context C]\n"
      "                  [--speculative-config JSON --spec-acceptance RATES] [--calibration FILE] [--json FILE|-]\n\n"
      "Options",
      /*line_length=*/110, /*min_description_length=*/60);
  desc.add_options()("help,h", "show this help")
      ("decode-seqs", po::value(&batch.decode_seqs)->default_value(0), "sequences decoding one token each")
      ("decode-context", po::value(&batch.decode_context)->default_value(0), "tokens already in each decoding sequence's KV cache")
      ("prefill-seqs", po::value(&batch.prefill_seqs)->default_value(0), "sequences prefilling a chunk")
      ("prefill-tokens", po::value(&batch.prefill_tokens)->default_value(0), "prompt tokens each prefill computes this step")
      ("prefill-context", po::value(&batch.prefill_context)->default_value(0),
       "tokens each prefilling sequence already has cached (earlier chunks, prefix-cache hits)");
  OutputFlags outputs(desc);
  outputs.Json(json_path, "print JSON instead of the table, or write it to FILE", OutputFlags::JsonAlone::kPrintsInsteadOfTable);
  AddSpecAcceptanceOption(desc, spec_acceptance);
  AddDeploymentOptions(desc, opts);
  AddStepModelOptions(desc, model_flags);
  po::variables_map vm;
  po::store(po::command_line_parser(ExpandShortParallelFlags(args)).options(desc).run(), vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  if (vm.count("help")) {
    out << desc << "\nExamples:\n"
        << "  kvsim step --model meta-llama/Llama-3.1-8B-Instruct --gpu a100-80gb --decode-seqs 64 --decode-context 2048\n"
        << "  kvsim step --model meta-llama/Llama-3.1-70B-Instruct --gpu h100 -tp 4 --prefill-seqs 1 --prefill-tokens 8192 --json -\n"
        << "  kvsim step --decode-seqs 16 --decode-context 1000 --speculative-config '{\"method\":\"eagle\",\"num_speculative_tokens\":3}' "
           "--spec-acceptance 0.8\n";
    return kExitOk;
  }
  ApplyDeploymentSwitches(vm, opts);
  outputs.Check(args);
  const StepWork work = WorkOf(batch);
  const Deployment d = ResolveDeployment(opts, DataDirectory());
  const CapacityResult cap = PlanCapacity(d.model, d.gpu, d.config);
  // A sequence never holds more than max-model-len tokens (vLLM stops or refuses it there), so a
  // batch past it is not one the server runs.
  const int64_t max_len = cap.settings.max_model_len;
  if (batch.decode_seqs > 0 && batch.decode_context + 1 > max_len)
    throw Error(Format("--decode-context: %lld tokens plus the one decoded exceed max-model-len %lld; a sequence never "
                       "grows past it (raise --max-model-len if the model allows)",
                       static_cast<long long>(batch.decode_context), static_cast<long long>(max_len)));
  if (batch.prefill_seqs > 0 && batch.prefill_context + batch.prefill_tokens > max_len)
    throw Error(Format("--prefill-context + --prefill-tokens: %lld tokens exceed max-model-len %lld; vLLM refuses such a "
                       "prompt", static_cast<long long>(batch.prefill_context + batch.prefill_tokens),
                       static_cast<long long>(max_len)));
  RefuseBatchTheServerCannotForm(batch, cap, vm);
  StepModelOptions model_options;
  model_options.enforce_eager = d.config.enforce_eager;
  ApplyStepModelFlags(model_flags, model_options);
  const StepModel model(d.model, cap, d.gpu, model_options);

  StepReport report;
  report.settings = cap.settings;
  report.step_time_model = model.Describe();
  report.batch = batch;
  report.work = work;
  report.seconds = model.Breakdown(work);
  report.operators = model.Operators(work);
  report.moe = model.Moe();
  if (model.quantized_kernel().kernel != LowBitKernel::kNone) report.quantized_kernel = model.quantized_kernel().name;
  AddSpeculation(d, cap, model, model_options, batch, spec_acceptance, report);
  // A batch whose KV is more than the pool holds is timed, as a what-if, but said to be one: vLLM
  // would run part of it and keep the rest waiting or preempted.
  const int64_t held = batch.decode_seqs * (batch.decode_context + 1) +
                       batch.prefill_seqs * (batch.prefill_context + batch.prefill_tokens);
  if (cap.gpu_kv_cache_tokens > 0 && held > cap.gpu_kv_cache_tokens)
    report.notes.push_back(Format("the batch holds %lld tokens of KV, more than this deployment's %lld (GPU KV cache size): "
                                  "vLLM would not run it whole; the step is timed as a what-if",
                                  static_cast<long long>(held), static_cast<long long>(cap.gpu_kv_cache_tokens)));
  WriteAnswer(json_path, RenderStepText(report), [&] { return StepToJson(report); }, out);
  return kExitOk;
}

}  // namespace kvsim
