"""The reference for every comparison: the kvsim executable (KVSIM_BIN, set by CTest), run as a
separate process with the same flags. The module runs the same core in-process, so the JSON must
be equal, key for key."""
import json
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("KVSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
KVSIM_BIN = os.environ.get("KVSIM_BIN", str(SOURCE_DIR / "build" / "kvsim"))


class Cli:
    """Runs the executable: json(args) for commands printing JSON on stdout, json_file(args, tmp)
    for those writing it to --json FILE, fail(args) for the error line of a refused input."""

    def run(self, args):
        return subprocess.run([KVSIM_BIN] + args, capture_output=True, text=True, check=False)

    def json(self, args):
        p = self.run(args + ["--json=-"])
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)

    def json_file(self, args, tmp_path):
        out = tmp_path / "cli.json"
        p = self.run(args + ["--json=" + str(out)])
        assert p.returncode == 0, p.stderr
        return json.loads(out.read_text())

    def fail(self, args):
        p = self.run(args)
        assert p.returncode == 2, (p.returncode, p.stderr)
        return p.stderr.strip()


@pytest.fixture(scope="session")
def cli():
    if not os.path.exists(KVSIM_BIN):
        pytest.skip("the kvsim executable is not built (%s)" % KVSIM_BIN)
    return Cli()


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR
