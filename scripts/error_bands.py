#!/usr/bin/env python3
"""Computes kvsim's error bands from its own measured errors on real serving runs and start-up logs.

usage: error_bands.py KVSIM_BINARY [--check] [--jobs N] [--keep DIR]

Replays every serving run of data/validation/serving (the development set's load stages and the
published closed-loop benchmarks) with `kvsim replay`, takes measured / predicted for every measured
figure, and groups the ratios by regime: model class (dense / moe, from the model's config), GPU family
(the generation column of data/gpus.csv) and load (mean running per replica over max-num-seqs, ClassifyLoad of
sim/stats/error_bands.h, whose thresholds this script reads from that header). A band is the central
80% of a regime's ratios (p10..p90 by nearest rank, taken outwards: see band()), written rounded
outwards; the start-up memory band (kv_gib) is measured / predicted KV-cache GiB over the rows
`kvsim validate` plans from data/validation/vllm_memory_logs_dev.csv.

Without --check it writes data/validation/error_bands.csv and data/validation/serving/ratios.csv and
prints the table as Markdown. With --check it writes nothing: it exits 1 when the committed table is
not what the replays give now (rerun without --check to regenerate it) or when the band of a dev
serving run contains the measured value for fewer than 80% of the dev runs of any metric.
"""
import argparse, csv, json, math, os, random, re, shlex, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
DATA = os.path.join(ROOT, "data")
SERVING = os.path.join(DATA, "validation", "serving")
BANDS_CSV = os.path.join(DATA, "validation", "error_bands.csv")
RATIOS_CSV = os.path.join(SERVING, "ratios.csv")
HEADER = os.path.join(ROOT, "sim", "stats", "error_bands.h")
METRICS = ("ttft", "tpot", "e2e", "throughput")  # ErrorMetric's names, in its order
MIN_RUNS = 3        # ErrorBands::kMinRuns
COVER_GATE = 0.80   # a band must hold the measured value of at least 80% of the dev runs it answers for


def fail(msg):
    sys.exit(f"error_bands.py: {msg}")


def load_thresholds():
    """kLightLoadBelow and kSaturatedLoadFrom as the C++ header declares them: one definition."""
    text = open(HEADER).read()
    found = {}
    for name in ("kLightLoadBelow", "kSaturatedLoadFrom"):
        m = re.search(r"\b" + name + r"\s*=\s*([0-9.]+)\s*;", text)
        if not m:
            fail(f"{HEADER}: cannot find 'constexpr double {name} = ...;'")
        found[name] = float(m.group(1))
    return found["kLightLoadBelow"], found["kSaturatedLoadFrom"]


def classify_load(utilization, thresholds):
    light_below, saturated_from = thresholds
    if utilization < light_below:
        return "light"
    return "moderate" if utilization < saturated_from else "saturated"


def gpu_families():
    """GPU id and every alias (lower case) -> the generation column of data/gpus.csv."""
    path = os.path.join(DATA, "gpus.csv")
    out = {}
    with open(path, newline="") as fh:
        for line, row in enumerate(csv.DictReader(fh), start=2):
            gen = (row.get("generation") or "").strip()
            if not gen:
                fail(f"{path}:{line}: column generation: empty (the GPU's architecture, e.g. hopper)")
            for name in [row["id"]] + [a for a in row["aliases"].split(";") if a]:
                out[name.strip().lower()] = gen
    return out


def model_class(model_arg):
    """moe when the model's config names more than one expert (Mixtral, DeepSeek, Qwen-MoE keys)."""
    path = model_arg if model_arg.endswith(".json") else os.path.join(DATA, "models", model_arg + ".json")
    if not os.path.isfile(path):
        fail(f"model '{model_arg}': no config at {path}")
    cfg = json.load(open(path))
    for c in (cfg, cfg.get("text_config") or {}):
        for key in ("num_local_experts", "n_routed_experts", "num_experts", "moe_num_experts"):
            if isinstance(c.get(key), int) and c[key] > 1:
                return "moe"
    return "dense"


def flag(argv, *names):
    for i, a in enumerate(argv):
        if a in names and i + 1 < len(argv):
            return argv[i + 1]
    return None


def set_flag(argv, name, value):
    out = list(argv)
    out[out.index(name) + 1] = str(value)
    return out


