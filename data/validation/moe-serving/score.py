#!/usr/bin/env python3
"""Replays the real MoE serving runs of this folder with kvsim and scores predicted against measured figures.

usage: score.py KVSIM_BINARY [--report-only] [--keep DIR] [--only SUBSTRING] [--jobs N]

Every run is a synthetic closed-loop workload (the benchmark's own random lengths and concurrency), so
nothing is generated here: each row of cases.csv carries the `kvsim replay` flags of its run. The script
runs `kvsim replay --json` once per run and compares the summary with the measured figure:
latency_s.<family>.<stat> for times (seconds) and throughput.output_tokens_per_s for output_tps.
Prints one line per run with a metric outside 0.8-1.25, the median ratio per metric, the share within
+-25% and the same per engine and per model family. Exit status 0 when the development gate holds
(every metric's median ratio within 0.8-1.25 and >= 75% of metrics within +-25%), 1 when it does not,
2 when a replay could not run or a row of cases.csv is malformed; --report-only exits 0 otherwise.
"""
import argparse, csv, math, os, shlex, subprocess, sys, tempfile, json
from concurrent.futures import ThreadPoolExecutor
from statistics import median

HERE = os.path.dirname(os.path.abspath(__file__))
# metric -> where the kvsim summary keeps it
METRICS = {
    "ttft_mean": ("latency_s", "ttft", "mean"), "ttft_p50": ("latency_s", "ttft", "p50"),
    "ttft_p99": ("latency_s", "ttft", "p99"), "tpot_mean": ("latency_s", "tpot", "mean"),
    "tpot_p50": ("latency_s", "tpot", "p50"), "tpot_p99": ("latency_s", "tpot", "p99"),
    "e2e_mean": ("latency_s", "e2e", "mean"), "e2e_p50": ("latency_s", "e2e", "p50"),
    "e2e_p99": ("latency_s", "e2e", "p99"),
    "output_tps": ("throughput", "output_tokens_per_s", None),
}
BAND = math.log(1.25)  # +-25%, and the 0.8-1.25 window of a median
GATE_WITHIN = 0.75


def bad_input(message):
    """A malformed row: say where, and exit 2 as kvsim does on bad input."""
    print(f"score.py: {message}", file=sys.stderr)
    sys.exit(2)


def lookup(summary, metric):
    section, key, stat = METRICS[metric]
    value = summary[section][key]
    return float(value if stat is None else value[stat])


def fmt_group(name, logs):
    finite = [x for x in logs if math.isfinite(x)]
    within = sum(1 for x in logs if abs(x) <= BAND) / max(1, len(logs))
    med = f"x{math.exp(median(finite)):.2f}" if finite else "n/a"
    return f"  {name}: {len(logs)} metrics, median ratio {med}, within +-25%: {within * 100:.0f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kvsim")
    ap.add_argument("--report-only", action="store_true", help="print the scores; exit 0 whether or not the gate holds")
    ap.add_argument("--keep", help="write the summaries here instead of a temporary folder")
    ap.add_argument("--only", help="score only runs whose id contains this")
    ap.add_argument("--jobs", type=int, default=2, help="replays at once (default 2)")
    args = ap.parse_args()
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        return score(args, args.keep)
    with tempfile.TemporaryDirectory(prefix="kvsim-moe-serving-") as out:  # removed on exit: ctest runs this every time
        return score(args, out)


def score(args, out):
    """Replays every run into `out` and prints the scores; exits with the status the module doc states."""
    runs = {}
    with open(os.path.join(HERE, "cases.csv")) as fh:
        for lineno, r in enumerate(csv.DictReader(fh), start=2):
            where = f"{os.path.join(HERE, 'cases.csv')}:{lineno}"
            if r["metric"] not in METRICS:
                bad_input(f"{where}: field metric: unknown metric '{r['metric']}' (known: {', '.join(METRICS)})")
            try:
                if not float(r["measured"]) > 0:
                    raise ValueError
            except (TypeError, ValueError):
                bad_input(f"{where}: field measured: '{r['measured']}' is not a positive number")
            rid = r["id"].split(":")[0]
            if args.only and args.only not in rid:
                continue
            runs.setdefault(rid, (r["args"], []))[1].append(r)
    engines = {}
    with open(os.path.join(HERE, "measured.csv")) as fh:
        for r in csv.DictReader(fh):
            engines[r["id"]] = (r["engine"], r["model"])

    def replay(rid):
        summary = os.path.join(out, rid + ".json")
        argv = [args.kvsim, "replay", "--quiet", "--json", summary] + shlex.split(runs[rid][0])
        p = subprocess.run(argv, capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            return None, (p.stderr.strip().splitlines() or ["no output"])[-1]
        with open(summary) as fh:
            return json.load(fh), None

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        results = dict(zip(runs, ex.map(replay, runs)))

    logs, by_metric, by_engine, by_family, failed = [], {}, {}, {}, 0
    for rid, (summary, err) in results.items():
        engine, model = engines.get(rid, ("?", "?"))
        family = ("gpt-oss" if "gpt-oss" in model else "deepseek" if "DeepSeek" in model
                  else "qwen3-moe" if "Qwen3" in model else "minimax" if "MiniMax" in model else model)
        if summary is None:
            print(f"FAIL {rid}: {err}")
            failed += 1
            continue
        misses = []
        for r in runs[rid][1]:
            pred, meas = lookup(summary, r["metric"]), float(r["measured"])
            lr = math.log(pred / meas) if pred > 0 else math.inf
            logs.append(lr)
            by_metric.setdefault(r["metric"], []).append(lr)
            by_engine.setdefault(engine, []).append(lr)
            by_family.setdefault(family, []).append(lr)
            if abs(lr) > BAND:
                misses.append(f"{r['metric']} x{pred / meas:.2f} ({pred:.4g} / {meas:.4g})")
        if misses:
            print(f"MISS {rid}: " + "; ".join(misses))

    finite = [x for x in logs if math.isfinite(x)]
    within = sum(1 for x in logs if abs(x) <= BAND) / max(1, len(logs))
    medians = {k: math.exp(median(v)) for k, v in sorted(by_metric.items()) if all(map(math.isfinite, v))}
    centred = len(medians) == len(by_metric) and all(0.8 <= m <= 1.25 for m in medians.values())
    ok = centred and within >= GATE_WITHIN and failed == 0
    print("median predicted/measured: " + ", ".join(f"{k} x{m:.2f}" for k, m in medians.items()))
    print("by engine:")
    for k, v in sorted(by_engine.items()):
        print(fmt_group(k, v))
    print("by model family:")
    for k, v in sorted(by_family.items()):
        print(fmt_group(k, v))
    print(f"moe serving dev: {len(logs)} metrics over {len(runs) - failed} runs ({failed} failed); median |error| "
          f"{(math.exp(median(abs(x) for x in finite)) - 1) * 100 if finite else math.inf:.1f}%; "
          f"within +-25%: {within * 100:.1f}% (gate >= 75%); "
          f"every metric's median within 0.8-1.25: {centred} -> {'PASS' if ok else 'FAIL'}")
    if failed:
        sys.exit(2)
    sys.exit(0 if ok or args.report_only else 1)


if __name__ == "__main__":
    main()
