// Fits the step model's kernel efficiencies to measured per-operator GPU timings (Vidur profiles,
// kernel_profile.h) of one GPU:
//   GEMMs        gemm_compute, gemm_memory and gemm_floor_us, against every projection of every row
//                (QKV, O, MLP up and down), timed by gemm_time.h on the row's own shapes;
//   elementwise  elementwise_memory and kernel_floor_us, against the norm, activation and residual
//                kernels (bytes read and written at a bandwidth, plus a floor).
// The loss is the mean squared log ratio predicted/measured, so a kernel 2× too slow weighs as much
// as one 2× too fast; each parameter is searched within physical bounds by coordinate descent
// (golden-section line searches). The other efficiencies keep their values.
#ifndef KVSIM_SIM_PROFILE_FIT_H_
#define KVSIM_SIM_PROFILE_FIT_H_

#include <string>
#include <vector>

#include "kvcache/model/gpu_catalog.h"
#include "sim/timing/calibration.h"
#include "sim/timing/kernel_profile.h"

namespace kvsim {

struct KernelProfile {
  std::string source;                  // the file
  std::vector<KernelProfileRow> rows;
};

// How well `efficiency` reproduces the profiles' GEMM and elementwise kernels, one fit per file and kind.
std::vector<CalibrationFit> ProfileFitQuality(const std::vector<KernelProfile>& profiles, const GpuSpec& gpu,
                                             const KernelEfficiency& efficiency);

// The efficiencies that best reproduce the profiles, starting from `start`. Throws kvsim::Error when
// the GPU lacks its 16-bit peak or bandwidth, or the profiles hold no rows.
Calibration FitKernelProfiles(const std::vector<KernelProfile>& profiles, const GpuSpec& gpu, const KernelEfficiency& start);

}  // namespace kvsim

#endif  // KVSIM_SIM_PROFILE_FIT_H_
