"""Runs one kvsim command in this process (kvsim._core) and turns its exit code into Python's terms.

The command line is the CLI's own, so the JSON, the tables and the messages are the executable's:
exit 2 (bad input) raises ValueError with the CLI's error line, exit 3 (a bug in kvsim) RuntimeError,
an interrupted run (Ctrl-C: kvsim's handler takes SIGINT while the command runs) KeyboardInterrupt.
"""
import json
import math
import os
import tempfile
import warnings

from . import _core

_EXIT_BAD_INPUT = 2
_EXIT_INTERNAL = 3


class KvsimWarning(UserWarning):
    """A warning kvsim printed (it is in the result's JSON "warnings" or "notes" too)."""


def _format_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isinf(value) or math.isnan(value):
            return str(value)
        return repr(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def flags_from_kwargs(kwargs, repeatable=()):
    """Keyword arguments as the CLI's flags: max_model_len=4096 -> --max-model-len=4096.

    None leaves a flag out (the CLI's default); True gives a switch; False gives nothing, except
    enable_prefix_caching=False -> --no-enable-prefix-caching (the one switch whose default is on);
    a dict is passed as JSON (hf_overrides, speculative_config, ...); a list or tuple repeats the flag
    when the flag is repeatable, else it is joined with commas.
    """
    argv = []
    for name, value in kwargs.items():
        if value is None:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False:
            if name == "enable_prefix_caching":
                argv.append("--no-enable-prefix-caching")
        elif isinstance(value, (list, tuple)) and name in repeatable:
            for v in value:
                argv.append(flag + "=" + _format_value(v))
        elif isinstance(value, (list, tuple)):
            argv.append(flag + "=" + ",".join(_format_value(v) for v in value))
        else:
            argv.append(flag + "=" + _format_value(value))
    return argv


def _raise_for(code, stderr, argv):
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if ": error: " in line or "internal error" in line]
    message = "\n".join(errors or lines) or "kvsim %s exited with code %d" % (argv[1], code)
    if code == _EXIT_BAD_INPUT:
        raise ValueError(message)
    if code == 128 + 2:  # SIGINT
        raise KeyboardInterrupt(message)
    raise RuntimeError(message)


def run(argv, progress=None, ok_codes=(0,)):
    """Runs ["kvsim", command, flags...]; returns (exit code, stdout text). Warnings become KvsimWarning."""
    code, out, err = _core.run([str(a) for a in argv], progress)
    stderr = err.decode("utf-8", "replace")
    if code not in ok_codes:
        _raise_for(code, stderr, argv)
    for line in stderr.splitlines():
        if ": warning: " in line:
            warnings.warn(line, KvsimWarning, stacklevel=3)
    return code, out.decode("utf-8", "replace")


def run_json_to_stdout(argv, progress=None):
    """A command whose --json prints the JSON on standard output; returns the parsed JSON."""
    _, out = run(argv + ["--json=-"], progress)
    return json.loads(out)


def run_json_to_file(argv, progress=None, ok_codes=(0,)):
    """A command that writes its JSON to a file and prints its table: returns (JSON, table text)."""
    fd, path = tempfile.mkstemp(prefix="kvsim-", suffix=".json")
    os.close(fd)
    os.unlink(path)  # kvsim writes it atomically and refuses nothing for a fresh name
    try:
        code, out = run(argv + ["--json=" + path], progress, ok_codes)
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    finally:
        if os.path.exists(path):
            os.unlink(path)
    marker = "JSON written to " + path + "\n"
    return data, out.replace(marker, ""), code
