"""replay (paged, contiguous, a fleet), compare and sweep: to_dict() equals the CLI's JSON.
--omit-wall-time on both sides: the run's wall time is the one figure that differs between runs."""
import os
import signal
import threading
import time

import pytest

import kvsim

SMALL = {"synthetic": 300, "rate": 8, "seed": 3, "omit_wall_time": True}
SMALL_ARGS = ["--synthetic", "300", "--rate", "8", "--seed", "3", "--omit-wall-time"]


@pytest.mark.parametrize("kwargs,args", [
    ({}, []),
    ({"allocator": "contiguous", "reservation": "pow2"}, ["--allocator", "contiguous", "--reservation", "pow2"]),
    ({"allocator": "contiguous", "placement": "buddy", "gpu": "l4", "model": "Qwen/Qwen3-8B", "max_model_len": 8192},
     ["--allocator", "contiguous", "--placement", "buddy", "--gpu", "l4", "--model", "Qwen/Qwen3-8B",
      "--max-model-len", "8192"]),
    ({"replicas": 3, "router": "least-kv", "gpu": "l40s"}, ["--replicas", "3", "--router", "least-kv", "--gpu", "l40s"]),
    ({"shared_prefix": "4:512", "max_num_seqs": 32}, ["--shared-prefix", "4:512", "--max-num-seqs", "32"]),
])
def test_replay_synthetic_equals_cli(cli, tmp_path, kwargs, args):
    assert kvsim.replay(**SMALL, **kwargs).to_dict() == cli.json_file(["replay"] + SMALL_ARGS + args, tmp_path)


def test_replay_bundled_trace_window_equals_cli(cli, tmp_path):
    kwargs = dict(max_requests=2000, rate_scale=2, gpu="h100", omit_wall_time=True)
    args = ["--max-requests", "2000", "--rate-scale", "2", "--gpu", "h100", "--omit-wall-time"]
    result = kvsim.replay(**kwargs)
    assert result.to_dict() == cli.json_file(["replay"] + args, tmp_path)
    # repr() is the summary the CLI prints beside its --json FILE (without the "JSON written to" line).
    json_path = tmp_path / "table.json"
    printed = cli.run(["replay"] + args + ["--json", str(json_path)]).stdout
    assert repr(result) == printed.replace("JSON written to %s\n" % json_path, "").rstrip("\n")


def test_replay_file_trace_and_rows(cli, tmp_path, source_dir):
    trace = str(source_dir / "tests/data/traces/burstgpt_small.csv")
    # The CLI's warning about the trace's failed request (0 response tokens) arrives as a KvsimWarning.
    with pytest.warns(kvsim.KvsimWarning, match="0 response tokens"):
        result = kvsim.replay(trace=trace, requests=True, timeseries=True, omit_wall_time=True)
    assert result.to_dict() == cli.json_file(["replay", "--trace", trace, "--omit-wall-time"], tmp_path)
    # One CSV row per request the replay read (the JSON's request count).
    assert len(result.request_rows) == result.to_dict()["requests"]["total"]
    assert len(result.timeseries_rows) > 0


def test_progress_callback_and_gil_released():
    calls = []
    ticks = []
    stop = threading.Event()

    def count():  # keeps working while the replay runs in the main thread
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    worker = threading.Thread(target=count)
    worker.start()
    started = time.monotonic()
    kvsim.replay(repeat=10, quiet=True, progress=lambda fraction, simulated_s: calls.append((fraction, simulated_s)))
    finished = time.monotonic()
    stop.set()
    worker.join()
    during = [t for t in ticks if started < t < finished]
    # The replay of 10 x 19,366 requests takes far more than 50 ms; a thread blocked on the GIL
    # would not tick during it.
    assert len(during) > 20, (len(during), finished - started)
    assert calls and all(f <= 1.0 for f, _ in calls)
    assert [s for _, s in calls] == sorted(s for _, s in calls)  # simulated time only moves forward


def test_replay_in_a_thread_while_python_works():
    results = {}
    t = threading.Thread(target=lambda: results.setdefault("r", kvsim.replay(**SMALL)))
    t.start()
    n = 0
    while t.is_alive():
        n += 1  # the main thread keeps running Python
    t.join()
    assert results["r"].to_dict()["requests"]["total"] == 300
    assert n > 0


def test_progress_callback_exception_stops_the_replay():
    class Stop(Exception):
        pass

    def raise_at_once(fraction, simulated_s):
        raise Stop("from the callback")

    with pytest.raises(Stop, match="from the callback"):
        kvsim.replay(repeat=2, quiet=True, progress=raise_at_once)


def test_compare_equals_cli(cli, tmp_path):
    kwargs = dict(SMALL, a={"gpu": "h100"}, b="--gpu a100-80gb --kv-cache-dtype fp8")
    args = SMALL_ARGS + ["--a", "--gpu h100", "--b", "--gpu a100-80gb --kv-cache-dtype fp8"]
    result = kvsim.compare(**kwargs)
    assert result.to_dict() == cli.json_file(["compare"] + args, tmp_path)
    assert len(result) == 2


def test_sweep_grid_equals_cli(cli, tmp_path):
    result = kvsim.sweep(grid={"max_num_seqs": [16, 64], "kv_cache_dtype": ["auto", "fp8"]},
                         slo={"ttft_p99": "5s"}, **SMALL)
    args = SMALL_ARGS + ["--sweep", "max-num-seqs=16,64", "--sweep", "kv-cache-dtype=auto,fp8", "--slo", "ttft-p99=5s"]
    assert result.to_dict() == cli.json_file(["sweep"] + args, tmp_path)
    assert len(result.points) == 4


def test_sweep_grid_of_speculative_configs_equals_cli(cli, tmp_path):
    k2, k3 = ({"method": "ngram", "num_speculative_tokens": k} for k in (2, 3))
    result = kvsim.sweep(grid={"speculative_config": [k2, k3]}, spec_acceptance=0.8, **SMALL)
    axis = 'speculative-config={"method":"ngram","num_speculative_tokens":2},{"method":"ngram","num_speculative_tokens":3}'
    args = SMALL_ARGS + ["--sweep", axis, "--spec-acceptance", "0.8"]
    assert result.to_dict() == cli.json_file(["sweep"] + args, tmp_path)
    assert len(result.points) == 2


def test_sweep_find_equals_cli(cli, tmp_path):
    result = kvsim.sweep(find="max-num-seqs", slo="tpot-p99=100ms", find_max=64, **SMALL)
    args = SMALL_ARGS + ["--find", "max-num-seqs", "--slo", "tpot-p99=100ms", "--find-max", "64"]
    assert result.to_dict() == cli.json_file(["sweep"] + args, tmp_path)


def test_to_pandas_when_installed():
    pandas = pytest.importorskip("pandas")
    frame = kvsim.replay(requests=True, **SMALL).to_pandas()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == 300


def test_ctrl_c_stops_a_replay_and_raises_keyboard_interrupt():
    # SIGINT sent from inside the replay (the progress callback), so it arrives while kvsim's handler
    # is installed: the replay stops at its next step, as the CLI's does, and Python sees Ctrl-C.
    sent = []

    def interrupt_once(fraction, simulated_s):
        if not sent:
            sent.append(fraction)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt, match="interrupted by SIGINT"):
        kvsim.replay(repeat=10, quiet=True, progress=interrupt_once)
    assert sent and sent[0] < 1.0
    # Python's own handler is back, and the module works again.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert kvsim.replay(**SMALL).to_dict()["requests"]["total"] == 300
