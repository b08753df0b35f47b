#!/usr/bin/env python3
"""Scores kvsim against published measurements of what a serving feature changes.

usage: score_features.py KVSIM [--set NAME ...] [--floor] [--write-floor] [--keep DIR] [--jobs N] [--sets-dir DIR]

Each development set is a folder data/validation/features/<set>/ with
  cases.csv     one scored figure per row (columns below), kvsim's arguments with and without the feature;
  measured.csv  the published record behind each row (model, GPU, flags, workload, figures, citation);
  floor.json    the figures this scorer printed when the set was added (written by --write-floor);
  README.md     what the set holds and where kvsim stands.

cases.csv columns:
  id        row id, also the key of measured.csv
  metric    what to read from a run: a dotted path into `kvsim replay --json` (latency_s.tpot.mean,
            throughput.output_tokens_per_s, disaggregation.mean_transfer_s), or request:N:ttft, the server
            TTFT of request N (or `last`, the one that arrived last) in the --requests CSV
  effect    how the two runs combine into the figure the feature changes:
              loss      1 - F/B   (a throughput the feature costs: 11.4% lost is 0.114)
              increase  F/B - 1   (a latency the feature adds, or a throughput it adds)
              speedup   B/F - 1   (a latency it removes: 1.45x faster is 0.45)
              delta     F - B     (seconds it adds)
              saving    B - F     (seconds it removes)
              value     F         (a figure of the feature's run alone, where the source gives no run without it)
  common    arguments both runs share; $D is this set's folder, $TRACE the run's generated trace
  base      arguments only the run without the feature has (unused for `value`)
  feature   arguments only the run with the feature has
  trace_base, trace_feature
            a trace to generate for that run, or empty:
              reuse:P:N:E[:G]  a P-token prompt at 0 s, N other prompts of E tokens G seconds apart (default 20),
                            then the first prompt again G seconds later (its blocks evicted from the GPU when N*E
                            exceeds the pool); G must leave each prompt time to finish, so only the last one queues
              single:P:O    one P-token prompt with O output tokens
  measured  the published figure in the row's effect form (derived in measured.csv)

A row's ratio is predicted/measured of that figure, so a feature that changes nothing scores 0, not 1. Per set it
prints every row, the median ratio and the share of rows within +-25% (0.75-1.25), and the acceptance status
(median within 0.8-1.25 and >= 75% of rows within +-25%). Exit status: 0 when every scored set meets acceptance,
1 when one misses; with --floor, 0 unless a set fell below its floor.json (a regression), 1 if one did; 2 for bad
input (a missing file, a malformed row, a kvsim run that failed).
"""
import argparse, csv, json, math, os, shlex, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
from statistics import median

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SETS_DIR = os.path.join(ROOT, "data", "validation", "features")
EFFECTS = ("loss", "increase", "speedup", "delta", "saving", "value")
COLUMNS = ("id", "metric", "effect", "common", "base", "feature", "trace_base", "trace_feature", "measured")
BAND = (0.75, 1.25)          # a row within +-25% of the published figure
MEDIAN_GATE = (0.8, 1.25)    # acceptance: the median ratio
SHARE_GATE = 0.75            # acceptance: share of rows within the band
# A median may drift this much further from 1 (in log terms) before --floor calls it a regression: runs are
# deterministic, so only a model change moves it; 2% leaves room for a change that is neutral on these rows.
MEDIAN_SLACK = math.log(1.02)


class BadInput(Exception):
    pass


