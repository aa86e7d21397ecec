"""timing.py - the timed loop of the Python peers (b5_torch.py, b7_torch.py).

median_seconds(fn, check, runs, check_each): calls fn `runs` times, timing
each call alone with perf_counter; check sees every result (check_each) or
the last; returns the median of the times in seconds.  Warm-up calls are
the caller's.
"""
import time


def median_seconds(fn, check, runs, check_each):
    t, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        t.append(time.perf_counter() - t0)
        if check_each:
            check(out)
    if not check_each:
        check(out)
    t.sort()
    n = len(t)
    return t[n // 2] if n % 2 else 0.5 * (t[n // 2 - 1] + t[n // 2])
