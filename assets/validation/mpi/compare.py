"""Compare two spinflip output directories: every file byte for byte, the JSON summaries
without what depends on the machine and the time taken (timings, engine and adapter names).

    python3 compare.py ONE_RANK_DIR N_RANKS_DIR
"""
import json
import os
import sys

VOLATILE = ("flips_per_ns", "ps_per_flip", "engine", "adapter", "seconds")


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def same(x, y):
    if x.endswith(".json"):
        # Dumped again, so NaN estimates compare equal.
        load = lambda path: json.dumps(strip(json.load(open(path))), sort_keys=True)
        return load(x) == load(y)
    return open(x, "rb").read() == open(y, "rb").read()


a, b = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(a))
bad = [n for n in names if not os.path.exists(os.path.join(b, n)) or not same(os.path.join(a, n), os.path.join(b, n))]
verdict = "all identical" if not bad else "DIFFER: " + ", ".join(bad)
print(f"{a} vs {b}: {len(names)} files, {verdict}")
sys.exit(1 if bad else 0)
