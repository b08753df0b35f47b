#include "sim/plan/plan_answer.h"

#include <map>

namespace kvsim {

std::vector<RejectedFamily> RejectedFamilies(const PlanAnswer& a) {
  std::vector<RejectedFamily> out;
  std::map<std::string, size_t> index;
  std::map<std::string, bool> any_found;  // a family with one configuration that meets the SLOs is not rejected
  for (size_t i = 0; i < a.result.plans.size(); ++i) any_found[a.space.configs[i].Family()] |= a.result.plans[i].found;
  for (size_t i = 0; i < a.result.plans.size(); ++i) {
    const ConfigPlan& p = a.result.plans[i];
    if (p.found || p.replays == 0) continue;  // found, or never replayed (bounded away, or a stop)
    const std::string family = a.space.configs[i].Family();
    if (any_found[family]) continue;
    auto [it, added] = index.emplace(family, out.size());
    if (added) out.push_back({family, 0, i});
    RejectedFamily& f = out[it->second];
    ++f.configurations;
    if (p.outcome.distance < a.result.plans[f.nearest].outcome.distance) f.nearest = i;
  }
  return out;
}

}  // namespace kvsim
