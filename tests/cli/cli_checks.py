"""Shared by the CLI test scripts (tests/cli/test_*.py): running oomscope-cli and collecting failed checks.

Not a test itself: ctest runs only the test_*.py files, each with this folder first on sys.path.
"""
import subprocess


def run(cli, *args, timeout=120):
    """Runs the CLI; the finished process, stdout and stderr as text."""
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=timeout)


class Checks:
    """check(cond, what) records `what` when cond is false; finish() prints each failure and gives the exit
    code (1 when any failed)."""

    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        if not cond:
            self.failures.append(what)

    def finish(self, count=False):
        for f in self.failures:
            print("FAIL:", f)
        if count:
            print(f"{len(self.failures)} failure(s)")
        return 1 if self.failures else 0
