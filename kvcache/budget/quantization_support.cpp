#include "kvcache/budget/quantization_support.h"

#include <string>

#include "kvcache/base/error.h"

namespace kvsim {

int MinComputeCapability(const QuantizationSpec& spec) {
  if (spec.name == "fp8") return 80;
  if (spec.name == "awq") return 75;
  if (spec.name == "gptq") return 60;
  if (spec.name == "bitsandbytes") return 70;
  if (spec.name == "mxfp4") return 80;
  return 0;
}

bool RunsWithFloat32Activations(const QuantizationSpec& spec) {
  return spec.method == QuantMethod::kNone || spec.name == "bitsandbytes" || spec.name == "int8" ||
         spec.name == "int4";
}

void CheckQuantizationRuns(const QuantizationSpec& quant, NumericFormat dtype, const GpuSpec& gpu,
                           const DeploymentConfig& c) {
  if (c.engine != Engine::kVllm || quant.method == QuantMethod::kNone) return;
  const std::string method = c.quantization.empty() ? "the checkpoint's quantization_config (" + quant.name + ")"
                                                    : "--quantization " + quant.name;
  const int needs = MinComputeCapability(quant), has = ComputeCapability(gpu);
  if (needs > 0 && has > 0 && has < needs)
    throw Error(method + ": vLLM runs it on compute capability " + std::to_string(needs) + " and up; " + gpu.name +
                " (" + gpu.generation + ") has " + std::to_string(has) + ", so vLLM refuses to start");
  if (dtype == NumericFormat::kFloat32 && !RunsWithFloat32Activations(quant))
    throw Error(std::string(c.dtype.empty() || c.dtype == "auto" ? "the model's dtype float32" : "--dtype float32") +
                " with " + method + ": vLLM's kernels for it take float16 or bfloat16 activations only, so vLLM "
                "refuses to start; use --dtype bfloat16 or float16");
}

}  // namespace kvsim
