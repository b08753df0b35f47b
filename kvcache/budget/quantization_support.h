// Where vLLM runs a weight format: the GPU's compute capability and the activation dtype each
// quantization config accepts. vLLM checks both before it loads anything and stops
// (VllmConfig._get_quantization_config), so kvsim refuses what it would refuse.
#ifndef KVSIM_KVCACHE_BUDGET_QUANTIZATION_SUPPORT_H_
#define KVSIM_KVCACHE_BUDGET_QUANTIZATION_SUPPORT_H_

#include "kvcache/budget/deployment_settings.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/numeric_format.h"
#include "kvcache/model/quantization.h"

namespace kvsim {

// From the configs in vllm/model_executor/layers/quantization/*.py: get_min_capability (fp8 80
// through Marlin below Ada, awq 75, gptq 60, bitsandbytes 70, mxfp4 80; 0: not checked here).
int MinComputeCapability(const QuantizationSpec& spec);

// get_supported_act_dtypes: only bitsandbytes of these takes float32 (the what-ifs int8/int4 are
// not checked).
bool RunsWithFloat32Activations(const QuantizationSpec& spec);

// Throws kvsim::Error naming the format, the GPU or the dtype when vLLM (c.engine) would refuse to
// start with `quant` on `gpu` in `dtype`.
void CheckQuantizationRuns(const QuantizationSpec& quant, NumericFormat dtype, const GpuSpec& gpu,
                           const DeploymentConfig& c);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_QUANTIZATION_SUPPORT_H_
