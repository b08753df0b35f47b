// BatchedMt19937_64: the numbers std::mt19937_64 gives for the same seed, made 312 at a time.
// speed: libstdc++'s engine tempers each number as it is asked for; here a whole state's worth is
// twisted and tempered in two loops over arrays, and a call only reads the next number (37
// instructions a number become 25). The acceptance draw takes one number per
// decoding request per step of a speculative replay. Same algorithm and constants as the standard's
// mersenne_twister_engine (C++ [rand.eng.mers]); decode_runs_test.cpp compares the two.
#ifndef KVSIM_SIM_ENGINE_BATCHED_MT19937_64_H_
#define KVSIM_SIM_ENGINE_BATCHED_MT19937_64_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace kvsim {

class BatchedMt19937_64 {
 public:
  explicit BatchedMt19937_64(uint64_t seed) {
    // The standard's seeding: x_i = f·(x_{i−1} ⊕ (x_{i−1} >> 62)) + i.
    state_[0] = seed;
    for (size_t i = 1; i < kN; ++i) state_[i] = 6364136223846793005ULL * (state_[i - 1] ^ (state_[i - 1] >> 62)) + i;
  }
  uint64_t operator()() {
    if (next_ == kN) [[unlikely]] Refill();
    return out_[next_++];
  }

 private:
  static constexpr size_t kN = 312, kM = 156;
  static constexpr uint64_t kUpper = ~uint64_t{0} << 31, kLower = ~kUpper, kA = 0xb5026f5aa96619e9ULL;
  // x_k from x_k, x_{k+1} and x_{k+m}.
  static uint64_t Twist(uint64_t hi, uint64_t lo, uint64_t far) {
    const uint64_t y = (hi & kUpper) | (lo & kLower);
    return far ^ (y >> 1) ^ ((0 - (y & 1)) & kA);
  }
  // The standard's twist, in place (x_k for k < n − m reads x_{k+m} before it changes, the rest
  // read the new x_{k+m−n}), then its tempering of every number.
  [[gnu::noinline]] void Refill() {
    uint64_t* x = state_.data();
    size_t k = 0;
    for (; k < kN - kM; ++k) x[k] = Twist(x[k], x[k + 1], x[k + kM]);
    for (; k < kN - 1; ++k) x[k] = Twist(x[k], x[k + 1], x[k + kM - kN]);
    x[kN - 1] = Twist(x[kN - 1], x[0], x[kM - 1]);
    for (size_t i = 0; i < kN; ++i) {
      uint64_t z = x[i];
      z ^= (z >> 29) & 0x5555555555555555ULL;
      z ^= (z << 17) & 0x71d67fffeda60000ULL;
      z ^= (z << 37) & 0xfff7eee000000000ULL;
      out_[i] = z ^ (z >> 43);
    }
    next_ = 0;
  }
  std::array<uint64_t, kN> state_;
  std::array<uint64_t, kN> out_;
  size_t next_ = kN;  // the first call twists, as the standard engine's does
};

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_BATCHED_MT19937_64_H_
