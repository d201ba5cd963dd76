"""The command the fault suite runs under `tenure run`: a leader's work that says what it does.

  fault_worker.py [--stop-delay S] [--fence-port P]

Prints JSON lines on stdout (inherited from `tenure run`, so they reach the test's reader of
that process):
- {"event":"started","identity":$TENURE_IDENTITY,"token":int($TENURE_FENCING_TOKEN)} first;
- {"event":"beat","identity":...,"token":...,"seq":N} every 20 ms while it works;
- with --fence-port, a fenced write {token, identity, seq} POSTed to 127.0.0.1:P/write every
  50 ms, as tenure-elect --fence-port does ({"event":"fenced"} when it is refused with 409);
- on SIGTERM or SIGINT it keeps working (beating, writing) for --stop-delay seconds, then prints
  {"event":"work-ended",...} and exits 0. Nothing is printed after work-ended.

The worker's own clock is never skewed: when it inherits a clock preload (libfaketime or the
project's clock-skew library, because its supervisor runs with a skewed clock), it starts itself
again without it. The scenarios skew the supervisor's clock, not the work's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import sys
import threading
import time

BEAT = 0.02
FENCE_EVERY = 0.05
CLOCK_VARS = ("LD_PRELOAD", "FAKETIME", "FAKETIME_DONT_FAKE_MONOTONIC", "FAKETIME_NO_CACHE", "TENURE_CLOCK_RATE",
              "TENURE_CLOCK_OFFSET")


def _with_real_clock() -> None:
    preload = os.environ.get("LD_PRELOAD", "")
    if "faketime" in preload or "clock_skew" in preload:
        env = {k: v for k, v in os.environ.items() if k not in CLOCK_VARS}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)


_out = threading.Lock()


def emit(**fields) -> None:
    with _out:
        try:
            sys.stdout.write(json.dumps(fields) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:  # the reader is gone: nobody to work for
            os._exit(0)


def main() -> None:
    _with_real_clock()
    ap = argparse.ArgumentParser()
    ap.add_argument("--stop-delay", type=float, default=0.0)
    ap.add_argument("--fence-port", type=int, default=0)
    a = ap.parse_args()
    identity = os.environ.get("TENURE_IDENTITY", "")
    token = int(os.environ.get("TENURE_FENCING_TOKEN", "0") or 0)
    stop_at: list[float] = []

    def on_signal(sig, frame) -> None:
        if not stop_at:
            stop_at.append(time.monotonic() + a.stop_delay)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    emit(event="started", identity=identity, token=token)
    fence = http.client.HTTPConnection("127.0.0.1", a.fence_port, timeout=0.5) if a.fence_port else None
    seq = fence_seq = 0
    next_fence = time.monotonic()
    next_beat = time.monotonic() + BEAT
    while True:
        if stop_at and time.monotonic() >= stop_at[0]:
            emit(event="work-ended", identity=identity, token=token)
            sys.exit(0)
        emit(event="beat", identity=identity, token=token, seq=seq)
        seq += 1
        if fence is not None and time.monotonic() >= next_fence:
            body = json.dumps({"token": token, "identity": identity, "seq": fence_seq})
            fence_seq += 1
            next_fence = time.monotonic() + FENCE_EVERY
            try:
                fence.request("POST", "/write", body, {"Content-Type": "application/json"})
                resp = fence.getresponse()
                resp.read()
                if resp.status == 409:
                    emit(event="fenced", identity=identity, token=token)
            except (OSError, http.client.HTTPException):
                fence.close()
        delay = next_beat - time.monotonic()
        next_beat = max(next_beat + BEAT, time.monotonic())
        if delay > 0:
            time.sleep(delay)


if __name__ == "__main__":
    main()
