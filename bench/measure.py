"""Run a command and measure its wall time and the peak memory of its whole process tree.

Every 50 ms the tree (the command and every process it starts, such as build workers) is sampled from
/proc: the sum of the proportional set sizes (PSS: a page shared by n processes counts 1/n in each, so
forked workers are not counted twice), the RSS of the command's own process, and each process's own peak RSS
(``VmHWM``, exact even between two samples), so the largest process's peak is known. The peaks are reported,
with the tree's RSS over time (to attribute memory to the stages of ``kg build --timings``).
Linux only.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Run:
    seconds: float
    peak_mb: float  # peak PSS of the process tree
    returncode: int
    stdout: str
    stderr: str
    main_rss_mb: float = 0.0  # peak RSS of the command's own process
    largest_mb: float = 0.0  # the largest peak RSS (VmHWM) of any one process of the tree
    processes: list[tuple[int, str, float]] = field(default_factory=list)  # (pid, role, peak RSS MB), by pid
    timeline: list[tuple[float, float]] = field(default_factory=list)  # (seconds, tree RSS MB) every sample


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


def _tree(root: int) -> list[int]:
    kids = _children()
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, ()))
    return out


def tree_pss_kb(root: int) -> int:
    return sum(_pss_kb(pid) for pid in _tree(root))


def _role(pid: int, root: int) -> str:
    """'main' for the command's own process, else 'worker' with the first words of its command line."""
    if pid == root:
        return "main"
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "worker"
    return "worker " + " ".join(a.decode(errors="replace").rsplit("/", 1)[-1] for a in argv[:3] if a)[:60]


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None,
        timeout: float | None = None) -> Run:
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})}, cwd=cwd)
    peak = main = 0
    hwm: dict[int, int] = {}
    roles: dict[int, str] = {}
    timeline: list[tuple[float, float]] = []
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
        pids = _tree(proc.pid)
        peak = max(peak, sum(_pss_kb(pid) for pid in pids))
        main = max(main, _rss_kb(proc.pid))
        rss = 0
        for pid in pids:  # VmHWM: the process's own peak RSS, exact between two samples
            hwm[pid] = max(hwm.get(pid, 0), _field_kb(f"/proc/{pid}/status", "VmHWM:"))
            rss += _rss_kb(pid)
            if pid not in roles:
                roles[pid] = _role(pid, proc.pid)
        timeline.append((time.perf_counter() - started, rss / 1024))
        if timeout is not None and time.perf_counter() - started > timeout:
            proc.kill()
            break
        time.sleep(0.05)
    proc.wait()
    seconds = time.perf_counter() - started
    for t in threads:
        t.join()
    processes = [(pid, roles.get(pid, "worker"), kb / 1024) for pid, kb in sorted(hwm.items())]
    return Run(seconds, peak / 1024, proc.returncode, "".join(out_chunks), "".join(err_chunks), main / 1024,
               max((p[2] for p in processes), default=0.0), processes, timeline)
