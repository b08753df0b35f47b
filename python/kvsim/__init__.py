"""kvsim from Python: the same C++ core as the `kvsim` executable, run in this process.

Each function mirrors a command; its keyword arguments are the command's flags in snake_case with
the CLI's defaults (kvsim.capacity(max_model_len=32768) is `kvsim capacity --max-model-len 32768`),
and it returns a result whose to_dict() is the JSON the CLI writes and whose repr() is its table.
Bad input raises ValueError with the CLI's message; a bug in kvsim raises RuntimeError. Replays
release the GIL, take an optional progress(fraction, simulated_s) callback, and stop on Ctrl-C
(KeyboardInterrupt). kvsim runs one command at a time per process; other Python threads keep
running meanwhile. Memory figures are GiB (2^30 bytes), as in the CLI.
"""
import json
import os
import re
import shlex
import tempfile

from ._results import (CapacityResult, CatalogResult, CompareResult, PlanResult, Record, ReplayResult, Result,
                       StepResult, SweepResult, TrainResult)
from ._runner import KvsimWarning, flags_from_kwargs, run, run_json_to_file, run_json_to_stdout

__all__ = ["capacity", "capacity_from_command", "replay", "step", "train", "compare", "sweep", "plan", "models",
           "gpus", "run_cli", "KvsimWarning", "Record", "Result", "CapacityResult", "ReplayResult", "StepResult",
           "TrainResult", "CompareResult", "SweepResult", "PlanResult", "CatalogResult"]
__version__ = "0.1.0"

_PROG = "kvsim"


def _text_of(command, flags):
    """The CLI's table for the same flags, rendered when repr() first asks for it."""
    return lambda: run([_PROG, command] + flags)[1]


def _structured(command, result_type, kwargs):
    flags = flags_from_kwargs(kwargs, command=command)
    data = run_json_to_stdout([_PROG, command] + flags)
    return result_type(data, _text_of(command, flags))


def capacity(**flags):
    """kvsim capacity: weights, activation, runtime overhead, KV cache, blocks and max concurrency.

    Every flag of `kvsim capacity --help` in snake_case: model, gpu, tensor_parallel_size,
    max_model_len, gpu_memory_utilization, kv_cache_dtype, quantization, ... (see kvsim.pyi).
    """
    return _structured("capacity", CapacityResult, flags)


def capacity_from_command(command, **flags):
    """kvsim capacity for a pasted `vllm serve MODEL ...` line (the CLI's --vllm-cmd); flags such as
    gpu=... are kvsim's own and apply on top."""
    if not isinstance(command, str) or not command.strip():
        # None would leave --vllm-cmd out and plan kvsim's default deployment as if it were the line.
        raise ValueError("kvsim capacity: command=%r: give the `vllm serve MODEL ...` line as a string" % (command,))
    return _structured("capacity", CapacityResult, dict(flags, vllm_cmd=command))


def step(**flags):
    """kvsim step: the predicted time of one engine step (decode_seqs, decode_context, prefill_seqs,
    prefill_tokens, prefill_context, plus the deployment flags), per operator."""
    return _structured("step", StepResult, flags)


def train(**flags):
    """kvsim train: training / fine-tuning memory per GPU (micro_batch_size, seq_len, precision,
    optimizer, recompute, zero_stage, ... as `kvsim train --help`)."""
    return _structured("train", TrainResult, flags)


def replay(trace=None, progress=None, requests=False, timeseries=False, **flags):
    """kvsim replay: a request trace (default: the bundled Azure conversation trace) through the
    scheduler and KV allocator. progress(fraction, simulated_s) is called every 4,096 engine steps
    (fraction negative when unknown). requests=True / timeseries=True keep the per-request rows and
    the time series (result.request_rows, result.timeseries_rows, result.to_pandas(table)); a path string
    writes the CSV there as the CLI does. Ctrl-C stops the replay and raises KeyboardInterrupt."""
    with tempfile.TemporaryDirectory(prefix="kvsim-") as tmp:
        csv_paths = {}
        for name, value in (("requests", requests), ("timeseries", timeseries)):
            if value is True:
                csv_paths[name] = os.path.join(tmp, name + ".csv")
            elif value:
                csv_paths[name] = os.fspath(value)
        argv = [_PROG, "replay"] + flags_from_kwargs(dict(flags, trace=trace, **csv_paths), command="replay")
        data, text, _ = run_json_to_file(argv, progress)
        return ReplayResult(data, text, csv_paths.get("requests"), csv_paths.get("timeseries"))


def _deployment_options(value):
    """A deployment of compare: a dict of flags, or the CLI's option string ("--gpu l4 -tp 2", or a
    whole `vllm serve ...` line)."""
    if isinstance(value, dict):
        words = []
        for flag in flags_from_kwargs(value, command="replay"):  # a variant takes replay's deployment flags
            words += flag.split("=", 1)  # "--gpu h100": compare reads an option string as separate words
        return shlex.join(words)
    if not isinstance(value, str):
        raise ValueError("kvsim compare: a deployment is a dict of flags or an option string, not %r" % (value,))
    return value


