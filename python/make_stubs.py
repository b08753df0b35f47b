#!/usr/bin/env python3
"""Writes kvsim/__init__.pyi from the commands' --help, so editors complete every flag with the CLI's
default and help text, and the stub cannot drift from the flags (tests/test_stubs.py regenerates it
and compares). Usage: python3 python/make_stubs.py build/kvsim [> python/kvsim/__init__.pyi]"""
import re
import subprocess
import sys
import textwrap

# Flags the module sets itself or takes in another form.
_HANDLED = {"help", "json"}
_OPTION = re.compile(r"^  (?:-\w \[ )?--([\w-]+)(?: \])?( \[=arg\(=[^)]*\)\]| arg(?: \(=([^)]*)\))?)?\s*(.*)$")


def parse_help(text):
    """[(flag, takes_value, default or None, help)] from boost::program_options' option listing."""
    options = []
    for line in text.splitlines():
        m = _OPTION.match(line)
        if m:
            options.append([m.group(1), m.group(2) is not None, m.group(3), m.group(4).strip()])
        elif options and line.startswith(" " * 20) and line.strip():
            options[-1][3] = (options[-1][3] + " " + line.strip()).strip()
        elif not line.strip() or not line.startswith(" "):
            continue
    return options


def _annotation(flag, takes_value, default):
    if not takes_value:
        return "bool", "False"
    if default is None:
        return "_Value | None", "None"
    # A release number is text: the float 0.30 would reach the CLI as "0.3", another release.
    if flag.endswith("version"):
        return "str", repr(default)
    if re.fullmatch(r"-?\d+", default):
        return "int", default
    if re.fullmatch(r"-?\d*\.\d+(e-?\d+)?", default):
        return "float", default
    return "str", repr(default)


def stub_function(name, options, leading, summary, returns, skip=()):
    params, docs = list(leading), []
    seen = {p.split(":")[0] for p in leading}
    for flag, takes_value, default, help_text in options:
        py = flag.replace("-", "_")
        if flag in _HANDLED or py in skip or py in seen:
            continue  # the command's own flag comes first (compare's and sweep's --report, --json)
        seen.add(py)
        if not py.isidentifier():
            continue
        annotation, value = _annotation(flag, takes_value, default)
        if flag == "jobs":  # its default is this machine's core count
            annotation, value = "int | None", "None"
        if flag == "enable-prefix-caching":
            annotation, value = "bool", "True"
        if flag.startswith("no-"):
            continue  # enable_prefix_caching=False is --no-enable-prefix-caching
        params.append("%s: %s = %s" % (py, annotation, value))
        docs.append(textwrap.fill("%s: %s" % (py, help_text), 100, initial_indent="        ",
                                  subsequent_indent="            "))
    body = '    """%s\n\n    Args (the flags of `kvsim %s --help`):\n%s\n    """' % (summary, name.split("_")[0], "\n".join(docs))
    return "def %s(\n    %s\n) -> %s:\n%s\n    ...\n" % (name if name != "capacity_cmd" else "capacity_from_command",
                                                       ",\n    ".join(["*"] + params if not leading else params), returns, body)


