// StepTimer: how long one engine step takes, the one thing the replay engine asks of a timing
// model. Implementations: StepModel (per operator, sim/timing/step_model.h) and FixedStepTimer
// (every step the same length: tests derive schedules by hand on it). A new timer (speculative
// decoding's draft and verify passes, say) implements StepNs and DecodeRun.
//
// Decode runs: the engine takes runs of steps in which the same `sequences` requests decode one
// token each and only the context grows (sim/engine/replay_engine.h, quiet runs). A timer hands out
// a DecodeRunTimer per batch size that times such a run in one call; each step's time must equal
// StepNs of that step's work bit for bit.
#ifndef KVSIM_SIM_TIMING_STEP_TIMER_H_
#define KVSIM_SIM_TIMING_STEP_TIMER_H_

#include <cstdint>
#include <memory>
#include <string>

namespace kvsim {

// What one step computes, summed over the scheduled requests.
struct StepWork {
  int64_t new_tokens = 0;        // prefill chunk tokens + decode tokens (the GEMMs' M)
  int64_t context_tokens = 0;    // KV tokens read (each request's computed tokens before the step)
  int64_t attended = 0;          // Σ n_i·c_i + n_i·(n_i + 1)/2: causal (query, key) pairs
  int64_t sequences = 0;         // requests in the batch (one lm_head row each)
  // Speculative draft tokens the step verifies: vLLM v1 computes the target's logits at every one
  // of them besides each request's last position (gpu_model_runner.py _calc_spec_decode_metadata:
  // logits_indices hold 1 + k rows per decoding request; rejection_sampler.py reads the k draft rows
  // and samples the bonus row), so each adds an lm_head and sampler row.
  int64_t draft_tokens = 0;
  int64_t logits_rows() const { return sequences + draft_tokens; }

  // `count` requests each computing `tokens` new tokens after `context` cached ones.
  void Add(int64_t tokens, int64_t context, int64_t count = 1) {
    new_tokens += count * tokens;
    context_tokens += count * context;
    attended += count * (tokens * context + tokens * (tokens + 1) / 2);
    sequences += count;
  }
  // Every request computes exactly one token on top of its context (a decode-only step).
  bool DecodeOnly() const { return new_tokens == sequences && attended == context_tokens + sequences; }
};

// The steps of a decode run for one batch size.
class DecodeRunTimer {
 public:
  virtual ~DecodeRunTimer() = default;
  // StepNs of a decode-only step of this batch reading `context_tokens`.
  virtual int64_t Ns(int64_t context_tokens) const = 0;
  // Whether Ns never decreases as the context grows (observers then keep the run's samples sorted).
  virtual bool Nondecreasing() const = 0;
  // Times the steps of a run: step k reads context_tokens + k·stride and lasts Ns of that; out[k]
  // gets its duration. Steps are taken until the clock *now_ns reaches horizon_ns or `limit` steps
  // (at least one); returns how many, *now_ns advanced past them. The default asks Ns step by step.
  virtual int64_t TimeSteps(int64_t context_tokens, int64_t stride, int64_t limit, int64_t horizon_ns, int64_t* now_ns,
                            int64_t* out) const {
    int64_t steps = 0;
    do {
      out[steps] = Ns(context_tokens + steps * stride);
      *now_ns += out[steps++];
    } while (*now_ns < horizon_ns && steps < limit);
    return steps;
  }
};

class StepTimer {
 public:
  virtual ~StepTimer() = default;
  // The step's duration in integer nanoseconds (>= 1).
  virtual int64_t StepNs(const StepWork& work) const = 0;
  // The decode runs of `sequences` requests (>= 1).
  virtual std::unique_ptr<DecodeRunTimer> DecodeRun(int64_t sequences) const = 0;
  // The verify steps of speculative decoding: `sequences` requests each computing `tokens` tokens
  // (its last sampled token and tokens − 1 drafts, each draft a logits row) over their contexts; the
  // returned timer's Ns(c) is StepNs of such a step reading c context tokens, bit for bit. The
  // default asks StepNs every time.
  virtual std::unique_ptr<DecodeRunTimer> VerifyRun(int64_t sequences, int64_t tokens) const;
  // What the summary's config names the model: "per-operator (...)", "fixed 20 ms".
  virtual std::string Describe() const = 0;
};

// Every step lasts `step_ns`, whatever it computes.
class FixedStepTimer final : public StepTimer {
 public:
  explicit FixedStepTimer(int64_t step_ns) : step_ns_(step_ns) {}
  int64_t StepNs(const StepWork&) const override { return step_ns_; }
  std::unique_ptr<DecodeRunTimer> DecodeRun(int64_t sequences) const override;
  std::string Describe() const override;

 private:
  int64_t step_ns_;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_STEP_TIMER_H_
