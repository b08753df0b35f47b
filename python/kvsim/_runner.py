"""Runs one kvsim command in this process (kvsim._core) and turns its exit code into Python's terms.

The command line is the CLI's own, so the JSON, the tables and the messages are the executable's:
exit 2 (bad input) raises ValueError with the CLI's error line, exit 3 (a bug in kvsim) RuntimeError,
an interrupted run (Ctrl-C: kvsim's handler takes SIGINT while the command runs) KeyboardInterrupt.
"""
import json
import math
import os
import re
import tempfile
import warnings

from . import _core

_EXIT_BAD_INPUT = 2
_EXIT_INTERNAL = 3


class KvsimWarning(UserWarning):
    """A warning kvsim printed (it is in the result's JSON "warnings" or "notes" too)."""


def _format_value(value):
    if isinstance(value, (bytes, bytearray)):
        # pydantic's lax mode reads UTF-8 bytes as the text for a string field, as vLLM's configs take them.
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError("%r is not UTF-8 text: %s" % (value, e)) from None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isinf(value) or math.isnan(value):
            return str(value)
        # vLLM's Python entry points validate their config fields with pydantic in lax mode, which
        # takes 4096.0 for an integer field; the command line's int() would not.
        if value.is_integer() and abs(value) < 2.0 ** 53:
            return str(int(value))
        return repr(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


_known_flags = {}
_value_flags = {}

# The wrappers write --json themselves and parse what it prints; --help prints no JSON at all.
_RESERVED = ("json", "help")


def _read_help(command):
    if command not in _known_flags:
        code, out, _ = _core.run(["kvsim", command, "--help"], None)
        text = out.decode("utf-8", "replace")
        if code != 0 or not text:
            raise RuntimeError("kvsim %s --help failed (exit %d)" % (command, code))
        rows = re.findall(r"^  (?:-\w+ \[ )?(--[a-z0-9][a-z0-9-]*)(?: \])?( arg)?", text, re.MULTILINE)
        _known_flags[command] = set(flag for flag, _ in rows)
        # " arg" without brackets: the flag needs a value (--json [=arg] may stand alone).
        _value_flags[command] = set(flag for flag, arg in rows if arg)


def _flags_of(command):
    """The flags `kvsim COMMAND --help` lists (read once per command)."""
    _read_help(command)
    return _known_flags[command]


def _takes_value(flag, command):
    _read_help(command)
    return flag in _value_flags[command]


def _off_flags(name, flag, command):
    """A keyword set to False: the switch's off form (--no-X) when the CLI has one, else nothing, as
    an unset switch is off; a keyword the command does not know is refused, not dropped."""
    known = _flags_of(command)
    off = "--no-" + flag[2:]
    if off in known:
        return [off]
    if flag in known:
        return []
    raise ValueError("kvsim %s: unknown keyword %s=False (no flag %s)" % (command, name, flag))


def flags_from_kwargs(kwargs, repeatable=(), command=None):
    """Keyword arguments as the CLI's flags: max_model_len=4096 -> --max-model-len=4096.

    None leaves a flag out (the CLI's default; a keyword that names no flag of `command` still raises
    ValueError); True gives a switch; False gives the switch's off
    form when the CLI has one (enable_chunked_prefill=False -> --no-enable-chunked-prefill), else
    nothing, and a keyword that names no flag of `command` raises ValueError (without `command`,
    False is refused for want of a way to check it); a dict is passed as JSON (hf_overrides,
    speculative_config, ...); a list or tuple repeats the flag when the flag is repeatable, else it
    is joined with commas. True or False for a flag that takes a value, and the wrappers' own json
    and help, raise ValueError (with `command`).
    """
    argv = []
    for name, value in kwargs.items():
        if value is None:
            # None leaves the flag out, but a misspelt keyword set to None would vanish the same way.
            if command is not None and "--" + name.replace("_", "-") not in _flags_of(command):
                raise ValueError("kvsim %s: unknown keyword %s=None (no flag --%s)" % (command, name, name.replace("_", "-")))
            continue
        flag = "--" + name.replace("_", "-")
        if command is not None and name in _RESERVED:
            raise ValueError("kvsim %s: keyword %s=%r is the wrapper's own: the result is returned (result.to_dict() is "
                             "the JSON); for --%s use kvsim.run_cli" % (command, name, value, name))
        if command is not None and isinstance(value, bool) and _takes_value(flag, command):
            # True alone would make the next flag its value; False would drop it without a word.
            raise ValueError("kvsim %s: keyword %s=%r: %s takes a value (a number or a name), not True/False"
                             % (command, name, value, flag))
        if name.endswith("version") and isinstance(value, float):
            # 0.30 as a float is 0.3, another release: a release number must be given as text.
            raise ValueError("%s=%r: give the release as a string (%s='%s'), not a float" % (name, value, name, repr(value)))
        if value is True:
            argv.append(flag)
        elif value is False:
            if command is None:
                raise ValueError("%s=False: no command to check the flag against" % name)
            argv.extend(_off_flags(name, flag, command))
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


def _check_progress(progress):
    # The core calls progress only during a replay: anything else would be dropped without a word.
    if progress is not None and not callable(progress):
        raise ValueError("progress=%r: give a function progress(fraction, simulated_s), or None" % (progress,))


def run(argv, progress=None, ok_codes=(0,)):
    """Runs ["kvsim", command, flags...]; returns (exit code, stdout text). Warnings become KvsimWarning."""
    _check_progress(progress)
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
