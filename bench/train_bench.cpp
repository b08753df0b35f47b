// kvsim train's answer time: one estimate, and --find micro-batch-size, per model preset.
#include <benchmark/benchmark.h>

#include "kvcache/training/training_memory.h"
#include "kvcache/model/model_catalog.h"

namespace kvsim {
namespace {

void BM_TrainEstimate(benchmark::State& state) {
  const auto presets = ListModelPresets(DataDirectory());
  const std::string& preset = presets[static_cast<size_t>(state.range(0)) % presets.size()];
  TrainingSetup setup;
  setup.model = ResolveModel(preset, DataDirectory());
  setup.micro_batch = 8;
  setup.seq_len = 4096;
  setup.gpu_memory_bytes = 80.0 * 1024 * 1024 * 1024;
  for (auto _ : state) benchmark::DoNotOptimize(EstimateTrainingMemory(setup).peak);
  state.SetLabel(preset);
}
BENCHMARK(BM_TrainEstimate)->DenseRange(0, 33)->Unit(benchmark::kMicrosecond);

void BM_TrainFindMicroBatch(benchmark::State& state) {
  const auto presets = ListModelPresets(DataDirectory());
  const std::string& preset = presets[static_cast<size_t>(state.range(0)) % presets.size()];
  TrainingSetup setup;
  setup.model = ResolveModel(preset, DataDirectory());
  setup.seq_len = 2048;
  setup.finetune = Finetune::kQlora;
  setup.recompute = Recompute::kFull;
  setup.flash_attention = true;
  setup.gpu_memory_bytes = 80.0 * 1024 * 1024 * 1024;
  for (auto _ : state) benchmark::DoNotOptimize(FindMaxMicroBatch(setup));
  state.SetLabel(preset);
}
BENCHMARK(BM_TrainFindMicroBatch)->DenseRange(0, 33)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kvsim
