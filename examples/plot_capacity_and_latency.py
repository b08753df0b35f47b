#!/usr/bin/env python3
"""Two questions answered with `import kvsim`, plotted with matplotlib:

  left:  how many requests of full length fit at once (max concurrency) as max-model-len grows,
         for Llama-3.1-8B on three GPUs (kvsim capacity);
  right: TTFT p99 as the request rate grows, on an A100 80GB (kvsim replay of a synthetic
         Poisson workload, 1,500 requests per rate).

Run from the repository after building (the module is in build/python):
  PYTHONPATH=build/python /usr/bin/python3 examples/plot_capacity_and_latency.py examples/capacity_and_latency.png
"""
import sys

import matplotlib

matplotlib.use("Agg")  # writes a file; no display needed
import matplotlib.pyplot as plt  # noqa: E402

import kvsim  # noqa: E402

MODEL = "meta-llama/Llama-3.1-8B-Instruct"
GPUS = ["l4", "l40s", "h100"]
LENGTHS = [2048, 4096, 8192, 16384, 32768, 65536, 131072]
RATES = [2, 4, 6, 8, 10, 12, 14, 16]


def main(png):
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for gpu in GPUS:
        points = []
        for length in LENGTHS:
            try:
                points.append((length, kvsim.capacity(model=MODEL, gpu=gpu, max_model_len=length).max_concurrency))
            except ValueError as e:  # the CLI's message, e.g. the KV cache cannot hold one request
                print("%s at %d: %s" % (gpu, length, e), file=sys.stderr)
        left.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=gpu)
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("max-model-len (tokens)")
    left.set_ylabel("max concurrency (full-length requests)")
    left.set_title(MODEL.split("/")[1] + ", TP 1")
    left.legend()
    left.grid(True, which="both", alpha=0.3)

    p99 = []
    for rate in RATES:
        r = kvsim.replay(model=MODEL, gpu="a100-80gb", synthetic=1500, rate=rate, seed=1, quiet=True)
        p99.append(r.latency_s.ttft.p99)
        print("rate %2d req/s: TTFT p99 %.3f s, served %.2f req/s" % (rate, p99[-1], r.throughput.requests_per_s))
    right.plot(RATES, p99, marker="o", color="C3")
    right.set_xlabel("request rate (requests/s, Poisson)")
    right.set_ylabel("TTFT p99 (s)")
    right.set_yscale("log")
    right.set_title("a100-80gb, prompt ~1000 / output ~200 tokens")
    right.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print("wrote", png)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "capacity_and_latency.png")
