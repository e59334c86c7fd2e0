#!/usr/bin/env python3
"""Runs the MCP tests (tests/mcp/test_*.mjs) with node's built-in test runner against oomscope-cli.

usage: run_node_test.py OOMSCOPE_CLI TEST_DATA
Exit 77 (ctest: skipped) with the reason when Node.js 18 or newer or the pinned SDK client
(tests/mcp/node_modules, installed by packaging/install-deps.sh with npm ci) is missing.
"""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def main():
    cli, test_data = sys.argv[1], sys.argv[2]
    node = shutil.which("node")
    if not node:
        print("skipped: node (Node.js 18 or newer) is not installed; the MCP client test needs it")
        return SKIP
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0] or 0) < 18:
        print(f"skipped: node {version} is older than 18, which the MCP SDK needs")
        return SKIP
    sdk = os.path.join(HERE, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
    if not os.path.exists(sdk):
        print(
            "skipped: tests/mcp/node_modules lacks @modelcontextprotocol/sdk; run packaging/install-deps.sh "
            "(or npm ci in tests/mcp)"
        )
        return SKIP
    tests = sorted(
        os.path.join(HERE, f) for f in os.listdir(HERE) if f.startswith("test_") and f.endswith(".mjs")
    )
    env = dict(os.environ, OOMSCOPE_CLI=os.path.abspath(cli), OOMSCOPE_TEST_DATA=os.path.abspath(test_data))
    env.pop("OOMSCOPE_TOKEN", None)
    return subprocess.run([node, "--test", "--test-reporter=spec", *tests], env=env, cwd=HERE).returncode


if __name__ == "__main__":
    sys.exit(main())
