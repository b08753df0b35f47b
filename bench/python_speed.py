#!/usr/bin/env python3
"""The Python module's speed against the executable's (not a test: timings are measured, not asserted).

  1. the 1M-request replay of bench/replay_speed.sh (the bundled Azure conversation trace tiled 52
     times, 1,007,032 requests), from Python and with the kvsim executable, alternated, 5 runs each,
     pinned to one core like replay_speed.sh; prints each median and their ratio;
  2. kvsim.capacity calls per second (the default deployment and a 32K context), over 2 s.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_speed.py [build/kvsim]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import kvsim


def main(binary):
    os.sched_setaffinity(0, {0})
    with tempfile.TemporaryDirectory() as tmp:
        json_path = os.path.join(tmp, "cli.json")
        module_s, cli_s = [], []
        for run in range(5):
            start = time.perf_counter()
            result = kvsim.replay(repeat=52, quiet=True)
            module_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run(["taskset", "-c", "0", binary, "replay", "--repeat", "52", "--quiet", "--json", json_path],
                           check=True)
            cli_s.append(time.perf_counter() - start)
            print("run %d: python %.3f s, cli %.3f s (%d requests)" % (run + 1, module_s[-1], cli_s[-1],
                                                                       result.requests.total))
    m, c = statistics.median(module_s), statistics.median(cli_s)
    print("1M-request replay median: python %.3f s, cli %.3f s, python / cli = %.3f" % (m, c, m / c))

    for label, flags in (("default", {}), ("max_model_len=32768", {"max_model_len": 32768})):
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < 2.0:
            kvsim.capacity(**flags).to_dict()
            calls += 1
        print("capacity (%s): %.0f calls/s" % (label, calls / (time.perf_counter() - start)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "build", "kvsim"))
