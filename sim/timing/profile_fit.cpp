#include "sim/timing/profile_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "kvcache/base/error.h"
#include "sim/timing/gemm_time.h"

namespace kvsim {
namespace {

constexpr double kFp16Bytes = 2;

struct GemmPoint {
  GemmShape shape;
  double measured_s;
};

struct ElementwisePoint {
  double bytes;
  double measured_s;
};

std::vector<GemmShape> RowGemms(const KernelProfileRow& r) {
  const int64_t head_dim = r.hidden / r.heads, heads = r.heads / r.tp;
  const int64_t kv_heads = std::max<int64_t>(1, r.kv_heads / r.tp), ffn = r.ffn / r.tp;
  auto shape = [&](int64_t n, int64_t k) {
    return GemmShape{r.tokens, n, k, static_cast<double>(n) * static_cast<double>(k) * kFp16Bytes, kFp16Bytes, 1.0};
  };
  return {shape((heads + 2 * kv_heads) * head_dim, r.hidden), shape(r.hidden, heads * head_dim),
          shape((r.gated ? 2 : 1) * ffn, r.hidden), shape(r.hidden, ffn)};
}

std::vector<GemmPoint> GemmPoints(const std::vector<KernelProfileRow>& rows) {
  std::vector<GemmPoint> points;
  for (const KernelProfileRow& r : rows) {
    const std::vector<GemmShape> shapes = RowGemms(r);
    const double measured[] = {r.qkv_s, r.o_s, r.up_s, r.down_s};
    for (size_t i = 0; i < shapes.size(); ++i)
      if (measured[i] > 0) points.push_back({shapes[i], measured[i]});
  }
  return points;
}

// Norm: reads x, writes y. Activation (SiLU and multiply): reads gate and up, writes one. Residual
// add: reads two, writes one.
std::vector<ElementwisePoint> ElementwisePoints(const std::vector<KernelProfileRow>& rows) {
  std::vector<ElementwisePoint> points;
  for (const KernelProfileRow& r : rows) {
    const double t = static_cast<double>(r.tokens), h = static_cast<double>(r.hidden);
    const double ffn = static_cast<double>(r.ffn / r.tp);
    if (r.norm_s > 0) points.push_back({2 * t * h * kFp16Bytes, r.norm_s});
    if (r.act_s > 0) points.push_back({(r.gated ? 3 : 2) * t * ffn * kFp16Bytes, r.act_s});
    if (r.add_s > 0) points.push_back({3 * t * h * kFp16Bytes, r.add_s});
  }
  return points;
}

GemmDevice DeviceOf(const GpuSpec& gpu, const KernelEfficiency& e) {
  const double peak = DensePeakFlops(gpu, NumericFormat::kFloat16);
  if (!(peak > 0) || !(gpu.mem_bandwidth_bytes_per_s > 0))
    throw Error("GPU '" + gpu.id + "' lacks its 16-bit tensor peak or memory bandwidth: give --gpu-tflops/--gpu-bandwidth");
  return {peak, gpu.mem_bandwidth_bytes_per_s, gpu.sm_count, e.gemm_compute, e.gemm_memory, e.gemm_floor_us * 1e-6};
}

double ElementwiseSeconds(double bytes, const GpuSpec& gpu, const KernelEfficiency& e) {
  return bytes / (gpu.mem_bandwidth_bytes_per_s * e.elementwise_memory) + e.kernel_floor_us * 1e-6;
}

std::vector<double> GemmRatios(const std::vector<GemmPoint>& points, const GpuSpec& gpu, const KernelEfficiency& e) {
  const GemmDevice d = DeviceOf(gpu, e);
  std::vector<double> r;
  r.reserve(points.size());
  for (const GemmPoint& p : points) r.push_back(GemmSeconds(p.shape, d) / p.measured_s);
  return r;
}

std::vector<double> ElementwiseRatios(const std::vector<ElementwisePoint>& points, const GpuSpec& gpu,
                                      const KernelEfficiency& e) {
  std::vector<double> r;
  r.reserve(points.size());
  for (const ElementwisePoint& p : points) r.push_back(ElementwiseSeconds(p.bytes, gpu, e) / p.measured_s);
  return r;
}

double MeanSquaredLog(const std::vector<double>& ratios) {
  double sum = 0;
  for (double r : ratios) sum += std::log(r) * std::log(r);
  return ratios.empty() ? 0 : sum / static_cast<double>(ratios.size());
}

CalibrationFit Quality(const std::string& kind, const std::string& source, std::vector<double> ratios) {
  CalibrationFit f;
  f.kind = kind;
  f.source = source;
  f.points = static_cast<int64_t>(ratios.size());
  if (ratios.empty()) return f;
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  f.median_ratio = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  std::vector<double> abs_log;
  for (double r : ratios) abs_log.push_back(std::fabs(std::log(r)));
  std::sort(abs_log.begin(), abs_log.end());
  f.p90_abs_log_error = abs_log[std::min(n - 1, static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1)];
  f.within_20_percent = static_cast<double>(std::count_if(ratios.begin(), ratios.end(),
                                                          [](double r) { return r >= 0.8 && r <= 1.25; })) /
                        static_cast<double>(n);
  return f;
}

// Golden-section search of `loss` over `value` in [lo, hi] (the loss is unimodal in each parameter
// near its optimum); leaves `value` at the best point found.
void LineSearch(double& value, double lo, double hi, const std::function<double()>& loss) {
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi;
  for (int i = 0; i < 40 && b - a > 1e-4 * (hi - lo); ++i) {
    const double c = b - phi * (b - a), d = a + phi * (b - a);
    value = c;
    const double fc = loss();
    value = d;
    const double fd = loss();
    if (fc < fd) b = d;
    else a = c;
  }
  value = (a + b) / 2;
}

}  // namespace

std::vector<CalibrationFit> ProfileFitQuality(const std::vector<KernelProfile>& profiles, const GpuSpec& gpu,
                                             const KernelEfficiency& e) {
  std::vector<CalibrationFit> fits;
  for (const KernelProfile& p : profiles) {
    fits.push_back(Quality("gemm", p.source, GemmRatios(GemmPoints(p.rows), gpu, e)));
    fits.push_back(Quality("elementwise", p.source, ElementwiseRatios(ElementwisePoints(p.rows), gpu, e)));
  }
  return fits;
}

Calibration FitKernelProfiles(const std::vector<KernelProfile>& profiles, const GpuSpec& gpu, const KernelEfficiency& start) {
  std::vector<GemmPoint> gemms;
  std::vector<ElementwisePoint> elementwise;
  Calibration c;
  c.gpu_id = gpu.id;
  for (const KernelProfile& p : profiles) {
    const auto g = GemmPoints(p.rows);
    const auto e = ElementwisePoints(p.rows);
    gemms.insert(gemms.end(), g.begin(), g.end());
    elementwise.insert(elementwise.end(), e.begin(), e.end());
    c.sources.push_back(p.source);
  }
  if (gemms.empty()) throw Error("calibrate: the profiles hold no GEMM timings");
  KernelEfficiency& e = c.efficiency;
  e = start;
  auto gemm_loss = [&] { return MeanSquaredLog(GemmRatios(gemms, gpu, e)); };
  for (int sweep = 0; sweep < 4; ++sweep) {
    LineSearch(e.gemm_compute, 0.2, 1.0, gemm_loss);
    LineSearch(e.gemm_memory, 0.2, 1.0, gemm_loss);
    LineSearch(e.gemm_floor_us, 0.0, 50.0, gemm_loss);
  }
  if (!elementwise.empty()) {
    auto loss = [&] { return MeanSquaredLog(ElementwiseRatios(elementwise, gpu, e)); };
    for (int sweep = 0; sweep < 4; ++sweep) {
      LineSearch(e.elementwise_memory, 0.1, 1.0, loss);
      LineSearch(e.kernel_floor_us, 0.0, 50.0, loss);
    }
  }
  c.fits = ProfileFitQuality(profiles, gpu, e);
  return c;
}

}  // namespace kvsim
