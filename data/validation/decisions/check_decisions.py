#!/usr/bin/env python3
"""Replays published deployment decisions with `kvsim compare` and checks kvsim picks the published side.

Each row of cases.csv (next to this file) is one decision a source measured: two deployments `a` and `b` of
the same model on the same GPUs, the workload, and which one won by the source's own measure. The script
runs `kvsim compare <shared_args> --a "<a>" --b "<b>" --json FILE` (once, or once per rate of `rates`),
reads each deployment's figure `metric` (a dotted path into its JSON summary, per GPU when `per_gpu` is
yes) and names the side kvsim picks:

  rule each     at every rate the better figure (`better`: higher | lower) must be the published side's;
  rule goodput  each deployment's goodput is the highest rate of the grid, counted from the lowest, at
                which `metric` stays within `slo_limit` and at least 98% of the offered requests are
                served (a saturated deployment serves less than it is offered); the higher goodput per
                GPU wins.

A deployment that kvsim says does not start (absent from the JSON) loses. The published figures are in
the row (`published`), never compared with kvsim's: what is checked is the side, as the sources decided.
A row whose `status` is recorded-miss is a decision kvsim is known to get wrong (the README says which
term): it is run and reported, and fails nothing; when it starts to match, the script says so, and the
row's status should become match.

Usage: check_decisions.py KVSIM [--case ID] [--keep DIR] [--cases FILE] [--timing]
Exit: 0 every `match` case picks the published side, 1 some case does not, 2 bad input (a malformed row or a
kvsim run that fails), naming the file, line and field.
"""

import argparse
import csv
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
COLUMNS = ["id", "kind", "source", "url", "where", "model", "gpus", "engine", "workload", "judged_by",
           "published", "published_side", "status", "shared_args", "a", "b", "rates", "rule", "metric", "better",
           "per_gpu", "slo_limit", "assumed"]
KINDS = {"pd", "quantization", "tp-replicas"}
# A saturated deployment finishes fewer requests than arrive; below this share of the offered rate a
# goodput point does not count even when its latency is within the limit. An unsaturated run of a few
# hundred Poisson arrivals already serves 2-3% less than it is offered (the drain after the last arrival,
# and 1/sqrt(600) = 4% noise in the arrivals' own span), so the bar sits below that.
MIN_SERVED_SHARE = 0.95


class BadInput(Exception):
    pass


def load_cases(path):
    cases = []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            raise BadInput(f"{path}:1: header: expected {','.join(COLUMNS)}")
        for line, row in enumerate(reader, start=2):
            where = f"{path}:{line}"
            for col in COLUMNS:
                if row.get(col) is None:
                    raise BadInput(f"{where}: field {col}: missing")
            for col in ("id", "source", "url", "published", "shared_args", "a", "b", "metric"):
                if not row[col].strip():
                    raise BadInput(f"{where}: field {col}: empty")
            if row["kind"] not in KINDS:
                raise BadInput(f"{where}: field kind: '{row['kind']}' is not one of {', '.join(sorted(KINDS))}")
            if row["published_side"] not in ("a", "b"):
                raise BadInput(f"{where}: field published_side: '{row['published_side']}' is not a or b")
            if row["status"] not in ("match", "recorded-miss"):
                raise BadInput(f"{where}: field status: '{row['status']}' is not match or recorded-miss")
            if row["rule"] not in ("each", "goodput"):
                raise BadInput(f"{where}: field rule: '{row['rule']}' is not each or goodput")
            if row["better"] not in ("higher", "lower"):
                raise BadInput(f"{where}: field better: '{row['better']}' is not higher or lower")
            if row["per_gpu"] not in ("yes", "no"):
                raise BadInput(f"{where}: field per_gpu: '{row['per_gpu']}' is not yes or no")
            try:
                row["rate_list"] = [float(r) for r in row["rates"].split(";")] if row["rates"].strip() else [None]
            except ValueError:
                raise BadInput(f"{where}: field rates: '{row['rates']}' is not rates separated by ';'")
            if row["rule"] == "goodput":
                if row["rate_list"] == [None]:
                    raise BadInput(f"{where}: field rates: rule goodput needs a grid of rates")
                try:
                    row["limit"] = float(row["slo_limit"])
                except ValueError:
                    raise BadInput(f"{where}: field slo_limit: '{row['slo_limit']}' is not a number")
            row["where"] = where
            cases.append(row)
    return cases


def gpus_of(summary):
    disagg = summary.get("disaggregation")
    if disagg:
        return sum(disagg[pool]["replicas"] * disagg[pool]["tensor_parallel_size"] for pool in ("prefill", "decode"))
    config = summary["config"]
    replicas = len(summary.get("fleet", {}).get("per_replica", [])) or 1
    return config["tensor_parallel_size"] * config["pipeline_parallel_size"] * replicas


def figure(summary, path, where):
    value = summary
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            raise BadInput(f"{where}: field metric: '{path}' is not in kvsim's JSON summary")
        value = value[key]
    return float(value)