def main(binary):
    def help_of(command):
        return subprocess.run([binary, command, "--help"], capture_output=True, text=True, check=True).stdout

    out = ['"""Type stubs for kvsim: written by python/make_stubs.py from the commands\' --help (do not edit)."""',
           "from typing import Any, Callable, Iterator, Mapping, Sequence, Union",
           "import os", "",
           "_Value = Union[str, int, float, Mapping[str, Any], Sequence[Any]]",
           "Progress = Callable[[float, float], object]  # (fraction of the trace in [0, 1] or < 0, simulated s)", "",
           "class KvsimWarning(UserWarning): ...", "",
           "class Record:",
           "    def __getattr__(self, name: str) -> Any: ...",
           "    def __getitem__(self, key: Any) -> Any: ...",
           "    def __contains__(self, key: str) -> bool: ...",
           "    def to_dict(self) -> Any: ...", "",
           "class Result(Record): ...",
           "class CapacityResult(Result): ...",
           "class StepResult(Result): ...",
           "class TrainResult(Result): ...",
           "class ReplayResult(Result):",
           "    request_rows: list[dict[str, Any]] | None",
           "    timeseries_rows: list[dict[str, Any]] | None",
           "    def to_pandas(self, table: str = 'requests') -> Any: ...",
           "class SweepResult(Result):",
           "    def to_pandas(self) -> Any: ...",
           "class PlanResult(Result):",
           "    def to_pandas(self) -> Any: ...",
           "class ListResult(Result):",
           "    def __iter__(self) -> Iterator[Any]: ...",
           "    def __len__(self) -> int: ...",
           "    def to_pandas(self) -> Any: ...",
           "class CompareResult(ListResult): ...",
           "class CatalogResult(ListResult):",
           "    def ids(self) -> list[str]: ...", "",
           "def models() -> CatalogResult:", '    """kvsim models: the model presets."""', "    ...", "",
           "def gpus() -> CatalogResult:", '    """kvsim gpus: the GPU presets --gpu accepts."""', "    ...", "",
           "def run_cli(*args: str, progress: Progress | None = None) -> tuple[int, str]:",
           '    """Any kvsim command line, in-process: (exit code, stdout)."""', "    ...", ""]
    capacity = parse_help(help_of("capacity"))
    out.append(stub_function("capacity", capacity, [], "kvsim capacity: memory budget, KV cache and max concurrency.",
                             "CapacityResult"))
    out.append(stub_function("capacity_cmd", capacity, ["command: str", "*"],
                             "kvsim capacity for a pasted `vllm serve MODEL ...` line; keywords apply on top.",
                             "CapacityResult"))
    out.append(stub_function("step", parse_help(help_of("step")), [], "kvsim step: one engine step's time, per operator.",
                             "StepResult"))
    out.append(stub_function("train", parse_help(help_of("train")), [], "kvsim train: training memory per GPU.",
                             "TrainResult"))
    out.append(stub_function("replay", parse_help(help_of("replay")),
                             ["*", "trace: str | os.PathLike[str] | None = None", "progress: Progress | None = None",
                              "requests: bool | str | os.PathLike[str] = False",
                              "timeseries: bool | str | os.PathLike[str] = False"],
                             "kvsim replay: a trace through the scheduler and KV allocator. requests=True / "
                             "timeseries=True keep the\n    rows (result.request_rows, result.timeseries_rows, "
                             "result.to_pandas(table)).", "ReplayResult"))
    compare = parse_help(help_of("compare")) + parse_help(help_of("replay"))
    out.append(stub_function("compare", compare,
                             ["a: Mapping[str, Any] | str", "b: Mapping[str, Any] | str", "*"] +
                             ["%s: Mapping[str, Any] | str | None = None" % x for x in "cdefgh"],
                             "kvsim compare: the same trace through deployments a, b, ... (dicts of flags or option "
                             "strings).", "CompareResult"))
    sweep = parse_help(help_of("sweep")) + parse_help(help_of("replay"))
    out.append(stub_function("sweep", sweep,
                             ["*", "grid: Mapping[str, Sequence[Any]] | str | os.PathLike[str] | None = None",
                              "find: str | None = None", "slo: Mapping[str, str] | str | None = None"],
                             "kvsim sweep: grid={option: [values]} replays every combination; find= searches; "
                             "slo={'ttft_p99': '2s'}.", "SweepResult"))
    plan = parse_help(help_of("plan")) + parse_help(help_of("replay"))
    out.append(stub_function("plan", plan, ["*", "slo: Mapping[str, str] | str | None = None"],
                             "kvsim plan: the cheapest deployment meeting the SLOs; axes as lists (gpus=['l40s', 'h100']).",
                             "PlanResult"))
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(main(sys.argv[1]))
