#!/usr/bin/env python3
"""Runs every command shown in README.md and docs/ and compares its output with the text shown.

The convention (docs/reference/writing-docs.md states it for writers):

  ```console
  $ kvsim capacity --gpu l4
  ...the output, exactly as kvsim prints it (stdout and stderr together)...
  $ another command
  its output
  ```

A line starting with "$ " is a command; it continues on the next line when it ends in a backslash or
the next line starts with "> " (the shell's own continuation prompt, for loops); the lines up to the next "$ " line or the closing fence are its output. A command that exits
non-zero shows "[exit N]" as its last output line, so an error example states its exit code. Blocks
are fenced ```console; ```console no-run: REASON shows commands that are not run (the reason is
required), and ```console requires: python|mpi is skipped with a notice when the build lacks that
part. Any other fenced block holding "$ " lines is an error, so a command cannot hide from the test.

The commands run in bash, one process each, in a scratch directory that holds links to the
repository's data/, tests/, examples/, python/ and docs/, build/ (the build directory of the kvsim
given) and ../shared (the project's shared material), with `kvsim` first on PATH; files a command
writes stay in the scratch directory. Output is normalised in two ways only: the absolute paths of
the repository, the shared material and the scratch directory are written relative to the scratch
directory, and what depends on the machine compares as equal whatever its value: wall-clock figures
("in 0.04 s wall") and the default thread count ("on 2 threads", one per core).

--update rewrites each command's output in place with what the command printed now (the figures
move whenever the model does); review the diff before committing it.
"""

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(\S*)\s*(.*)$")
# What depends on the machine rather than on kvsim: wall-clock time, and the thread count a sweep or
# compare picks by default (one per core).
MACHINE_DEPENDENT = [
    (re.compile(r"\d+(\.\d+)? s wall"), "<wall> s wall"),
    (re.compile(r"on \d+ threads"), "on <cores> threads"),
]
TIMEOUT_S = 120


class Block:
    def __init__(self, path, start, info, body):
        self.path, self.start, self.info, self.body = path, start, info, body  # body: lines


class DocError(Exception):
    """A block that does not follow the convention: reported with its file and line, the other files
    are still checked."""


class Command:
    def __init__(self, line_no, text, output):
        self.line_no, self.text, self.output = line_no, text, output  # text: lines of the command


def parse_blocks(path, lines):
    """(start index, end index exclusive, indent, kind, info) of every fenced block; a block inside a list
    item is indented, and its lines are read without that indent."""
    i = 0
    blocks = []
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang, info = m.group(1), m.group(2), m.group(3), m.group(4)
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence[0] * len(fence)):
            j += 1
        if j >= len(lines):
            raise DocError(f"{path}:{i + 1}: fenced block never closed")
        blocks.append((i, j, indent, lang, info))
        i = j + 1
    return blocks


def split_commands(path, first_line, body):
    commands = []
    i = 0
    while i < len(body):
        line = body[i]
        if not line.startswith("$ "):
            raise DocError(f"{path}:{first_line + i}: a console block starts with a '$ ' command, "
                             f"found: {line!r}")
        text = [line[2:]]
        line_no = first_line + i
        while i + 1 < len(body) and (text[-1].endswith("\\") or body[i + 1].startswith("> ")):
            i += 1
            text.append(body[i])
        i += 1
        output = []
        while i < len(body) and not body[i].startswith("$ "):
            output.append(body[i])
            i += 1
        commands.append(Command(line_no, text, output))
    return commands


def strip_trailing_blank(lines):
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def comparable(lines):
    out = []
    for line in lines:
        for pattern, placeholder in MACHINE_DEPENDENT:
            line = pattern.sub(placeholder, line)
        out.append(line.rstrip())
    return strip_trailing_blank(out)


class Workspace:
    def __init__(self, repo, kvsim, shared):
        self.root = tempfile.mkdtemp(prefix="kvsim-docs-")
        self.work = os.path.join(self.root, "work")
        self.bin = os.path.join(self.root, "bin")
        os.makedirs(self.work)
        os.makedirs(self.bin)
        for name in ("data", "tests", "examples", "python", "docs", "scripts", "bench"):
            if os.path.exists(os.path.join(repo, name)):
                os.symlink(os.path.join(repo, name), os.path.join(self.work, name))
        self.build = os.path.dirname(os.path.realpath(kvsim))
        os.symlink(self.build, os.path.join(self.work, "build"))
        os.symlink(os.path.realpath(shared), os.path.join(self.root, "shared"))
        os.symlink(os.path.realpath(kvsim), os.path.join(self.bin, "kvsim"))
        self.replacements = [
            (self.work + "/", ""), (self.work, "."),
            (os.path.realpath(shared), "../shared"), (os.path.abspath(shared), "../shared"),
            (os.path.realpath(repo) + "/", ""), (os.path.abspath(repo) + "/", ""),
            (self.build + "/", "build/"),
        ]
        self.env = dict(os.environ)
        self.env["PATH"] = self.bin + os.pathsep + self.env.get("PATH", "")
        self.env["COLUMNS"] = "200"
        self.env["LC_ALL"] = "C.UTF-8"
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.env.pop("KVSIM_DATA_DIR", None)
        self.env["KVSIM_BIN"] = os.path.realpath(kvsim)  # scripts/validate-vllm-logs.sh runs this build
        # mpirun on one machine: more ranks than cores, shared memory only, no probe of network transports.
        self.env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
        self.env["OMPI_MCA_pml"] = "ob1"
        self.env["OMPI_MCA_btl"] = "self,vader"
        if os.geteuid() == 0:  # Open MPI refuses root unless told; the test machines run as root
            self.env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            self.env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"

    def has(self, part):
        if part == "python":
            return os.path.isdir(os.path.join(self.build, "python", "kvsim")) and \
                any(f.startswith("_core") for f in os.listdir(os.path.join(self.build, "python", "kvsim")))
        if part == "mpi":
            return os.path.exists(os.path.join(self.build, "kvsim-mpi")) and shutil.which("mpirun")
        return False

    def run(self, command_lines):
        script = "\n".join(line[2:] if k and line.startswith("> ") else line
                           for k, line in enumerate(command_lines))
        try:
            proc = subprocess.run(["bash", "-o", "pipefail", "-c", script], cwd=self.work, env=self.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT_S)
            text, code = proc.stdout.decode("utf-8", "replace"), proc.returncode
        except subprocess.TimeoutExpired:
            text, code = f"(timed out after {TIMEOUT_S} s)\n", 124
        for old, new in self.replacements:
            text = text.replace(old, new)
        lines = strip_trailing_blank(line.rstrip() for line in text.split("\n"))
        # 141 = SIGPIPE: `kvsim ... | head` closes the pipe before kvsim is done writing, which is how such
        # a pipeline always ends, and whether it happens depends on timing.
        if code not in (0, 141):
            lines.append(f"[exit {code}]")
        return lines

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def check_file(path, display, ws, update, counts):
    try:
        return _check_file(path, display, ws, update, counts)
    except DocError as e:
        return [str(e)]


