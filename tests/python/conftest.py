# conftest.py: fixtures of the Python tests: the lay binary of the build
# (LAY_BIN, set by CTest), the source tree (LAY_SRC) and a fresh Context.
import os
import subprocess

import pytest

import lay


@pytest.fixture
def ctx():
    return lay.Context(lay_path=False)


@pytest.fixture
def src():
    return os.environ["LAY_SRC"]


@pytest.fixture
def cli(tmp_path):
    """cli(args..., data=bytes, cwd=dir) -> stdout bytes of the build's lay;
    with ok=False the CompletedProcess, whatever the exit status."""
    binary = os.environ["LAY_BIN"]

    def run(*args, data=None, ok=True, cwd=None):
        p = subprocess.run([binary, *args], input=data, capture_output=True,
                           cwd=cwd)
        if ok and p.returncode != 0:
            raise AssertionError("lay %s: %s" % (" ".join(args), p.stderr.decode()))
        return p if not ok else p.stdout
    return run
