// kvsim train: training and fine-tuning memory per GPU (weights, gradients, optimizer states,
// activations tensor by tensor, the articles' formulas beside them), whether it fits, and the
// largest micro-batch that does.
#include <boost/program_options.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/training/training_memory.h"
#include "kvcache/model/model_catalog.h"
#include "reports/train_report.h"
#include "cli/commands.h"
#include "cli/deployment_flags.h"
#include "cli/enum_option.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"
#include "cli/output.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

struct TrainFlags {
  std::string params;
  std::string find;
  std::string json_path;
  std::string report_path;
};

void AddTrainOptions(po::options_description& desc, TrainingSetup& s, TrainFlags& f, OutputFlags& outputs) {
  desc.add_options()
      ("params", po::value(&f.params), "count only: N parameters (e.g. 7.5e9) instead of --model")
      ("micro-batch-size", po::value(&s.micro_batch)->default_value(s.micro_batch), "sequences per micro-batch (B)")
      ("seq-len", po::value(&s.seq_len)->default_value(s.seq_len), "tokens per sequence (S)")
      ("precision", po::value(&s.precision)->default_value(s.precision, NameOf(s.precision)), Choices<TrainPrecision>().c_str())
      ("optimizer", po::value(&s.optimizer)->default_value(s.optimizer, NameOf(s.optimizer)), Choices<Optimizer>().c_str())
      ("recompute", po::value(&s.recompute)->default_value(s.recompute, NameOf(s.recompute)),
       "none | selective (the s^2 attention tensors) | full (each layer's input only)")
      ("flash-attention", po::bool_switch(&s.flash_attention), "FlashAttention: no s^2 score/softmax tensors")
      ("tensor-parallel-size", po::value(&s.tp)->default_value(1), "tensor-parallel GPUs (T)")
      ("sequence-parallel", po::bool_switch(&s.sequence_parallel), "Megatron sequence parallelism (needs T > 1)")
      ("pipeline-parallel-size", po::value(&s.pp)->default_value(1), "pipeline stages (P), 1F1B schedule")
      ("data-parallel-size", po::value(&s.dp)->default_value(1), "data-parallel GPUs (D), what ZeRO shards over")
      ("zero", po::value(&s.zero)->default_value(0), "ZeRO stage 0 | 1 (optimizer) | 2 (+ gradients) | 3 (+ weights)")
      ("offload-optimizer", po::bool_switch(&s.offload_optimizer), "optimizer states and step on the CPU")
      ("finetune", po::value(&s.finetune)->default_value(s.finetune, NameOf(s.finetune)), Choices<Finetune>().c_str())
      ("lora-rank", po::value(&s.lora_rank)->default_value(s.lora_rank), "LoRA rank r")
      ("lora-targets", po::value(&s.lora_targets)->default_value(s.lora_targets, NameOf(s.lora_targets)),
       Choices<LoraTargets>().c_str())
      ("find", po::value(&f.find), "micro-batch-size: the largest B that fits on --gpu");
  outputs.Json(f.json_path, "print JSON instead of the table, or write it to FILE", OutputFlags::JsonAlone::kPrintsInsteadOfTable)
      .File("report", f.report_path, "write an HTML report (FILE.html) and the chart as FILE.svg");
}

std::string SvgPathFor(const std::string& html_path) {
  const size_t dot = html_path.rfind('.');
  const size_t slash = html_path.rfind('/');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has_ext ? html_path.substr(0, dot) : html_path) + ".svg";
}

}  // namespace

int RunTrainCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  DeploymentOptions opts;
  TrainingSetup setup;
  TrainFlags flags;
  po::options_description desc(
      "kvsim train: training / fine-tuning memory per GPU and whether it fits\n\n"
      "Usage: kvsim train --model M | --params N  --micro-batch-size B --seq-len S [--precision ..] [--optimizer ..]\n"
      "                   [--recompute ..] [--flash-attention] [--tensor-parallel-size T] [--sequence-parallel]\n"
      "                   [--pipeline-parallel-size P] [--data-parallel-size D] [--zero 0..3] [--offload-optimizer]\n"
      "                   [--finetune full|lora|qlora] [--lora-rank R] [--lora-targets ..] [--gpu G]\n"
      "                   [--find micro-batch-size] [--json FILE|-] [--report FILE.html]\n"
      "Exits 2 when the job does not fit the GPU given with --gpu or --gpu-memory-gib.\n\n"
      "Options",
      /*line_length=*/110, /*min_description_length=*/60);
  desc.add_options()("help,h", "show this help");
  AddModelAndGpuOptions(desc, opts);
  OutputFlags outputs(desc);
  AddTrainOptions(desc, setup, flags, outputs);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  if (vm.count("help")) {
    out << desc << "\nExamples:\n"
        << "  kvsim train --model Qwen/Qwen2.5-7B --micro-batch-size 4 --seq-len 2048 --flash-attention --gpu h100\n"
        << "  kvsim train --model meta-llama/Llama-3.1-8B-Instruct --finetune qlora --lora-rank 16 --seq-len 4096 "
           "--recompute full --gpu l4 --find micro-batch-size\n";
    return kExitOk;
  }
  if (!flags.find.empty() && flags.find != "micro-batch-size")
    throw Error("--find: '" + flags.find + "' is not one of micro-batch-size");
  // The range checks of the text-valued GPU flags (--gpu-memory-gib 0 or -5 would size a GPU with
  // no memory or less than none), as every serving command runs them.
  ApplyDeploymentSwitches(vm, opts);
  outputs.Check(args);
  // Adapter settings of a full fine-tune would be ignored: refuse them.
  if (setup.finetune == Finetune::kFull)
    for (const char* flag : {"lora-rank", "lora-targets"})
      if (!vm[flag].defaulted()) throw Error(std::string("--") + flag + ": applies to --finetune lora or qlora (the run is a full fine-tune)");
  const bool count_only = !flags.params.empty();
  if (count_only && !vm["model"].defaulted()) throw Error("give --model or --params, not both");
  const Deployment d = ResolveDeployment(opts, DataDirectory());
  TrainReport report;
  if (count_only) {
    setup.params = ParseFiniteNumber(flags.params, "--params");
    report.model = Thousands(static_cast<int64_t>(setup.params)) + " parameters (count only)";
  } else {
    setup.model = d.model;
    report.model = d.model.name;
  }
  const double gib = d.config.gpu_memory_gib ? *d.config.gpu_memory_gib : d.gpu.cuda_total_gib;
  setup.gpu_memory_bytes = gib * kGiB;
  report.gpu = d.gpu.name + Format(" (%.2f GiB as CUDA reports)", gib);
  if (!flags.find.empty()) {
    report.max_micro_batch = FindMaxMicroBatch(setup);
    if (report.max_micro_batch == 0) {
      setup.micro_batch = 1;
      const TrainingMemory one = EstimateTrainingMemory(setup);
      throw Error(Format("--find micro-batch-size: even micro-batch 1 needs %.2f GiB on %s, %.2f GiB more than it has",
                         BytesToGiB(one.peak), d.gpu.name.c_str(), BytesToGiB(-one.margin)));
    }
    setup.micro_batch = report.max_micro_batch;
  }
  report.setup = setup;
  report.memory = EstimateTrainingMemory(setup);
  if (!flags.report_path.empty()) {
    WriteFileAtomically(flags.report_path, RenderTrainHtml(report));
    WriteFileAtomically(SvgPathFor(flags.report_path), RenderTrainSvg(report));
  }
  WriteAnswer(flags.json_path, RenderTrainText(report), [&] { return TrainToJson(report); }, out);
  // As `capacity` does for a deployment: a job that does not fit the GPU the user named is an
  // answer, and a failure. Without one the figures are the answer (the default GPU's fit is shown).
  const bool gpu_named = !vm["gpu"].defaulted() || vm.count("gpu-memory-gib") > 0;
  if (gpu_named && !report.memory.fits) {
    err << Format("kvsim train: error: does not fit: the peak needs %.2f GiB per GPU, %.2f GiB more than %s has\n",
                  BytesToGiB(report.memory.peak), BytesToGiB(-report.memory.margin), d.gpu.name.c_str());
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace kvsim
