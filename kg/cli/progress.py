"""The progress display of the long commands (kg build, kg validate, kg fetch), drawn by ``rich.progress``.

One line, the current stage's, replaced by the next stage's: ``map: 200/441 records (45%), 1,234 records/s,
ETA 0m05s``. A rate shows once a stage has reported twice (a stage that reports once has no rate to tell), an
ETA once the stage has run ``ETA_AFTER`` seconds and its total is known. On a terminal the line is redrawn in
place and cleared at the end; elsewhere (``--progress`` into a file) each stage's first report and then one line
every ``LOG_EVERY`` seconds are printed as plain lines.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

import click
from rich.console import Console
from rich.progress import Progress as RichProgress
from rich.progress import ProgressColumn, Task, TaskID
from rich.text import Text

from ..infra.text import printable

ETA_AFTER = 5.0  # seconds of a stage before its ETA shows (the first reports say little about the rest)
LOG_EVERY = 2.0  # off a terminal: seconds between two lines of one stage


@dataclass
class Terminal:
    """Where the display goes: a rich console, the clock it reads, and how often it is redrawn (0: at every
    report, which makes a capture exact)."""

    console: Console
    clock: Callable[[], float] = time.monotonic
    every: float = 0.1


def terminal() -> Terminal:
    """The display of a command: standard error (tests replace this function to capture it)."""
    return Terminal(Console(stderr=True, highlight=False))


def wanted(flag: bool | None, quiet: bool = False, stream: TextIO | None = None) -> bool:
    """--progress / --no-progress when given, else on only when standard error is a terminal (and not --quiet)."""
    if flag is not None:
        return flag
    stream = stream if stream is not None else sys.stderr
    try:
        return not quiet and stream.isatty()
    except (AttributeError, ValueError):  # (a closed or unusual stream)
        return False


def line(task: Task, now: float) -> str:
    """The text of a stage's line at time ``now``.

    >>> from rich.progress import Progress
    >>> p = Progress(get_time=lambda: 0.0)
    >>> t = p.add_task("resolve", total=None, unit="records", reports=1, text=None, first_at=0.0, first_n=441)
    >>> p.update(t, completed=441)
    >>> line(p.tasks[0], 0.0)
    'resolve: 441 records'
    """
    text = task.fields.get("text")
    if text is not None:
        return str(text)
    unit = task.fields["unit"]
    done = int(task.completed)
    out = f"{task.description}: {done:,}"
    total = int(task.total) if task.total is not None else None
    if total:
        out += f"/{total:,} {unit} ({100 * done // total}%)"
    else:
        out += f" {unit}"
    spent = task.fields.get("last_at", now) - task.fields["first_at"]  # (the rate as of the last report)
    speed = (done - task.fields["first_n"]) / spent if task.fields["reports"] >= 2 and spent > 0 else 0.0
    if speed > 0:
        out += f", {speed:,.0f}" if speed >= 100 else f", {speed:.3g}"
        out += f" {unit}/s"
        started = task.start_time if task.start_time is not None else now
        if total and done < total and now - started >= ETA_AFTER:
            left = int((total - done) / speed)
            out += f", ETA {left // 60}m{left % 60:02d}s"
    return out


class _Line(ProgressColumn):
    """The one column: the stage's line (a rich column so that rich draws, redraws and clears it)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__()
        self.clock = clock

    def render(self, task: Task) -> Text:
        return Text(line(task, self.clock()), no_wrap=True, overflow="ellipsis")


class _Bar(RichProgress):
    """rich's progress, drawn only when asked (``draw``): not when a stage's task is added or removed, which
    would show it before its first report."""

    def refresh(self) -> None:
        pass

    def draw(self) -> None:
        super().refresh()


class Progress:
    """The stage line of one command, on ``Terminal``; ``with`` it around the work. Disabled, it shows nothing
    and ``echo`` is ``click.echo`` to standard error."""

    def __init__(self, enabled: bool, where: Terminal | None = None) -> None:
        self.enabled = enabled
        self.where = (where or terminal()) if enabled else None
        self.stage: str | None = None
        self.task: TaskID | None = None
        self.last = float("-inf")
        self.live = False
        self.bar: _Bar | None = None
        if self.where is not None:
            w = self.where
            self.live = w.console.is_terminal
            self.bar = _Bar(_Line(w.clock), console=w.console, auto_refresh=False, transient=True,
                                    redirect_stdout=False, redirect_stderr=False, get_time=w.clock)

    def __enter__(self) -> Progress:
        if self.bar is not None and self.live:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None and self.live:
            self.bar.stop()  # (transient: the line goes)
            self.live = False

    def records(self, stage: str, n: int, total: int | None = None, unit: str = "records") -> None:
        """A stage's report: ``n`` of ``total`` (when known) ``unit`` done. A new stage replaces the line."""
        self._report(stage, n, total, unit, None)

    def status(self, stage: str, text: str) -> None:
        """A stage's report as free text (kg fetch's counts); no rate, no ETA."""
        self._report(stage, 0, None, "", text)

    def echo(self, message: str) -> None:
        """A line of its own on standard error, above the stage line (its values' control characters removed)."""
        message = printable(message)
        if self.bar is not None:
            self.bar.console.print(message, markup=False, highlight=False, emoji=False, soft_wrap=True)
        else:
            click.echo(message, err=True)

    def _report(self, stage: str, n: int, total: int | None, unit: str, text: str | None) -> None:
        bar, where = self.bar, self.where
        if bar is None or where is None:
            return
        new = stage != self.stage or self.task is None
        if new:
            if self.task is not None:
                bar.remove_task(self.task)
            self.stage = stage
            self.task = bar.add_task(stage, total=total, unit=unit, reports=0, text=text, first_at=where.clock(),
                                     first_n=n)  # (the rate: from the stage's first report to its last)
        assert self.task is not None
        reports = bar.tasks[-1].fields["reports"] + 1
        now = where.clock()
        bar.update(self.task, completed=n, total=total, reports=reports, text=text, last_at=now)
        every = where.every if self.live else LOG_EVERY
        if not new and now - self.last < every:
            return
        self.last = now
        if self.live:
            bar.draw()
        else:
            bar.console.print(line(bar.tasks[-1], now), markup=False, highlight=False, emoji=False,
                              soft_wrap=True)
