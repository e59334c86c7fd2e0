"""A torch-free rank that holds still, so that what Prometheus scraped can be compared with what its agent
serves: it reports step FIRST_STEP (from --step), holds --mib MiB written (so RSS differs per rank), then
only sleeps. Run under `python3 -m oomscope_agent`.

usage: alloc_static.py --step N --mib M
"""

import argparse
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--step", type=int, required=True)
    p.add_argument("--mib", type=int, default=1)
    a = p.parse_args()
    held = b"\x01" * (a.mib * 1024 * 1024)  # written, so the pages count in RSS
    try:
        import oomscope_agent as oa

        oa.step(a.step)
    except ImportError:
        pass
    while held:
        time.sleep(3600)


if __name__ == "__main__":
    main()