def write_trace(path, n, rate, duration, prompt, output, distinct, seed):
    """The development set's requests as its README describes them (the same draws as its score.py):
    `distinct` fixed prompts sent in turn, Poisson arrivals rescaled to the stage's duration, a prompt's
    512-token block ids kept so repeats can hit the prefix cache."""
    rng = random.Random(seed)
    kind, *bounds = prompt.split(":")
    if kind == "fixed":
        lens = [int(bounds[0])] * distinct
    else:
        lens = [rng.randint(int(bounds[0]), int(bounds[1])) for _ in range(distinct)]
    gaps = [rng.expovariate(rate) for _ in range(n)]
    scale, t = duration / sum(gaps), 0.0
    with open(path, "w") as fh:
        for k in range(n):
            t += gaps[k] * scale
            p = k % distinct
            ids = [4 * p + i + 1 for i in range((lens[p] + 511) // 512)]
            fh.write(json.dumps({"timestamp": round(t * 1000, 3), "input_length": lens[p],
                                 "output_length": output, "hash_ids": ids}) + "\n")


def serving_runs(tmp):
    """Every run: id, source set, the replay argv and its measured figures as (metric, statistic, measured)."""
    runs = {}
    with open(os.path.join(SERVING, "workloads.csv"), newline="") as fh:
        for w in csv.DictReader(fh):
            write_trace(os.path.join(tmp, w["run"] + ".jsonl"), int(w["n"]), float(w["rate"]), float(w["duration_s"]),
                        w["prompt"], int(w["output"]), int(w["distinct_prompts"]), int(w["seed"]))
    models = os.path.join(DATA, "models")
    stat_of = {"ttft_mean": ("ttft", "mean"), "ttft_p90": ("ttft", "p90"), "tpot_mean": ("tpot", "mean"),
               "e2e_mean": ("e2e", "mean"), "e2e_p90": ("e2e", "p90")}
    with open(os.path.join(SERVING, "cases.csv"), newline="") as fh:
        for line, r in enumerate(csv.DictReader(fh), start=2):
            rid = r["id"].split(":")[0]
            if r["metric"] not in stat_of:
                fail(f"{SERVING}/cases.csv:{line}: column metric: '{r['metric']}' is not one of {', '.join(stat_of)}")
            argv = shlex.split(r["args"].replace("$M", models).replace("$T", tmp))
            run = runs.setdefault(rid, {"set": "dev", "argv": argv, "measured": []})
            run["measured"].append(stat_of[r["metric"]] + (float(r["measured_s"]),))
    with open(os.path.join(SERVING, "measured.csv"), newline="") as fh:
        for line, r in enumerate(csv.DictReader(fh), start=2):
            if r["id"] not in runs:
                fail(f"{SERVING}/measured.csv:{line}: run '{r['id']}' has no row in cases.csv")
            # Output tokens per second from the completed-request rate: every request returns exactly
            # `output` tokens (ignore_eos). The report's own out_tps re-tokenizes the streamed text and
            # undercounts (the development set's README).
            runs[r["id"]]["measured"].append(("throughput", "output_tokens_per_s", float(r["rps"]) * int(r["output"])))
    with open(os.path.join(SERVING, "published.csv"), newline="") as fh:
        for line, r in enumerate(csv.DictReader(fh), start=2):
            rid, metric = r["id"].split(":")[0], r["metric"]
            family, _, stat = metric.partition("_")
            if family not in METRICS or (family == "throughput") != (stat == ""):
                fail(f"{SERVING}/published.csv:{line}: column metric: '{metric}' is not <ttft|tpot|e2e>_<stat> or throughput")
            run = runs.setdefault(rid, {"set": "published", "argv": shlex.split(r["args"]), "measured": []})
            run["measured"].append((family, stat or "output_tokens_per_s", float(r["measured"])))
    return runs


def replay(kvsim, argv, summary):
    p = subprocess.run([kvsim, "replay", "--quiet", "--json", summary] + argv, capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        fail(f"kvsim replay {' '.join(argv)}: {(p.stderr.strip().splitlines() or ['no output'])[-1]}")
    return json.load(open(summary))


def replay_run(kvsim, tmp, rid, run):
    """The run's summary and its utilization as a plan reads it (sim/plan/plan_bands.h RegimeOf): the
    mean running requests per replica over max-num-seqs, how close the replica runs to the batch its
    scheduler saturates at."""
    summary = replay(kvsim, run["argv"], os.path.join(tmp, rid + ".json"))
    replicas = int(flag(run["argv"], "--replicas") or 1)
    slots = int(summary["config"]["max_num_seqs"]) * replicas
    return summary, float(summary["concurrency"]["mean_running"]) / slots


def predicted(summary, family, stat):
    if family == "throughput":
        return float(summary["throughput"][stat])
    return float(summary["latency_s"][family][stat])


def memory_ratios(kvsim):
    """measured / predicted KV-cache GiB of every row `kvsim validate` plans with a logged KV figure."""
    logs = os.path.join(DATA, "validation", "vllm_memory_logs_dev.csv")
    p = subprocess.run([kvsim, "validate", "--logs", logs], capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1):
        fail(f"kvsim validate --logs {logs}: {(p.stderr.strip().splitlines() or ['no output'])[-1]}")
    lines = p.stdout.splitlines()
    start = lines[0].find("KV GiB log/kvsim") if lines else -1
    end = lines[0].find("tokens log/kvsim") if lines else -1
    if start < 0 or end < start:
        fail("kvsim validate: no 'KV GiB log/kvsim' column in its table header")
    out = []
    for line in lines[2:]:
        m = re.match(r"\s*([0-9.]+)/([0-9.]+)\s", line[start:end] + " ")
        if re.match(r"R\d+\s", line) and m:
            # A server that started where kvsim finds no room for the KV cache (kvsim 0.00 GiB) is an
            # error too: an infinite ratio, which sorts above every band edge.
            log, kvsim_gib = float(m.group(1)), float(m.group(2))
            out.append((line.split()[0], log / kvsim_gib if kvsim_gib > 0 else math.inf))
    return out


def band(ratios):
    """The central 80%: the narrowest interval between order statistics, symmetric in how many it drops,
    that holds at least 80% of the ratios (k = floor(n / 10) dropped at each end: p10..p90 by nearest rank,
    taken outwards; an interpolated p10..p90 would hold only 8 of 12 ratios). Rounded outwards to three
    decimals so the written band holds the ratios it was computed from."""
    s = sorted(ratios)
    k = len(s) // 10
    if not math.isfinite(s[len(s) - 1 - k]):
        fail(f"a band of {len(s)} ratios would have an infinite edge (kvsim predicted nothing where a server measured)")
    return math.floor(s[k] * 1000) / 1000, math.ceil(s[len(s) - 1 - k] * 1000) / 1000


def regime_keys(model, family, load):
    """Narrowest first, the fallback order of ErrorBands::For."""
    return [(model, family, load), (model, family, "*"), (model, "*", "*"), ("*", "*", "*")]


def compute_bands(observations, memory):
    """observations: (run, metric, model, family, load, ratio). Rows in a fixed order."""
    groups = {}
    for run, metric, model, family, load, ratio in observations:
        for key in regime_keys(model, family, load):
            g = groups.setdefault((metric,) + key, ([], set()))
            g[0].append(ratio)
            g[1].add(run)
    rows = []
    for key in sorted(groups, key=lambda k: (METRICS.index(k[0]), k[1:].count("*"), k[1:])):
        ratios, runs = groups[key]
        rows.append(key + (len(runs),) + band(ratios))
    if memory:
        rows.append(("kv_gib", "*", "*", "*", len(memory)) + band([r for _, r in memory]))
    return rows


def band_for(rows, metric, model, family, load):
    """ErrorBands::For: (low, high) of the narrowest regime with MIN_RUNS runs, widened to hold the
    rows of the thinner regimes passed on the way; None when no regime has MIN_RUNS runs."""
    low, high = math.inf, -math.inf
    for key in regime_keys(model, family, load):
        for r in rows:
            if r[0] == metric and r[1:4] == key:
                low, high = min(low, r[5]), max(high, r[6])
                if r[4] >= MIN_RUNS:
                    return low, high
    return None


def format_rows(rows):
    return [[m, c, f, l, str(n), f"{lo:.3f}", f"{hi:.3f}"] for m, c, f, l, n, lo, hi in rows]


def coverage(observations, rows, dev_runs):
    """Per metric: [observations inside, observations, runs with every figure inside, runs] over the
    dev runs, each figure judged by the band of its run's regime."""
    out, missed = {}, set()
    for run, metric, model, family, load, ratio in observations:
        if run not in dev_runs:
            continue
        r = band_for(rows, metric, model, family, load)
        hit = r is not None and r[0] <= ratio <= r[1]
        c = out.setdefault(metric, [0, 0, set()])
        c[0] += hit
        c[1] += 1
        c[2].add(run)
        if not hit:
            missed.add((metric, run))
    return {m: [hit, total, len(runs) - sum(1 for mm, _ in missed if mm == m), len(runs)]
            for m, (hit, total, runs) in out.items()}


def leave_one_out(observations, dev_runs):
    """The same coverage when each dev run's bands are computed without that run (not gated: a fairer
    figure of how the bands do on a run they have not seen)."""
    out = {}
    for held in sorted(dev_runs):
        rows = compute_bands([o for o in observations if o[0] != held], [])
        for metric, counts in coverage([o for o in observations if o[0] == held], rows, {held}).items():
            c = out.setdefault(metric, [0, 0, 0, 0])
            for i in range(4):
                c[i] += counts[i]
    return out


def markdown(rows):
    lines = ["| metric | model | GPU family | load | runs | low | high |", "|---|---|---|---|---:|---:|---:|"]
    for cells in format_rows(rows):
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kvsim")
    ap.add_argument("--check", action="store_true", help="write nothing; fail on a stale table or coverage < 80%%")
    ap.add_argument("--jobs", type=int, default=2, help="replays at once (default 2)")
    ap.add_argument("--keep", help="write traces and summaries here instead of a temporary folder")
    args = ap.parse_args()
    thresholds = load_thresholds()
    families = gpu_families()
    tmp = args.keep or tempfile.mkdtemp(prefix="kvsim-error-bands-")
    os.makedirs(tmp, exist_ok=True)
    runs = serving_runs(tmp)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        results = dict(zip(runs, ex.map(lambda rid: replay_run(args.kvsim, tmp, rid, runs[rid]), runs)))

    observations, ratio_rows = [], []
    for rid, run in runs.items():
        summary, utilization = results[rid]
        gpu = flag(run["argv"], "--gpu")
        family = families.get((gpu or "").lower())
        if family is None:
            fail(f"run {rid}: --gpu '{gpu}' is not an id or alias of data/gpus.csv")
        model = model_class(flag(run["argv"], "--model"))
        load = classify_load(utilization, thresholds)
        for metric, stat, measured in run["measured"]:
            pred = predicted(summary, metric, stat)
            if not pred > 0:
                fail(f"run {rid}: kvsim predicts {metric} {stat} = {pred}")
            observations.append((rid, metric, model, family, load, measured / pred))
            ratio_rows.append([rid, run["set"], metric, stat, model, family, f"{utilization:.3f}", load,
                               f"{measured:.6g}", f"{pred:.6g}", f"{measured / pred:.4f}"])
    memory = memory_ratios(args.kvsim)
    rows = compute_bands(observations, memory)
    header = ["metric", "model", "gpu_family", "load", "runs", "low", "high"]
    comment = ("# measured / predicted: p10..p90 per regime, written by scripts/error_bands.py from "
               "data/validation/serving and data/validation/vllm_memory_logs_dev.csv; do not edit")

    dev_runs = {rid for rid, run in runs.items() if run["set"] == "dev"}
    cover = coverage(observations, rows, dev_runs)
    loo = leave_one_out(observations, dev_runs)
    for metric in METRICS:
        if metric in cover:
            (hit, total, rhit, rtotal), (lhit, ltotal, lrhit, lrtotal) = cover[metric], loo[metric]
            print(f"{metric}: the band holds the measured value for {rhit}/{rtotal} dev runs ({100 * rhit / rtotal:.0f}%; "
                  f"{hit}/{total} figures); leaving the run out of its own band: {lrhit}/{lrtotal} runs "
                  f"({100 * lrhit / lrtotal:.0f}%; {lhit}/{ltotal} figures)")
    print(f"kv_gib: {len(memory)} start-up logs")
    ok = all(rhit >= COVER_GATE * rtotal for _, _, rhit, rtotal in cover.values())

    print(markdown(rows))
    if args.check:
        try:
            committed = [r for r in csv.reader(open(BANDS_CSV)) if r and not r[0].startswith("#")]
        except OSError as e:
            fail(f"{BANDS_CSV}: {e.strerror}")
        if committed != [header] + format_rows(rows):
            print(f"STALE {BANDS_CSV}: the replays give other bands now; run scripts/error_bands.py "
                  "build/kvsim to rewrite it")
            ok = False
        print("error bands: " + ("PASS" if ok else "FAIL") + f" (gate: >= {COVER_GATE:.0%} of the dev runs per metric)")
        sys.exit(0 if ok else 1)

    with open(BANDS_CSV, "w", newline="") as fh:
        fh.write(comment + "\n")
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(format_rows(rows))
    with open(RATIOS_CSV, "w", newline="") as fh:
        fh.write("# written by scripts/error_bands.py: one row per measured figure; utilization = mean running "
                 "requests per replica / max-num-seqs in kvsim\n")
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["run", "set", "metric", "statistic", "model", "gpu_family", "utilization", "load",
                    "measured", "predicted", "measured_over_predicted"])
        w.writerows(ratio_rows)
        for row_id, ratio in memory:
            w.writerow([row_id, "startup-logs", "kv_gib", "", "", "", "", "", "", "", f"{ratio:.4f}"])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
