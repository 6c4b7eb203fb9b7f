"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``): no port, no
driver binary, no package beyond the standard library. Used by the browser tests and bench/bench_report.py.

The browser starts with a fresh profile, the network off (offline emulation, and every background service of
Chromium's disabled), and records what a page does: uncaught exceptions and console errors, and every request
for an http(s) URL (there should be none).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

CHROMIUM = os.environ.get("KG_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
         "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]  # (any request that escapes goes nowhere)


def available() -> bool:
    return Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)


class BrowserError(RuntimeError):
    pass


class Chromium:
    """One headless browser with one page. Use as a context manager."""

    def __init__(self, width: int = 1280, height: int = 900, timeout: float = 60.0) -> None:
        self.width, self.height, self.timeout = width, height, timeout
        self.profile = tempfile.mkdtemp(prefix="kg-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # the browser reads commands on fd 3 and writes answers on fd 4: move our ends out of the way first
        hi_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def fds() -> None:
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, close_fds=False)
        os.close(hi_r)
        os.close(hi_w)
        self._next = 0
        self._waiting: dict[int, queue.Queue] = {}
        self._lock = threading.Lock()
        self.events: list[dict] = []
        self._loaded = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session = None
        try:
            targets = self.send("Target.getTargets")["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            self.session = self.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
            for method in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
                self.send(method, session=True)
            self.send("Network.emulateNetworkConditions", session=True, offline=True, latency=0,
                      downloadThroughput=0, uploadThroughput=0)
            self.send("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                      deviceScaleFactor=1, mobile=False)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ protocol

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_child, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._lock:
                    for q in self._waiting.values():
                        q.put({"error": {"message": "the browser went away"}})
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._lock:
                        q = self._waiting.pop(msg["id"], None)
                    if q is not None:
                        q.put(msg)
                else:
                    self.events.append(msg)
                    if msg.get("method") == "Page.loadEventFired":
                        self._loaded.set()

    def send(self, method: str, session: bool = False, **params: object) -> dict:
        with self._lock:
            self._next += 1
            mid = self._next
            q: queue.Queue = queue.Queue()
            self._waiting[mid] = q
        msg: dict = {"id": mid, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        try:
            answer = q.get(timeout=self.timeout)
        except queue.Empty:
            raise BrowserError(f"{method}: no answer in {self.timeout:g} s") from None
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error'].get('message')}")
        return answer.get("result", {})

    # ------------------------------------------------------------ pages

    def open(self, path: Path) -> float:
        """Load a file and wait for its load event; the seconds from navigation to the load event."""
        self._loaded.clear()
        started = time.perf_counter()
        self.send("Page.navigate", session=True, url=Path(path).resolve().as_uri())
        if not self._loaded.wait(self.timeout):
            raise BrowserError(f"{path}: no load event in {self.timeout:g} s")
        return time.perf_counter() - started

    def evaluate(self, expression: str) -> object:
        res = self.send("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                        awaitPromise=True)
        if "exceptionDetails" in res:
            raise BrowserError(f"evaluate: {res['exceptionDetails'].get('text')}")
        return res.get("result", {}).get("value")

    def errors(self) -> list[str]:
        """Uncaught exceptions, console.error calls and error log entries so far."""
        out = []
        for ev in list(self.events):
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + (d.get("exception", {}).get("description") or d.get("text", "")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                       for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + p["entry"].get("text", ""))
        return out

    def remote_requests(self) -> list[str]:
        """Every http(s) URL the page asked for."""
        return [ev["params"]["request"]["url"] for ev in list(self.events)
                if ev.get("method") == "Network.requestWillBeSent"
                and ev["params"]["request"]["url"].startswith(("http:", "https:"))]

    def screenshot(self, path: Path, selector: str | None = None, most_height: int = 4000) -> None:
        """A PNG of the viewport's top, or of the element ``selector`` (at most ``most_height`` CSS pixels)."""
        clip = None
        if selector:
            box = self.evaluate(f"(() => {{ const el = document.querySelector({json.dumps(selector)}); "
                                "el.scrollIntoView(); const r = el.getBoundingClientRect(); "
                                "return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; })()")
            clip = {"x": box["x"], "y": box["y"], "width": max(box["w"], 1),
                    "height": min(max(box["h"], 1), most_height),
                    "scale": 1}
        params: dict = {"format": "png"}
        if clip:
            params.update(clip=clip, captureBeyondViewport=True)
        data = self.send("Page.captureScreenshot", session=True, **params)["data"]
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(base64.b64decode(data))

    def pdf(self, path: Path) -> bytes:
        """The page printed (print CSS applied) to a PDF file; its bytes."""
        data = base64.b64decode(self.send("Page.printToPDF", session=True, printBackground=False,
                                          preferCSSPageSize=True)["data"])
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(data)
        return data

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                try:
                    os.write(self._to_child, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
                    self.proc.wait(5)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
                    self.proc.wait(5)
        finally:
            for fd in (self._to_child, self._from_child):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
