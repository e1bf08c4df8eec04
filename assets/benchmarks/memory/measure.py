#!/usr/bin/env python3
"""Run a spinflip command; print each stderr line with seconds since start, then the wall time
and the peak RSS (getrusage of the child)."""
import resource, subprocess, sys, time
start = time.monotonic()
proc = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE, text=True, env={**__import__('os').environ, 'RUST_LOG': 'info'})
for line in proc.stderr:
    print(f"{time.monotonic() - start:8.2f}s {line.rstrip()}", flush=True)
rc = proc.wait()
wall = time.monotonic() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"exit {rc}, wall {wall:.2f} s, max RSS {rss / 1024:.0f} MiB ({rss} KiB)")
