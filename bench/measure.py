"""Run a command and measure its wall time and the peak memory of its whole process tree.

Every 50 ms the tree (the command and every process it starts, such as build workers) is sampled from
/proc: the sum of the proportional set sizes (PSS: a page shared by n processes counts 1/n in each, so
forked workers are not counted twice) and the RSS of the command's own process. The peaks are reported.
Linux only.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Run:
    seconds: float
    peak_mb: float  # peak PSS of the process tree
    returncode: int
    stdout: str
    stderr: str
    main_rss_mb: float = 0.0  # peak RSS of the command's own process


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def _field_kb(path: str, key: str) -> int:
    """A ``Key:  N kB`` field of a /proc file, 0 when the process is gone."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _pss_kb(pid: int) -> int:
    return _field_kb(f"/proc/{pid}/smaps_rollup", "Pss:")


def _rss_kb(pid: int) -> int:
    return _field_kb(f"/proc/{pid}/status", "VmRSS:")


def tree_pss_kb(root: int) -> int:
    kids = _children()
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _pss_kb(pid)
        todo.extend(kids.get(pid, ()))
    return total


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None,
        timeout: float | None = None) -> Run:
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})}, cwd=cwd)
    peak = main = 0
    out_chunks: list[str] = []
    err_chunks: list[str] = []
    import threading

    def drain(stream, sink: list[str]) -> None:  # noqa: ANN001
        for line in stream:
            sink.append(line)

    threads = [threading.Thread(target=drain, args=(proc.stdout, out_chunks), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, err_chunks), daemon=True)]
    for t in threads:
        t.start()
    while proc.poll() is None:
        peak = max(peak, tree_pss_kb(proc.pid))
        main = max(main, _rss_kb(proc.pid))
        if timeout is not None and time.perf_counter() - started > timeout:
            proc.kill()
            break
        time.sleep(0.05)
    proc.wait()
    seconds = time.perf_counter() - started
    for t in threads:
        t.join()
    return Run(seconds, peak / 1024, proc.returncode, "".join(out_chunks), "".join(err_chunks), main / 1024)
