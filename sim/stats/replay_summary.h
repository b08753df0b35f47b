// The result of one replay, typed: what every output format (console, JSON, HTML, sweep tables)
// renders and what sweeps judge. Rates, shares and latencies are rounded as reported (shares and
// rates to 10^-6, latencies to 1 µs, memory to 10^-4 GiB), so a decision taken on these numbers
// is the one a reader can check against the printed ones.
#ifndef KVSIM_SIM_REPLAY_SUMMARY_H_
#define KVSIM_SIM_REPLAY_SUMMARY_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/kv_allocator.h"
#include "sim/engine/engine_kinds.h"
#include "sim/fleet/router.h"
#include "sim/stats/disagg_summary.h"
#include "sim/stats/latency_stats.h"
#include "sim/stats/lora_summary.h"
#include "sim/stats/offload_summary.h"
#include "sim/stats/summary_field.h"
#include "workloads/trace_window.h"

namespace kvsim {

// Shares of the KV pool by category, time-averaged.
using WasteShares = std::array<double, kNumWasteCategories>;

struct FleetSummary;  // below: per-replica summaries of a fleet replay

// Was the offered load served? (sim/stats/load_check.h). Measured over the second half of the arrival
// window [T/2, T] (T: the last arrival): requests finished there against requests that arrived
// there, the mean waiting queue over [0.8T, 0.9T] against [0.9T, T], and the backlog left waiting.
struct LoadCheck {
  bool applicable = false;   // at least 20 arrivals and 1 s in the window
  double offered_rps = 0, finished_rps = 0;
  double served_ratio = 0;   // finished_rps / offered_rps
  double waiting_before = 0, waiting_end = 0;
  bool queue_growing = false;
  double backlog_fraction = 0;  // waiting_end / every arrival
  bool served = true;        // served_ratio >= 0.99, the queue not growing and backlog_fraction <= 1% (true
                             // when not applicable); growing: waiting_end > 1.05 x waiting_before + 1
};

// --gpu-hourly-cost: what the replayed span costs.
struct CostSummary {
  double gpu_hourly_usd = 0;
  int64_t gpus = 0;                      // replicas x TP x PP
  double gpu_hours = 0;                  // gpus x simulated time
  double usd = 0;
  double usd_per_million_output_tokens = 0;
  double output_tokens_per_s_per_gpu = 0;
};

// The plain sections (requests, concurrency, kv, throughput, goodput, memory_gib) list their figures
// once in Fields(): a figure added to one of them and to its Fields() appears in the JSON, the MPI
// wire, the sweep CSV and the HTML report (sim/stats/summary_fields.h; a member missing from
// Fields() does not compile). Fields() gives each figure's JSON key, unit and outputs; kOwnRow marks
// the figures the CSV and HTML already show in rows of their own.
struct ReplaySummary {
  static constexpr FieldOutputs kOwnRow = FieldOutputs::kJsonAndWire;
  struct Requests {
    int64_t total = 0, finished = 0, rejected = 0, preemptions = 0;
    std::map<std::string, int64_t> rejected_by_reason;  // not a plain figure: the JSON writes it itself
    static constexpr auto Fields() {
      return std::tuple{Field("total", "requests", &Requests::total, kOwnRow),
                        Field("finished", "requests", &Requests::finished, kOwnRow),
                        Field("rejected", "requests", &Requests::rejected, kOwnRow),
                        Field("preemptions", "preemptions", &Requests::preemptions, kOwnRow)};
    }
  } requests;
  struct Concurrency {
    int64_t peak_running = 0;
    double mean_running = 0;  // time-weighted
    int64_t peak_waiting = 0;
    static constexpr auto Fields() {
      return std::tuple{Field("peak_running", "requests", &Concurrency::peak_running, kOwnRow),
                        Field("mean_running", "requests (time-weighted)", &Concurrency::mean_running, kOwnRow),
                        Field("peak_waiting", "requests", &Concurrency::peak_waiting, kOwnRow)};
    }
  } concurrency;
  struct Kv {
    int64_t num_blocks = 0;   // paged pool; 0 for contiguous allocators
    int64_t block_size = 0;
    int64_t peak_used_blocks = 0;
    double peak_used_fraction = 0;  // of the usable blocks (all but the null block)
    static constexpr auto Fields() {
      return std::tuple{Field("num_blocks", "blocks", &Kv::num_blocks, kOwnRow),
                        Field("block_size", "tokens", &Kv::block_size, kOwnRow),
                        Field("peak_used_blocks", "blocks", &Kv::peak_used_blocks, kOwnRow),
                        Field("peak_used_fraction", "of the usable blocks", &Kv::peak_used_fraction, kOwnRow)};
    }
  } kv;
  WasteShares waste{};            // whole run
  WasteShares waste_saturated{};  // only while requests wait
  double saturated_time_fraction = 0;
  struct PrefixCache {
    int64_t queried_tokens = 0, hit_tokens = 0;
    double hit_rate = 0;  // first admissions
    // Re-admissions of preempted requests (their own cached prompt blocks; in JSON only when any hit).
    int64_t readmission_queried_tokens = 0, readmission_hit_tokens = 0;
    double readmission_hit_rate = 0;
  } prefix_cache;
  // The mean of each term of the time to first token as a client measures it, in seconds; they sum to
  // latency_s.ttft.mean. Client side (API server process): api_server (HTTP, JSON, AsyncLLM hand-off,
  // first SSE chunk) and tokenization. Engine side: step_in_flight, async_scheduling, wait, prefill.
  struct TtftComponents {
    double api_server = 0, tokenization = 0, step_in_flight = 0, async_scheduling = 0, wait = 0, prefill = 0;
    template <typename F>
    void ForEach(F&& f) const {
      f("api_server", api_server), f("tokenization", tokenization), f("step_in_flight", step_in_flight);
      f("async_scheduling", async_scheduling), f("wait", wait), f("prefill", prefill);
    }
  };
  struct Latency {
    LatencySummary queue;
    // Time to first token as a benchmark client measures it (request sent to first streamed token):
    // the server's ttft plus the API server's work, tokenization and streaming (request_path.h).
    LatencySummary ttft;
    LatencySummary client_ttft;  // the same figure under the name earlier summaries gave it
    LatencySummary server_ttft;  // engine side: the request reaching the engine core to its first token sampled
    LatencySummary tpot;         // per request: (last token - first token) / (output tokens - 1)
    LatencySummary itl;          // per token: the wait between a request's consecutive tokens
    LatencySummary e2e;
    // Every distribution with its report name, in the order reports list them.
    std::array<std::pair<const char*, const LatencySummary*>, 7> Named() const {
      return {{{"queue", &queue}, {"ttft", &ttft}, {"client_ttft", &client_ttft}, {"server_ttft", &server_ttft},
               {"tpot", &tpot}, {"itl", &itl}, {"e2e", &e2e}}};
    }
    TtftComponents ttft_components;  // mean seconds per term of ttft
  } latency_s;
  struct Throughput {
    double requests_per_s = 0, output_tokens_per_s = 0, simulated_s = 0;
    double offered_requests_per_s = 0;  // arrivals over the trace's span, as replayed
    static constexpr auto Fields() {
      return std::tuple{Field("requests_per_s", "requests/s", &Throughput::requests_per_s, kOwnRow),
                        Field("output_tokens_per_s", "tokens/s", &Throughput::output_tokens_per_s, kOwnRow),
                        Field("simulated_s", "s", &Throughput::simulated_s, kOwnRow),
                        Field("offered_requests_per_s", "requests/s", &Throughput::offered_requests_per_s, kOwnRow)};
    }
  } throughput;
  struct Goodput {
    double requests_per_s = 0;
    double fraction = 0;  // of finished requests within the per-request SLOs
    double slo_ttft_s = 0, slo_tpot_s = 0;
    static constexpr auto Fields() {
      return std::tuple{Field("requests_per_s", "requests/s", &Goodput::requests_per_s, kOwnRow),
                        Field("fraction", "of finished requests", &Goodput::fraction, kOwnRow),
                        Field("slo_ttft_s", "s", &Goodput::slo_ttft_s, kOwnRow),
                        Field("slo_tpot_s", "s", &Goodput::slo_tpot_s, kOwnRow)};
    }
  } goodput;
  struct Memory {  // GiB per GPU
    double weights = 0, activation = 0, non_torch = 0, kv_pool = 0, kv_peak_used = 0, peak_total = 0;
    static constexpr auto Fields() {
      return std::tuple{Field("weights", "GiB per GPU", &Memory::weights, kOwnRow),
                        Field("activation", "GiB per GPU", &Memory::activation, kOwnRow),
                        Field("non_torch", "GiB per GPU", &Memory::non_torch, kOwnRow),
                        Field("kv_pool", "GiB per GPU", &Memory::kv_pool, kOwnRow),
                        Field("kv_peak_used", "GiB per GPU", &Memory::kv_peak_used, kOwnRow),
                        Field("peak_total", "GiB per GPU", &Memory::peak_total, kOwnRow)};
    }
  } memory_gib;
  struct Sim {
    double wall_s = 0;
    int64_t events = 0, steps = 0;
    Stepping stepping = Stepping::kEvent;
    bool exact_quantiles = true;  // false: some latency quantile came from the sketch (±0.5%)
    // Speculative decoding (0 without): drafts verified and accepted, and the proposer's time.
    int64_t draft_tokens = 0, accepted_tokens = 0, verify_steps = 0;
    double drafting_s = 0;
  } sim;
  struct Config {
    EffectiveSettings settings;
    std::string trace;           // the file, or the synthetic workload's description
    SchedulerKind scheduler = SchedulerKind::kVllmV1;
    std::string allocator;       // "paged", "contiguous/max/first-fit"
    std::string step_time_model; // StepModel::Describe(): which model and calibration timed the steps
    uint64_t seed = 0;
    WindowOptions window;
  } config;
  int64_t trace_skipped_rows = 0;
  std::vector<std::string> warnings;
  bool partial = false;  // interrupted: the figures cover the replay so far
  LoadCheck load_check;                          // reported in sweeps, and in JSON with fleet/cost
  std::optional<CostSummary> cost;               // only with --gpu-hourly-cost
  std::shared_ptr<const FleetSummary> fleet;     // only for --replicas > 1
  std::shared_ptr<const OffloadSummary> offload; // only with KV tiers below the GPU (--kv-offload)
  std::shared_ptr<const DisaggSummary> disagg;   // only for --prefill-replicas/--decode-replicas
  std::shared_ptr<const LoraSummary> lora;       // only with --enable-lora
};

struct FleetSummary {
  int64_t replicas = 0;
  RouterKind router = RouterKind::kRoundRobin;
  std::vector<ReplaySummary> per_replica;
  std::vector<int64_t> routed;  // requests routed to each replica
  struct Spread {
    double max = 0, mean = 0;
  };
  // Imbalance: requests routed, peak KV use and prefix hit rate across replicas.
  Spread load, kv_peak_used_fraction, prefix_hit_rate;
  // Load over time: requests in each replica (running + waiting) as the router saw them at each
  // arrival, the maximum per interval; at most 512 intervals (their width doubles as the run grows).
  double load_interval_s = 0;
  std::vector<std::vector<int64_t>> load_over_time;  // [replica][interval]
};

}  // namespace kvsim

#endif  // KVSIM_SIM_REPLAY_SUMMARY_H_
