"""The progress display (issue 26): one line per stage, replaced by the next; a rate only for a stage that
reported more than once; an ETA only after a few seconds; validation's own progress (shards done of shards);
nothing on standard error off a terminal unless --progress.

The build's lines are captured with a fake terminal (a rich console on a StringIO that says it is one) and
split into the frames it drew. Rates depend on the clock, so they are normalised to ``N``, and the ETA, which
depends on how long a stage runs, is dropped there and tested on a fake clock instead."""

from __future__ import annotations

import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from kg import api
from kg.cli import main
from kg.cli import progress as shown
from kg.infra import extsort
from kg.infra.workers import Forked
from kg.pipeline import stream
from kg.pipeline.tuning import Tuning
from kg.workspace import workspace_graph

ROOT = Path(__file__).resolve().parents[1]
CONTROL = re.compile(r"\x1b\[\?25[lh]|\x1b\[1A")  # cursor hidden / shown, cursor up (the transient clear)
FRAME = re.compile(r"\r\x1b\[2K|\n")  # each redraw starts by erasing the line
RATE = re.compile(r", [0-9][0-9,.]*(e[+-]?\d+)? (\w+)/s")
ETA = re.compile(r", ETA \d+m\d\ds")


def fake_terminal(monkeypatch: pytest.MonkeyPatch, clock=None, terminal: bool = True) -> StringIO:  # noqa: ANN001
    """Point the display at a StringIO that is a 100-column terminal, redrawn at every report."""
    out = StringIO()
    console = Console(file=out, force_terminal=terminal, width=100, color_system=None)
    monkeypatch.setattr(shown, "terminal", lambda: shown.Terminal(console, clock or shown.time.monotonic, every=0))
    return out


def frames(captured: str) -> list[str]:
    """The lines drawn, one per redraw, empty ones (the start and the final clear) left out."""
    return [f for f in FRAME.split(CONTROL.sub("", captured)) if f]


def normalised(frame: str) -> str:
    return ETA.sub("", RATE.sub(r", N \2/s", frame))


def stages(drawn: list[str]) -> list[tuple[str, str, str, int]]:
    """(stage, first frame, last frame, frames) for each run of frames of one stage, in order."""
    out: list[tuple[str, str, str, int]] = []
    for f in map(normalised, drawn):
        stage = f.split(":", 1)[0]
        if out and out[-1][0] == stage:
            out[-1] = (stage, out[-1][1], f, out[-1][3] + 1)
        else:
            out.append((stage, f, f, 1))
    return out


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 synthetic records (bench/synth.py): about 300,000 lines, so validation runs in shards."""
    path = tmp_path_factory.mktemp("synth") / "works.jsonl"
    subprocess.run([sys.executable, str(ROOT / "bench" / "synth.py"), "300", str(path)], check=True,
                   capture_output=True)
    return path


def test_build_progress_on_a_terminal(records: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lines of a build of 300 records, exactly, on a fake terminal whose clock moves 2 s at each report: a
    stage that reports once has no rate, the others a rate from their first report, an ETA once the stage has
    run 5 s (and its total is known), each stage replacing the line of the one before; validation in shards."""
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")  # (what is shown, not the two engines' agreement, is tested)
    now = [1000.0]
    out = fake_terminal(monkeypatch, clock=lambda: now[0])
    report = shown.Progress._report

    def ticking(self: shown.Progress, *args: object) -> None:
        now[0] += 2.0
        report(self, *args)  # type: ignore[arg-type]
    monkeypatch.setattr(shown.Progress, "_report", ticking)
    # the merge in Python, in blocks of whole lines of 1 MiB or more (the system's sort gives blocks as its pipe
    # fills, which depends on timing)
    monkeypatch.setattr(stream, "merge_blocks", lambda runs, scratch, most, external:
                        extsort.merge_blocks(runs, scratch, most=most, external=False))
    res = CliRunner().invoke(main, ["build", str(records), "--progress", "-j", "1", "--store", "store"])
    assert res.exit_code == 0, res.output
    # the merge reports after each block: the lines written so far, from the graph written
    ends, size = [], 0
    lines = workspace_graph().read_bytes().splitlines(keepends=True)
    for i, line in enumerate(lines, 1):
        size += len(line)
        if size >= extsort.PIPE_BUFFER or i == len(lines):
            ends.append(i)
            size = 0
    assert len(ends) > 3
    merge = [f"merge: {ends[0]:,} lines"] + [f"merge: {n:,} lines, {(n - ends[0]) / (2 * k):,.0f} lines/s"
                                              for k, n in enumerate(ends[1:], 1)]
    shards = 7
    validate = [f"validate: 0/{shards} shards (0%)"] + [
        f"validate: {i}/{shards} shards ({100 * i // shards}%), 0.5 shards/s" +
        (f", ETA 0m{2 * (shards - i):02d}s" if 2 * i >= shown.ETA_AFTER and i < shards else "")
        for i in range(1, shards + 1)]
    assert frames(out.getvalue()) == [
        "read: 0 records",  # (read reports every 500 records)
        "resolve: 300 records",  # one report: no rate
        "map: 0/300 records (0%)",
        "map: 64/300 records (21%), 32 records/s",  # 64 records in 2 s
        "map: 128/300 records (42%), 32 records/s",
        "map: 192/300 records (64%), 32 records/s, ETA 0m03s",  # 6 s into the stage: 108 records at 32/s
        "map: 256/300 records (85%), 32 records/s, ETA 0m01s",
        "map: 300/300 records (100%), 30 records/s",  # (done: no ETA)
        *merge,
        *validate,
        f"store: {len(lines):,} lines",
        f"store: {len(lines):,} lines",  # (drawn once more as the display stops, then cleared)
    ]
    assert out.getvalue().endswith("\x1b[?25h\r\x1b[1A\x1b[2K")
    # the stage line was cleared at the end: the summary is the only thing that stays, in CliRunner's stderr
    assert res.stderr.startswith("built 300 works from 300 records")


