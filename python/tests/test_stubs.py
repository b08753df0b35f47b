"""kvsim/__init__.pyi is what make_stubs.py writes from the executable's --help: a flag added to the
CLI without regenerating the stub fails here."""
import pathlib
import subprocess
import sys

import kvsim

from conftest import KVSIM_BIN

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[1]


def test_stub_matches_the_flags(cli):
    generated = subprocess.run([sys.executable, str(PYTHON_DIR / "make_stubs.py"), KVSIM_BIN], capture_output=True,
                               text=True, check=True).stdout
    committed = (PYTHON_DIR / "kvsim" / "__init__.pyi").read_text()
    assert committed == generated, "run: python3 python/make_stubs.py build/kvsim > python/kvsim/__init__.pyi"


def test_stub_names_every_public_function():
    committed = (PYTHON_DIR / "kvsim" / "__init__.pyi").read_text()
    for name in ("capacity", "capacity_from_command", "replay", "step", "train", "compare", "sweep", "models",
                 "gpus", "run_cli"):
        assert callable(getattr(kvsim, name))
        assert "def %s(" % name in committed


def test_every_command_of_the_cli_is_reachable():
    """The command list is the CLI's own (kvsim._core.commands()): each has a function of its name,
    or is one of the commands reached through run_cli."""
    from kvsim import _core
    through_run_cli = {"calibrate", "validate", "releases"}
    commands = _core.commands()
    assert "replay" in commands
    for name in commands:
        assert name in through_run_cli or callable(getattr(kvsim, name, None)), name
