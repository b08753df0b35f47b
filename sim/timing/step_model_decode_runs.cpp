// StepModel::DecodeSteps (sim/timing/step_model.h): a quiet run's decode steps, their batch-only terms
// taken once, and the same step times in fixed point between the breakpoints of the exact sum.
#include "sim/timing/step_model.h"

#include <algorithm>
#include <cmath>

namespace kvsim {

StepModel::DecodeSteps::DecodeSteps(const StepModel& m, int64_t sequences, int64_t tokens)
    : m_(m), sequences_(sequences), fixed_ns_(m.fixed_ns_), tokens_(tokens),
      attended_per_batch_(sequences * (tokens * (tokens + 1) / 2)) {
  if (fixed_ns_ > 0) return;
  // Breakdown's table lookups and AddAttention's batch-only terms, computed as they compute them
  // (every token a GEMM row and a logits row: the drafts are verified).
  const int64_t new_tokens = sequences * tokens;
  linear_ = m.Memo(m.linear_memo_, new_tokens, &StepModel::AddLinear);
  other_ = m.Memo(m.other_memo_, new_tokens, &StepModel::AddOther);
  lm_head_ = m.Memo(m.lm_head_memo_, new_tokens, &StepModel::AddLmHead);
  communication_ = m.Memo(m.comm_memo_, new_tokens, &StepModel::AddCommunication);
  // A decode step's CUDA graph: no gpu-time term. (A verify step launches attention eagerly between
  // graph pieces, which the GPU time may hide: Ns per step.)
  overhead_known_ = !m.eager_ && sequences <= kMaxGraphSequences && tokens == 1;
  if (overhead_known_) overhead_ = m.Overhead(Work(0), 0.0);
  m.AddRecurrentState(sequences, nullptr, &state_seconds_);
  has_attention_ = sequences > 0 && m.kv_layers_ > 0;
  if (has_attention_) attention_ = m.AttentionTermsFor(new_tokens, sequences);
  if (overhead_known_ && m.overlap_host_) {
    // Overlapped, the host costs nothing once the GPU's step outlasts it; the GPU's time only grows
    // with the context, so if it does at context 0 it does throughout the run.
    const double gpu0 = linear_ + (Attention(0) + state_seconds_) + other_ + lm_head_ + communication_;
    overhead_ = 0;
    overhead_known_ = m.Overhead(Work(0), gpu0) == 0;
  }
  if (!overhead_known_ && tokens > 1 && !m.eager_ && m.overlap_host_) {
    // A verify step launches attention between graph pieces; overlapped, that host share is
    // max(0, host - GPU), which only falls as the context (and the GPU's time) grows: zero at context 0,
    // zero throughout. Its steps are still timed one by one (the verify terms are not lines).
    const double gpu0 = linear_ + (Attention(0) + state_seconds_) + other_ + lm_head_ + communication_;
    if (m.Overhead(Work(0), gpu0) == 0) {
      overhead_known_ = true;
      overhead_ = 0;
      return;
    }
  }
  if (!overhead_known_) return;  // the overhead depends on the GPU time: Ns per step
  // Ns's terms as exact lines in the context c (2^-48 ns): a layer group's time is
  // count·max(compute, KV reads) + count·floor, compute = fpp·(c + t)/rate, reads = ((c + t + L0)·kv + q)/rate.
  auto fixed = [](double seconds) { return static_cast<Int128>(std::ldexp(seconds * 1e9, 48)); };
  // A slope per context token in 64 bits (speed: a 64 x 64-bit product per piece): below 2^63
  // units, 32 µs per token; slower attention times its steps the float way.
  bool slopes_fit = true;
  auto slope = [&](double seconds) {
    const double units = std::ldexp(seconds * 1e9, 48);
    if (!(units < 9.2e18)) {
      slopes_fit = false;
      return int64_t{0};
    }
    return static_cast<int64_t>(units);
  };
  double base = linear_ + state_seconds_ + other_ + lm_head_ + communication_ + overhead_;
  const AttentionTerms& a = attention_;
  auto add_pair = [&](double count, double cap_attended, double cap_context) {
    if (count <= 0) return;
    base += a.floor_s * count;
    Line& c = compute_[pairs_];
    Line& r = memory_[pairs_];
    c.s = slope(count * a.flops_per_pair / a.compute_rate);
    c.a = fixed(count * a.flops_per_pair * a.t / a.compute_rate);
    r.s = slope(count * a.per_layer_kv / a.memory_rate);
    r.a = fixed(count * ((a.t + a.seq_tokens) * a.per_layer_kv + a.query_bytes) / a.memory_rate);
    if (cap_attended < 9e18) {  // a window: attended = c + t capped at W·t, context at W·sequences
      c.cap_at = static_cast<int64_t>(std::ceil(cap_attended)) - static_cast<int64_t>(a.t);
      c.capped = fixed(count * a.flops_per_pair * cap_attended / a.compute_rate);
      r.cap_at = static_cast<int64_t>(std::ceil(cap_context));
      r.capped = fixed(count * ((cap_context + a.t + a.seq_tokens) * a.per_layer_kv + a.query_bytes) / a.memory_rate);
    }
    ++pairs_;
  };
  if (has_attention_) {
    add_pair(a.full_layers, 1e300, 1e300);
    add_pair(a.window_layers, a.window_attended, a.window_context);
  }
  base_ = fixed(base);
  // Below half a ns (never a real step) RoundNs's floor of 1 ns would apply: Ns per step.
  affine_ = slopes_fit && base * 1e9 >= 1 && base * 1e9 < 1e11;
}

double StepModel::DecodeSteps::Fa2VerifyExcess(double attended, double context) const {
  const AttentionTerms& a = attention_;
  if (a.full_layers <= 0 || a.t > static_cast<double>(Fa2MultiQueryAttention::kBlockM * sequences_)) return 0;
  const double seqs = static_cast<double>(sequences_);
  const Fa2LayerTime v = m_.fa2_verify_->Layer(sequences_, a.t / seqs, context / seqs);
  double flops = 0, bytes = 0;
  const double grouped = a.LayerSeconds(attended, context, 1.0, &flops, &bytes);
  return v.seconds > grouped ? (v.seconds - grouped) * a.full_layers : 0.0;
}

namespace {

constexpr int kFracBits = 48;  // the fixed point's unit: 2^-48 ns
constexpr uint64_t kFracMask = (uint64_t{1} << kFracBits) - 1;

}  // namespace

// The affine piece of a run from `context` on: each pair's larger line (or a window's cap) at that
// context, for as many steps as it stays the larger (uncapped), at most kPiece steps so the error
// bound, taken at the piece's end, stays tight. False when the fixed point cannot time the steps.
bool StepModel::DecodeSteps::PieceAt(int64_t context, int64_t stride, Piece* piece) const {
  constexpr int64_t kPiece = 1024;
  if (!affine_ || stride <= 0) return false;
  const Int128 c = context;
  Int128 n = base_, slope = 0;
  int64_t left = kPiece;
  // A line at context c, capped or not, and the steps it stays so.
  auto at = [&](const Line& l, Int128* value, int64_t* s) {
    if (context >= l.cap_at) {
      *value = l.capped;
      *s = 0;
      return;
    }
    *value = l.a + static_cast<Int128>(l.s) * context;
    *s = l.s;
    // Ns's min() takes the line while the context is below cap_at: steps k with c + k·stride < cap_at.
    if (l.cap_at != INT64_MAX) left = std::min<int64_t>(left, (l.cap_at - context - 1) / stride + 1);
  };
  for (int i = 0; i < pairs_; ++i) {
    Int128 vc = 0, vr = 0;
    int64_t sc = 0, sr = 0;
    at(compute_[i], &vc, &sc);
    at(memory_[i], &vr, &sr);
    if (vc < vr) {
      std::swap(vc, vr);
      std::swap(sc, sr);
    }
    // vc is the larger now; the other overtakes it once (sr − sc)·stride·k > vc − vr.
    n += vc;
    slope += sc;
    if (sr > sc) {
      // left = min(left, floor(gap / rise) + 1); speed: no 128-bit division, the quotient is below
      // left (at most kPiece) whenever it matters, so a double's estimate corrected by products.
      const Int128 gap = vc - vr, rise = static_cast<Int128>(sr - sc) * stride;
      if (gap < rise * (left - 1)) {
        int64_t q = static_cast<int64_t>(static_cast<double>(gap) / static_cast<double>(rise));
        while (rise * q > gap) --q;
        while (rise * (q + 1) <= gap) ++q;
        left = q + 1;
      }
    }
  }
  slope *= stride;
  // The bound at the piece's end: relative 2^-40 of the time (the doubles' roundings are a few
  // 2^-53 each, over some 30 operations), 16 units per context token (the slopes' truncations),
  // and 2^-30 ns for the intercepts'.
  const Int128 end_time = n + slope * left;
  const Int128 end_context = c + Int128{stride} * left;
  const Int128 tolerance = (end_time >> 40) + end_context * 16 + (Int128{1} << 18);
  if (tolerance >= (Int128{1} << (kFracBits - 2))) return false;  // a step of minutes: no useful bound
  piece->time = n;
  piece->slope = slope;
  piece->steps = left;
  piece->tolerance = static_cast<uint64_t>(tolerance);
  return true;
}

int64_t StepModel::DecodeSteps::TimeSteps(int64_t context, int64_t stride, int64_t limit, int64_t horizon_ns,
                                          int64_t* now_ns, int64_t* out) const {
  int64_t now = *now_ns, steps = 0;
  do {
    Piece p;
    if (!PieceAt(context + steps * stride, stride, &p)) {
      // One step the float way, then try the fixed point again.
      const int64_t dt = Ns(context + steps * stride);
      out[steps++] = dt;
      now += dt;
      continue;
    }
    const int64_t end = std::min(limit, steps + p.steps);
    Int128 time = p.time;
    const Int128 slope = p.slope, half = Int128{1} << (kFracBits - 1);
    const uint64_t tolerance = p.tolerance;
    do {
      const Int128 rounded = time + half;
      time += slope;
      int64_t dt = static_cast<int64_t>(rounded >> kFracBits);
      const uint64_t frac = static_cast<uint64_t>(rounded) & kFracMask;
      if (((frac + tolerance) & kFracMask) < 2 * tolerance) dt = Ns(context + steps * stride);  // within the bound of an edge
      KVSIM_DCHECK(dt == Ns(context + steps * stride));
      out[steps++] = dt;
      now += dt;
    } while (now < horizon_ns && steps < end);
  } while (now < horizon_ns && steps < limit);
  *now_ns = now;
  return steps;
}

StepWork StepModel::DecodeSteps::Work(int64_t context_tokens) const {
  StepWork w;
  w.sequences = sequences_;
  w.new_tokens = sequences_ * tokens_;
  w.context_tokens = context_tokens;
  w.attended = tokens_ * context_tokens + attended_per_batch_;
  w.draft_tokens = sequences_ * (tokens_ - 1);
  return w;
}

std::unique_ptr<DecodeRunTimer> StepModel::VerifyRun(int64_t sequences, int64_t tokens) const {
  return std::make_unique<DecodeSteps>(*this, sequences, tokens);
}

}  // namespace kvsim