def test_no_progress_off_a_terminal_unless_asked(records: Path, workspace: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    out = fake_terminal(monkeypatch)
    res = CliRunner().invoke(main, ["build", str(records), "-j", "1", "--validate", "none"])
    assert res.exit_code == 0, res.output
    assert out.getvalue() == ""  # (CliRunner's stderr is not a terminal)
    assert res.stderr.startswith("built 300 works") and "records/s" not in res.stderr


def test_progress_asked_off_a_terminal_is_plain_lines(records: Path, workspace: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Into a file, --progress prints each stage's first report and then a line every LOG_EVERY seconds."""
    out = fake_terminal(monkeypatch, terminal=False)
    monkeypatch.setattr(shown, "LOG_EVERY", 3600.0)
    res = CliRunner().invoke(main, ["build", str(records), "--progress", "-j", "1", "--validate", "none"])
    assert res.exit_code == 0, res.output
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue()
    assert re.fullmatch(r"read: 0 records\nresolve: 300 records\nmap: 0/300 records \(0%\)\n"
                        r"merge: [1-9][0-9,]* lines\n", out.getvalue())


def test_validate_progress_in_shards(records: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kg validate --jobs 2 shows its shards; the report is the one without progress."""
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")
    assert CliRunner().invoke(main, ["build", str(records), "-j", "1", "--validate", "none"]).exit_code == 0
    out = fake_terminal(monkeypatch)
    res = CliRunner().invoke(main, ["validate", "--progress", "--jobs", "2", "-f", "json"])
    got = stages(frames(out.getvalue()))
    assert got == [("validate", "validate: 0/7 shards (0%)", "validate: 7/7 shards (100%), N shards/s", 9)]
    plain = CliRunner().invoke(main, ["validate", "--jobs", "2", "-f", "json"])
    assert (res.exit_code, res.stdout) == (plain.exit_code, plain.stdout)


def test_the_sample_validated_beside_the_merge_reports_through_the_pipe(records: Path, workspace: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """With workers, the sample is validated in a forked child while the graph is merged: its shards still
    show, after the merge, in order."""
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")
    seen: list[tuple] = []
    api.build([str(records)], api.BuildOptions(validation="sample:40", jobs=2, on_progress=lambda *a: seen.append(a),
                                               tuning=Tuning(shard_above=1000, shard_records=10)))
    after_merge = [a for a in seen if a[0] not in ("read", "resolve", "map", "merge")]
    assert after_merge[0] == ("validate", 0, after_merge[0][2], "shards")
    assert after_merge == [("validate", i, after_merge[0][2], "shards") for i in range(after_merge[0][2] + 1)]
    assert [a[0] for a in seen].index("validate") > max(i for i, a in enumerate(seen) if a[0] == "merge")


def test_forked_reports_come_before_the_answer() -> None:
    def work(n: int, on_progress) -> int:  # noqa: ANN001
        for i in range(n):
            on_progress("step", i)
        return n * 10
    got: list[tuple] = []
    with Forked(work, 3, reports=True) as child:
        answer = child.result(lambda *a: got.append(a))
    assert (answer, got) == (30, [("step", 0), ("step", 1), ("step", 2)])


def test_rate_after_two_reports_and_eta_after_a_few_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a clock the test moves: a one-shot stage has no rate; a stage's rate is from its reports; the ETA
    waits ETA_AFTER seconds; each stage replaces the line of the one before."""
    now = [100.0]
    out = fake_terminal(monkeypatch, clock=lambda: now[0])
    with shown.Progress(True) as p:
        p.records("read", 0)
        now[0] += 2
        p.records("resolve", 1000)  # one report
        now[0] += 3
        for i in range(8):  # 100 records a second
            p.records("map", 100 * i, 1000)
            now[0] += 1
        p.echo("warning: a record")
        p.records("validate", 0, 3, "shards")
        now[0] += 4
        p.records("validate", 1, 3, "shards")
    assert frames(out.getvalue()) == [
        "read: 0 records",
        "resolve: 1,000 records",
        "map: 0/1,000 records (0%)",
        "map: 100/1,000 records (10%), 100 records/s",
        "map: 200/1,000 records (20%), 100 records/s",
        "map: 300/1,000 records (30%), 100 records/s",
        "map: 400/1,000 records (40%), 100 records/s",
        "map: 500/1,000 records (50%), 100 records/s, ETA 0m05s",  # 5 s into the stage
        "map: 600/1,000 records (60%), 100 records/s, ETA 0m04s",
        "map: 700/1,000 records (70%), 100 records/s, ETA 0m03s",
        "warning: a record",  # above the line, which is drawn again under it
        "map: 700/1,000 records (70%), 100 records/s, ETA 0m03s",
        "validate: 0/3 shards (0%)",
        "validate: 1/3 shards (33%), 0.25 shards/s",
        "validate: 1/3 shards (33%), 0.25 shards/s",  # (the last draw, cleared as the display stops)
    ]
    assert out.getvalue().endswith("\x1b[?25h\r\x1b[1A\x1b[2K")  # the line is erased at the end
