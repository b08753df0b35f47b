#include "sim/timing/recurrent_state.h"

namespace kvsim {

RecurrentStateTraffic RecurrentStateOf(const ModelSpec& spec, const CapacityResult& capacity) {
  RecurrentStateTraffic t;
  double bytes = 0;
  for (const StageCapacity& st : capacity.stages) {
    if (st.layout.state_page_bytes <= 0) continue;
    int64_t layers = 0;
    for (int64_t i = st.first_layer; i < st.end_layer && i < static_cast<int64_t>(spec.layers.size()); ++i)
      layers += spec.layers[static_cast<size_t>(i)].has_mixer && spec.layers[static_cast<size_t>(i)].kind == AttentionKind::kStateOnly;
    t.layers += static_cast<double>(layers);
    bytes += static_cast<double>(layers) * static_cast<double>(st.layout.state_page_bytes);
  }
  // Every stage holds the same state shape (one TP rank's page), so a mean over layers is that page.
  if (t.layers > 0) t.bytes_per_layer = bytes / t.layers;
  return t;
}

}  // namespace kvsim