def _check_file(path, display, ws, update, counts):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    failures = []
    replaced = []  # (start, end, new lines) in the file, applied back to front
    for start, end, indent, lang, info in parse_blocks(display, lines):
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[start + 1:end]]
        if lang == "markdown":  # an example of the convention itself (docs/reference/writing-docs.md)
            continue
        if lang != "console":
            stray = [k for k, line in enumerate(body) if line.startswith("$ ")]
            if stray:
                failures.append(f"{display}:{start + 2 + stray[0]}: a '$ ' command in a ```{lang} block; "
                                f"fence it ```console so it runs (or ```console no-run: REASON)")
            continue
        if info.startswith("no-run"):
            if not info[len("no-run"):].lstrip(":").strip():
                failures.append(f"{display}:{start + 1}: ```console no-run needs a reason: "
                                f"```console no-run: REASON")
            counts["not run"] += len(split_commands(display, start + 2, body))
            continue
        need = re.match(r"requires:\s*(\w+)", info)
        if need and not ws.has(need.group(1)):
            print(f"{display}:{start + 1}: skipped: this build has no {need.group(1)}", flush=True)
            counts["skipped"] += len(split_commands(display, start + 2, body))
            continue
        if info and not need:
            failures.append(f"{display}:{start + 1}: unknown console block option {info!r}")
            continue
        new_body = []
        for cmd in split_commands(display, start + 2, body):
            actual = ws.run(cmd.text)
            counts["run"] += 1
            if comparable(actual) != comparable(cmd.output):
                if update:
                    counts["updated"] += 1
                else:
                    diff = "\n".join(_diff(comparable(cmd.output), comparable(actual)))
                    failures.append(f"{display}:{cmd.line_no}: the output of `{cmd.text[0]}` differs "
                                    f"(- shown, + printed now):\n{diff}")
            new_body.extend(["$ " + cmd.text[0]] + cmd.text[1:])
            new_body.extend(actual if update and comparable(actual) != comparable(cmd.output)
                            else strip_trailing_blank(cmd.output))
        replaced.append((start + 1, end, [indent + line if line else line for line in new_body]))
    if update:
        for s, e, new in reversed(replaced):
            lines[s:e] = new
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    return failures


def _diff(expected, actual):
    import difflib
    return list(difflib.unified_diff(expected, actual, "shown", "printed", n=1, lineterm=""))[2:]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kvsim", required=True, help="the kvsim executable to run (its directory is build/)")
    ap.add_argument("--repo", default=os.path.dirname(here), help="the repository (default: this script's)")
    ap.add_argument("--shared", help="the shared material (default: REPO/../shared)")
    ap.add_argument("--update", action="store_true", help="rewrite the shown outputs with the printed ones")
    ap.add_argument("files", nargs="*", help="markdown files (default: README.md and every docs/**/*.md)")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    shared = args.shared or os.path.join(repo, "..", "shared")
    files = args.files or ["README.md"] + sorted(
        os.path.relpath(os.path.join(d, f), repo)
        for d, _, fs in os.walk(os.path.join(repo, "docs")) for f in fs if f.endswith(".md"))
    ws = Workspace(repo, args.kvsim, shared)
    counts = {"run": 0, "updated": 0, "not run": 0, "skipped": 0}
    failures = []
    try:
        for rel in files:
            path = rel if os.path.isabs(rel) else os.path.join(repo, rel)
            failures += check_file(path, rel, ws, args.update, counts)
    finally:
        ws.close()
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"check-docs: {counts['run']} commands run in {len(files)} files "
          f"({cpu.ru_utime + cpu.ru_stime:.1f} s of CPU), {counts['not run']} marked no-run, "
          f"{counts['skipped']} skipped" + (f", {counts['updated']} outputs rewritten" if args.update else ""))
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
