"""One progress display for the long commands (kg build, kg fetch)."""

from __future__ import annotations

import sys
import time

WIDTH = 72  # the status line is padded to this, so a shorter one hides a longer one before it


class Progress:
    """A ``\\r``-updated status line on stderr, at most once per ``every`` seconds (a new stage always shows);
    silent off a terminal; cleared when the ``with`` block ends, however it ends."""

    def __init__(self, enabled: bool, every: float = 0.0) -> None:
        self.enabled, self.every, self.shown, self.last = enabled, every, False, 0.0
        self.stage, self.stage_started = "", time.perf_counter()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.clear()

    def show(self, text: str) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.last < self.every:
            return
        self.last = now
        sys.stderr.write("\r" + text.ljust(WIDTH))
        sys.stderr.flush()
        self.shown = True

    def records(self, stage: str, n: int, total: int | None = None) -> None:
        """``stage: n/total records, R records/s, ETA 1m05s`` (the ETA when the total is known)."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if stage != self.stage:
            self.stage, self.stage_started, self.last = stage, now, 0.0
        rate = n / max(now - self.stage_started, 1e-9)
        text = f"{stage}: {n:,}" + (f"/{total:,}" if total else "") + f" records, {rate:,.0f} records/s"
        if total and rate > 0 and n < total:
            left = int((total - n) / rate)
            text += f", ETA {left // 60}m{left % 60:02d}s"
        self.show(text)

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * WIDTH + "\r")
            sys.stderr.flush()
            self.shown = False