def compare(a, b, c=None, d=None, e=None, f=None, g=None, h=None, **flags):
    """kvsim compare: the same trace through deployments a, b, ... (each a dict of flags or an option
    string); every other keyword is a replay flag shared by all of them."""
    deployments = []
    for name, value in (("a", a), ("b", b), ("c", c), ("d", d), ("e", e), ("f", f), ("g", g), ("h", h)):
        if value is not None:
            # Two words, not "--a=...": a deployment with no options of its own ({} or "") is "--a ''",
            # which the CLI takes, while "--a=" is refused as a missing value.
            deployments += ["--" + name, _deployment_options(value)]
    data, text, _ = run_json_to_file([_PROG, "compare"] + deployments + flags_from_kwargs(flags, command="compare"))
    return CompareResult(data, text)


def _slo_text(slo):
    if slo is None or isinstance(slo, str):
        return slo
    if not isinstance(slo, dict):
        raise ValueError("slo=%r: a dict {\"ttft_p99\": \"2s\"} or the CLI's \"ttft-p99=2s,...\" string" % (slo,))
    return ",".join("%s=%s" % (k.replace("_", "-"), v) for k, v in slo.items())


def sweep(grid=None, find=None, slo=None, **flags):
    """kvsim sweep: grid={"max_num_seqs": [16, 32, 64], "quantization": ["none", "awq"]} replays every
    combination (the first axis outermost); find="max-num-seqs" | "rate-scale" | "replicas" searches
    instead; slo={"ttft_p99": "2s", "tpot_p99": "100ms"} or the CLI's "ttft-p99=2s,..." string."""
    if isinstance(grid, (str, os.PathLike)):  # the CLI's --grid JSON file
        flags["grid"], grid = os.fspath(grid), None
    if grid is not None and not isinstance(grid, dict):
        raise ValueError("kvsim sweep: grid=%r: a dict of option -> list of values, or the path of the CLI's grid JSON file"
                         % (grid,))
    axes = []
    for option, values in (grid or {}).items():
        if isinstance(values, (str, int, float)):
            values = [values]
        if not values:
            raise ValueError("kvsim sweep: grid[%r] lists no values" % (option,))
        for v in values:
            # str(True) reached the CLI as a stray word "True" (a switch takes no value, so it is no axis).
            if v is None or isinstance(v, bool):
                raise ValueError("kvsim sweep: grid[%r] holds %r: an axis lists an option's values; a switch "
                                 "(True/False) or None is not one" % (option, v))
        # A dict or list (speculative_config) goes as compact JSON: the CLI keeps a JSON value's commas.
        axes.append("%s=%s" % (option.replace("_", "-"),
                               ",".join(json.dumps(v, separators=(",", ":")) if isinstance(v, (dict, list)) else str(v)
                                        for v in values)))
    argv = [_PROG, "sweep"] + flags_from_kwargs(dict(flags, find=find, slo=_slo_text(slo)), command="sweep")
    argv += ["--sweep=" + axis for axis in axes]
    data, text, _ = run_json_to_file(argv)
    return SweepResult(data, text)


def plan(slo=None, **flags):
    """kvsim plan: the cheapest deployment meeting the SLOs. Axes as lists (gpus=["l40s", "h100"],
    tp=[1, 2], formats=["checkpoint", "awq"], max_num_seqs=[64, 256]); slo={"ttft_p99": "2s"} or the
    CLI's string; every other keyword is a replay flag shared by all configurations."""
    argv = [_PROG, "plan"] + flags_from_kwargs(dict(flags, slo=_slo_text(slo)), command="plan")
    data, text, _ = run_json_to_file(argv)
    return PlanResult(data, text)


def _table_rows(text):
    """The rows of the CLI's aligned table (columns are two or more spaces apart)."""
    lines = text.splitlines()
    header = re.split(r"\s{2,}", lines[0].strip())
    rows = []
    for line in lines[2:]:
        if not line.strip() or not line.startswith(line.lstrip()[:1]) or len(re.split(r"\s{2,}", line.strip())) != len(header):
            break
        rows.append(dict(zip(header, re.split(r"\s{2,}", line.strip()))))
    return rows


def models():
    """kvsim models: the model presets (preset id, architecture, params, layers, attention, ...)."""
    _, text = run([_PROG, "models"])
    return CatalogResult(_table_rows(text), text)


def gpus():
    """kvsim gpus: the GPU presets --gpu accepts (id, name, CUDA GiB, TB/s, TFLOPS, interconnect)."""
    _, text = run([_PROG, "gpus"])
    return CatalogResult(_table_rows(text), text)


def run_cli(*args, progress=None):
    """Any kvsim command line, in-process: run_cli("validate", "--log", "x.log") -> (exit code,
    stdout). Exit 2 raises ValueError, 3 RuntimeError; 1 (a validation threshold missed) is returned."""
    return run([_PROG] + [str(a) for a in args], progress, ok_codes=(0, 1))