def mooncake_row(ms, prompt, output, first_id):
    ids = list(range(first_id, first_id + (prompt + 511) // 512))
    return json.dumps({"timestamp": ms, "input_length": prompt, "output_length": output, "hash_ids": ids}) + "\n"


def write_trace(spec, path, where):
    kind, *v = spec.split(":")
    try:
        nums = [int(x) for x in v]
    except ValueError:
        raise BadInput(f"{where}: trace '{spec}': numbers expected after '{kind}:'")
    with open(path, "w") as fh:
        if kind == "reuse" and len(nums) in (3, 4):
            prompt, n, other = nums[:3]
            gap_ms = 1000 * (nums[3] if len(nums) == 4 else 20)
            fh.write(mooncake_row(0, prompt, 1, 1))
            for k in range(1, n + 1):
                fh.write(mooncake_row(gap_ms * k, other, 1, 1000000 * k))
            fh.write(mooncake_row(gap_ms * (n + 1), prompt, 1, 1))
        elif kind == "single" and len(nums) == 2:
            fh.write(mooncake_row(0, nums[0], nums[1], 1))
        else:
            raise BadInput(f"{where}: trace '{spec}': expected reuse:P:N:E[:G] or single:P:O")


def read_metric(summary, requests_csv, metric, where):
    if metric.startswith("request:"):
        parts = metric.split(":")
        if len(parts) != 3 or parts[2] != "ttft":
            raise BadInput(f"{where}: metric '{metric}': expected request:N:ttft or request:last:ttft")
        with open(requests_csv) as fh:
            rows = list(csv.DictReader(fh))
        if not rows:
            raise BadInput(f"{where}: the run finished no request")
        # `last`: the request that arrived last (the highest id), whatever order the CSV lists them in.
        row = (max(rows, key=lambda r: int(r["id"])) if parts[1] == "last"
               else next((r for r in rows if r["id"] == parts[1]), None))
        if row is None:
            raise BadInput(f"{where}: no request {parts[1]} in the run")
        return float(row["first_token_s"]) - float(row["arrival_s"])
    node = summary
    for key in metric.split("."):
        if not isinstance(node, dict) or key not in node:
            raise BadInput(f"{where}: metric '{metric}': no '{key}' in the summary")
        node = node[key]
    return float(node)


def effect_of(kind, b, f):
    if kind == "value":
        return f
    if kind == "delta":
        return f - b
    if kind == "saving":
        return b - f
    if b == 0 or f == 0:
        return math.nan
    return {"loss": 1 - f / b, "increase": f / b - 1, "speedup": b / f - 1}[kind]


def load_set(sets_dir, name):
    folder = os.path.join(sets_dir, name)
    path = os.path.join(folder, "cases.csv")
    if not os.path.isfile(path):
        raise BadInput(f"{path}: no such file (sets: {', '.join(list_sets(sets_dir))})")
    rows = []
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise BadInput(f"{path}: line 1: missing column(s) {', '.join(missing)}")
        for line, r in enumerate(reader, start=2):
            where = f"{path}: line {line}"
            if None in r or any(r[c] is None for c in COLUMNS):
                raise BadInput(f"{where}: {len(COLUMNS)} fields expected (quote a field that holds a comma)")
            if r["effect"] not in EFFECTS:
                raise BadInput(f"{where}: field effect: '{r['effect']}' is not one of {', '.join(EFFECTS)}")
            try:
                r["measured"] = float(r["measured"])
            except ValueError:
                raise BadInput(f"{where}: field measured: '{r['measured']}' is not a number")
            if r["measured"] == 0:
                raise BadInput(f"{where}: field measured: 0 cannot be scored as a ratio")
            r["where"] = where
            rows.append(r)
    measured_ids = set()
    mpath = os.path.join(folder, "measured.csv")
    if not os.path.isfile(mpath):
        raise BadInput(f"{mpath}: no such file: every row needs its published record")
    with open(mpath, newline="") as fh:
        reader = csv.DictReader(fh)
        if "id" not in (reader.fieldnames or []):
            raise BadInput(f"{mpath}: line 1: missing column id")
        measured_ids = {m["id"] for m in reader}
    for r in rows:
        if r["id"] not in measured_ids:
            raise BadInput(f"{r['where']}: field id: '{r['id']}' has no record in {mpath}")
    return folder, rows


def list_sets(sets_dir):
    return sorted(d for d in os.listdir(sets_dir) if os.path.isfile(os.path.join(sets_dir, d, "cases.csv")))


class Runner:
    """Runs kvsim once per distinct argument list (rows share their runs without the feature)."""

    def __init__(self, kvsim, out):
        self.kvsim, self.out, self.cache = kvsim, out, {}

    def plan(self, folder, row, which):
        args = row["common"] + " " + row[which]
        trace = row["trace_" + which]
        key = (folder, args, trace)
        if key not in self.cache:
            self.cache[key] = len(self.cache)
        return key

    def run(self, key):
        folder, args, trace = key
        n = self.cache[key]
        stem = os.path.join(self.out, f"run{n}")
        trace_path = stem + ".jsonl"
        if trace:
            write_trace(trace, trace_path, f"run {n}")
        argv = [self.kvsim, "replay", "--quiet", "--json", stem + ".json", "--requests", stem + ".csv"]
        argv += shlex.split(args.replace("$D", folder).replace("$TRACE", trace_path))
        p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            return key, None, " ".join(argv[1:]) + ": " + ((p.stderr.strip().splitlines() or ["no output"])[-1])
        with open(stem + ".json") as fh:
            return key, (json.load(fh), stem + ".csv"), None


def ratio_distance(m):
    return abs(math.log(m)) if m > 0 else math.inf


def score_set(name, folder, rows, results):
    print(f"== {name}: {len(rows)} rows ==")
    ratios = []
    for r in rows:
        f_sum, f_csv = results[r["key_feature"]]
        f = read_metric(f_sum, f_csv, r["metric"], r["where"])
        b = None
        if r["effect"] != "value":
            b_sum, b_csv = results[r["key_base"]]
            b = read_metric(b_sum, b_csv, r["metric"], r["where"])
        pred = effect_of(r["effect"], b, f)
        ratio = pred / r["measured"] if math.isfinite(pred) else math.nan
        ratios.append(ratio)
        inside = BAND[0] <= ratio <= BAND[1]
        print(f"  {'ok  ' if inside else 'MISS'} {r['id']:<42} {r['effect']:<8} predicted {pred:+.4g} "
              f"measured {r['measured']:+.4g} ratio {ratio:.3f}")
    finite = [x for x in ratios if math.isfinite(x)]
    med = median(finite) if finite else math.nan
    share = sum(1 for x in ratios if BAND[0] <= x <= BAND[1]) / len(ratios)
    accepted = MEDIAN_GATE[0] <= med <= MEDIAN_GATE[1] and share >= SHARE_GATE
    print(f"  {name}: median ratio {med:.3f} (gate {MEDIAN_GATE[0]}-{MEDIAN_GATE[1]}); within +-25%: "
          f"{share * 100:.0f}% (gate >= {SHARE_GATE * 100:.0f}%) -> acceptance {'PASS' if accepted else 'MISS'}")
    return {"median_ratio": round(med, 4), "within_25": round(share, 4), "rows": len(rows)}, accepted


def check_floor(name, folder, got):
    path = os.path.join(folder, "floor.json")
    if not os.path.isfile(path):
        raise BadInput(f"{path}: no such file (record today's figures with --write-floor)")
    with open(path) as fh:
        floor = json.load(fh)
    problems = []
    if got["within_25"] + 1e-9 < floor["within_25"]:
        problems.append(f"within +-25% fell from {floor['within_25'] * 100:.0f}% to {got['within_25'] * 100:.0f}%")
    if ratio_distance(got["median_ratio"]) > ratio_distance(floor["median_ratio"]) + MEDIAN_SLACK:
        problems.append(f"median ratio moved away from 1: {floor['median_ratio']} -> {got['median_ratio']}")
    if problems:
        print(f"  {name}: REGRESSION below {path}: " + "; ".join(problems))
    else:
        print(f"  {name}: no regression against floor.json (median {floor['median_ratio']}, "
              f"within {floor['within_25'] * 100:.0f}%)")
    return not problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kvsim")
    ap.add_argument("--set", action="append", dest="sets", help="score only this set (repeatable)")
    ap.add_argument("--floor", action="store_true", help="exit 1 only on a regression below each set's floor.json")
    ap.add_argument("--write-floor", action="store_true", help="record today's figures as each set's floor.json")
    ap.add_argument("--keep", help="write traces, summaries and request CSVs here instead of a temporary folder")
    ap.add_argument("--jobs", type=int, default=2, help="kvsim runs at once (default 2)")
    ap.add_argument("--sets-dir", default=DEFAULT_SETS_DIR, help="the folder holding the sets (default: the repository's)")
    args = ap.parse_args()
    out = None
    try:
        names = args.sets or list_sets(args.sets_dir)
        loaded = {n: load_set(args.sets_dir, n) for n in names}
        out = args.keep or tempfile.mkdtemp(prefix="kvsim-features-")
        os.makedirs(out, exist_ok=True)
        runner = Runner(args.kvsim, out)
        for folder, rows in loaded.values():
            for r in rows:
                r["key_feature"] = runner.plan(folder, r, "feature")
                if r["effect"] != "value":
                    r["key_base"] = runner.plan(folder, r, "base")
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            done = list(ex.map(runner.run, list(runner.cache)))
        failed = [err for _, res, err in done if res is None]
        if failed:
            raise BadInput("kvsim failed:\n  " + "\n  ".join(failed))
        results = {key: res for key, res, _ in done}
        all_accepted, no_regression = True, True
        for name, (folder, rows) in loaded.items():
            got, accepted = score_set(name, folder, rows, results)
            all_accepted &= accepted
            if args.write_floor:
                with open(os.path.join(folder, "floor.json"), "w") as fh:
                    json.dump(got, fh, indent=1)
                    fh.write("\n")
            if args.floor:
                no_regression &= check_floor(name, folder, got)
    except (BadInput, OSError) as e:
        print(f"score_features: {e}", file=sys.stderr)
        sys.exit(2)
    finally:
        if out and not args.keep:
            shutil.rmtree(out, ignore_errors=True)
    sys.exit(0 if (no_regression if args.floor else all_accepted) else 1)


if __name__ == "__main__":
    main()