def run_compare(kvsim, case, rate, keep_dir):
    """One `kvsim compare`; returns {"a": summary or None, "b": ...} (None: does not start)."""
    tag = case["id"] + ("" if rate is None else f"-rate{rate:g}")
    json_path = os.path.join(keep_dir, tag + ".json")
    cmd = [kvsim, "compare", *shlex.split(case["shared_args"])]
    if rate is not None:
        cmd += ["--rate", f"{rate:g}"]
    cmd += ["--a", case["a"], "--b", case["b"], "--json", json_path]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BadInput(f"{case['where']}: kvsim compare exited {proc.returncode}: {proc.stderr.strip()}")
    with open(os.path.join(keep_dir, tag + ".txt"), "w") as f:
        f.write(" ".join(shlex.quote(c) for c in cmd) + "\n" + proc.stdout)
    with open(json_path) as f:
        runs = json.load(f)
    found = {}
    for run in runs:
        label = run["deployment"].split(":", 1)[0]
        found[label] = run["summary"]
    return {side: found.get(side) for side in ("a", "b")}


def value_of(case, summary):
    if summary is None:
        return None
    v = figure(summary, case["metric"], case["where"])
    return v / gpus_of(summary) if case["per_gpu"] == "yes" else v


def pick(case, va, vb):
    """The side with the better figure; a deployment that does not start loses; a tie picks neither."""
    if va is None and vb is None:
        return None
    if va is None:
        return "b"
    if vb is None:
        return "a"
    if va == vb:
        return None
    a_better = va > vb if case["better"] == "higher" else va < vb
    return "a" if a_better else "b"


def fmt(v):
    return "does not start" if v is None else f"{v:.4g}"


def check_each(kvsim, case, keep_dir):
    sides, shown = [], []
    for rate in case["rate_list"]:
        runs = run_compare(kvsim, case, rate, keep_dir)
        va, vb = value_of(case, runs["a"]), value_of(case, runs["b"])
        sides.append(pick(case, va, vb))
        at = "" if rate is None else f"rate {rate:g}: "
        shown.append(f"{at}a {fmt(va)}, b {fmt(vb)}")
    side = sides[0] if all(s == sides[0] for s in sides) else None
    return side, "; ".join(shown)


def served_share(summary):
    t = summary["throughput"]
    return t["requests_per_s"] / t["offered_requests_per_s"] if t["offered_requests_per_s"] > 0 else 0.0


def check_goodput(kvsim, case, keep_dir):
    goodput = {"a": 0.0, "b": 0.0}
    gpus = {"a": None, "b": None}
    open_sides = {"a", "b"}
    for rate in case["rate_list"]:
        if not open_sides:
            break
        runs = run_compare(kvsim, case, rate, keep_dir)
        for side in list(open_sides):
            summary = runs[side]
            if summary is None:
                open_sides.discard(side)
                continue
            gpus[side] = gpus_of(summary)
            v = figure(summary, case["metric"], case["where"])
            within = v <= case["limit"] if case["better"] == "lower" else v >= case["limit"]
            if within and served_share(summary) >= MIN_SERVED_SHARE:
                goodput[side] = rate
            else:
                open_sides.discard(side)
    per = {}
    for side in ("a", "b"):
        if gpus[side] is None:
            per[side] = None
        else:
            per[side] = goodput[side] / gpus[side] if case["per_gpu"] == "yes" else goodput[side]
    side = pick(dict(case, better="higher"), per["a"], per["b"])
    unit = " req/s per GPU" if case["per_gpu"] == "yes" else " req/s"
    shown = (f"goodput within {case['metric']} <= {case['limit']:g}: a {goodput['a']:g} req/s ({fmt(per['a'])}{unit}), "
             f"b {goodput['b']:g} req/s ({fmt(per['b'])}{unit})")
    return side, shown


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kvsim", help="the kvsim executable")
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.csv"), help="the cases file (default: cases.csv here)")
    ap.add_argument("--case", action="append", help="run only this case id (repeatable)")
    ap.add_argument("--keep", help="keep each run's command, console output and JSON in this directory")
    ap.add_argument("--timing", action="store_true", help="also print the CPU time kvsim took (user + sys)")
    args = ap.parse_args()
    kvsim = os.path.abspath(args.kvsim)
    try:
        cases = load_cases(args.cases)
        if args.case:
            unknown = set(args.case) - {c["id"] for c in cases}
            if unknown:
                raise BadInput(f"--case: no case {', '.join(sorted(unknown))} in {args.cases}")
            cases = [c for c in cases if c["id"] in args.case]
        scratch = None if args.keep else tempfile.TemporaryDirectory(prefix="kvsim-decisions-")
        keep = args.keep or scratch.name
        os.makedirs(keep, exist_ok=True)
        same = failed = 0
        for case in cases:
            check = check_goodput if case["rule"] == "goodput" else check_each
            side, shown = check(kvsim, case, keep)
            matches = side == case["published_side"]
            same += matches
            if case["status"] == "recorded-miss":
                verdict = "same side now (a recorded miss: set its status to match)" if matches else "OTHER SIDE (recorded miss)"
            else:
                verdict = "same side" if matches else "OTHER SIDE"
                failed += not matches
            kvsim_side = {"a": case["a"], "b": case["b"]}.get(side, "neither (the rates disagree or tie)")
            print(f"{case['id']} ({case['kind']}): {verdict}")
            print(f"  published: {case[case['published_side']]}  ({case['published']})")
            print(f"  kvsim:     {kvsim_side}  ({shown})")
    except BadInput as e:
        print(f"check_decisions.py: {e}", file=sys.stderr)
        return 2
    print(f"{same} of {len(cases)} published decisions: kvsim picks the same side")
    if args.timing:
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(f"kvsim CPU time: {cpu.ru_utime + cpu.ru_stime:.2f} s (user + sys)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
