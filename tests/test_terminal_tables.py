"""Tables that fit the terminal and the headline answer that reads as one (issue 47, items 1-3): every stored query
on the seeds and on the samples at 80 and 120 columns, the headline on a terminal to the character, and one query
on a real terminal (a pty of a set size)."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rich.cells import cell_len

from kg.cli import main
from kg.query.stored import stored_queries

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(stored_queries())
# the columns that hold names (docs/queries.md, "Words first"), and the opaque IRIs a terminal may leave out
NAME_COLUMNS = {"tool", "name", "name_a", "name_b", "venue", "label", "funder", "candidate", "author"}
IRI_COLUMN = re.compile(r"(?:^|_)iri(?:_|$)")
NOTE = re.compile(r"\((?:shortened to fit: (?P<cut>[^;]*))?(?:; )?(?:left out(?: to fit)?: (?P<out>[^;]*))?; "
                  r"--wide shows [a-z ]+\)")


def kg(home: Path, *args: str, **env: str) -> Result:
    r = CliRunner().invoke(main, list(args), env={"KG_HOME": str(home), "KG_TERMINAL": "0", **env}, prog_name="kg")
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output
    return r


def built(home: Path, *inputs: str) -> Path:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        r = kg(home, "build", "-q", "--validate", "none", *inputs)
    assert r.exit_code == 0, r.output
    return home


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The workspaces (KG_HOME) of the seeds and of the samples."""
    base = tmp_path_factory.mktemp("terminal")
    return {"seeds": built(base / "seeds", "seeds"), "samples": built(base / "samples", "tests/data/samples")}


def on_terminal(home: Path, *args: str, columns: int) -> str:
    r = kg(home, "query", *args, KG_TERMINAL="1", COLUMNS=str(columns))
    assert (r.exit_code, r.stderr) == (0, ""), r.output
    return r.stdout


@pytest.mark.parametrize("corpus", ["seeds", "samples"])
@pytest.mark.parametrize("name", NAMES)
def test_every_stored_query_fits_80_and_120_columns(corpora: dict[str, Path], corpus: str, name: str) -> None:
    """No line wider than the terminal; a name column is cut only when every ``*_iri`` column is left out; whatever
    is cut or left out is named under the table; with nothing named the table is the one --wide shows."""
    home = corpora[corpus]
    columns = stored_queries()[name].returns
    wide = on_terminal(home, name, "--wide", columns=80)
    for width in (80, 120):
        out = on_terminal(home, name, columns=width)
        assert max(map(cell_len, out.splitlines())) <= width, f"{name} on {corpus} at {width}:\n{out}"
        note = NOTE.search(out.replace("\n", " "))
        if note is None:  # (a header may be broken into lines: the rows are compared)
            assert _rows(out) == _rows(wide), f"{name} on {corpus} at {width}: cut or left out, and no line says so"
            continue
        cut = set((note.group("cut") or "").split(", ")) - {""}
        left_out = set((note.group("out") or "").split(", ")) - {""}
        assert cut or left_out
        if cut & NAME_COLUMNS:
            assert {c for c in columns if IRI_COLUMN.search(c)} <= left_out, f"{name} on {corpus} at {width}"


def _rows(table: str) -> list[str]:
    """The lines of a table after the rule under its headers, their spaces collapsed (columns whose header is
    broken into lines are narrower)."""
    lines = table.splitlines()
    return [" ".join(line.split()) for line in lines[next(i for i, line in enumerate(lines)
                                                          if re.fullmatch(r"-+(?: -+)*", line)) + 1:]]


def test_a_text_column_with_one_doi_among_its_values_is_still_text(tmp_path: Path) -> None:
    """Issue 47, item 1: one reference whose text is a bare https://doi.org/... made the whole text column an
    identifier that was never shortened, and the names were cut instead."""
    g = tmp_path / "refs.nt"
    g.write_text('<https://x.org/r1> <https://schema.org/name> "Nsight Compute" .\n'
                 '<https://x.org/r1> <https://schema.org/text> "https://doi.org/10.1145/3458817.3476209" .\n'
                 '<https://x.org/r2> <https://schema.org/name> "Tensor Comprehensions" .\n'
                 '<https://x.org/r2> <https://schema.org/text> "Nicolas Vasilache, Oleksandr Zinenko, Theodoros '
                 'Theodoridis. Tensor Comprehensions: framework-agnostic high-performance machine learning '
                 'abstractions. arXiv 2018." .\n', encoding="utf-8")
    q = "SELECT ?tool ?text ?r WHERE { ?r schema:name ?tool ; schema:text ?text } ORDER BY ?r"
    r = kg(tmp_path, "query", "-g", str(g), "-e", q, KG_TERMINAL="1", COLUMNS="60")
    assert r.stdout == """\
tool                  text                  r
--------------------- --------------------- ----------------
Nsight Compute        https://doi.org/10.…  https://x.org/r1
Tensor Comprehensio…  Nicolas Vasilache, …  https://x.org/r2
(2 rows)
(shortened to fit: tool, text; --wide shows them whole)
"""


@pytest.fixture(scope="module")
def seeds(corpora: dict[str, Path]) -> Path:
    return corpora["seeds"]


BOTH_80 = """\
side A, Performance analysis: 3 papers
  A Journey of a 1,000 Kernels Begins with a Single Step: A Retrospective of De…
  PASTA: A Modular Program Analysis Tool Framework for Accelerators
  Snap & Replay: A new way to analyze uarch-scale performance bottlenecks for M…
side B, Compilers and code generation: 1 paper
  Elk: Exploring the Efficiency of Inter-core Connected AI Chips with Deep Lear…

                                               Compilers and code
tool                   Performance analysis    generation             references
---------------------- ----------------------- ---------------------- ----------
AMOS                   1 A Journey of a 1,00…  1 Elk: Exploring the…  2

FlashAttention         1 Snap & Replay: A ne…  1 Elk: Exploring the…  4

Megatron-LM            1 PASTA: A Modular Pr…  1 Elk: Exploring the…  4

PyTorch                3 A Journey of a 1,00…  1 Elk: Exploring the…  7
                         PASTA: A Modular Pr…
                         Snap & Replay: A ne…

Tensor Comprehensions  1 A Journey of a 1,00…  1 Elk: Exploring the…  2

TVM                    2 A Journey of a 1,00…  1 Elk: Exploring the…  3
                         Snap & Replay: A ne…

vLLM                   2 PASTA: A Modular Pr…  1 Elk: Exploring the…  3
                         Snap & Replay: A ne…

XLA                    2 A Journey of a 1,00…  1 Elk: Exploring the…  4
                         Snap & Replay: A ne…
(8 rows)
(shortened to fit: Performance analysis, Compilers and code generation; left
out: category, tool_iri; --wide shows everything)
8 tools cited by both sides: PyTorch, TVM, vLLM, XLA, AMOS, FlashAttention,
Megatron-LM and Tensor Comprehensions
"""


def test_tools_cited_by_both_on_a_terminal_names_the_sides(seeds: Path) -> None:
    """The caption names each side and its papers; the per-side columns are headed with the side's label (the count,
    then the first three titles one a line); a closing line names the tools, most citing papers first."""
    assert on_terminal(seeds, "tools-cited-by-both", columns=80) == BOTH_80


HEADLINE_120 = """\
side A, Performance analysis: 3 papers
  A Journey of a 1,000 Kernels Begins with a Single Step: A Retrospective of Deep Learning on GPUs
  PASTA: A Modular Program Analysis Tool Framework for Accelerators
  Snap & Replay: A new way to analyze uarch-scale performance bottlenecks for ML accelerators
side B, Compilers and code generation: 1 paper
  Elk: Exploring the Efficiency of Inter-core Connected AI Chips with Deep Learning Compiler Techniques

tool            side  title                                   text                                    recognition_method
--------------- ----- --------------------------------------- --------------------------------------- ------------------
AMOS            B     Elk: Exploring the Efficiency of Inte…  https://doi.org/10.1145/3470496.35274…  doi
                A     A Journey of a 1,000 Kernels Begins w…  Size Zheng, Renze Chen, Anjiang Wei, …  doi

FlashAttention  B     Elk: Exploring the Efficiency of Inte…  Tri Dao Daniel Y. Fu Stefano Ermon At…  doi
                A     Snap & Replay: A new way to analyze u…  Tri Dao. 2024. FlashAttention-2: Fast…  paper-title
                                                              Tri Dao, Dan Fu, Stefano Ermon, Atri …  paper-title
                                                              Jay Shah, Ganesh Bikshandi, Ying Zhan…  paper-title
(6 rows)
(shortened to fit: title, text; left out: category, doi, key, recognition_score, matched, tool_iri; --wide shows
everything)
2 tools cited by both sides in these rows: AMOS and FlashAttention
"""


def test_the_headline_on_a_terminal_reads_as_an_answer(seeds: Path) -> None:
    """The README's main command: the sides named above, the rows grouped by tool (a value repeating the row
    above's left blank, a blank line between tools), the side as its letter, the details left out and named."""
    assert on_terminal(seeds, "tools-cited-by-profiling-and-compiler", "--limit", "6", columns=120) == HEADLINE_120
    whole = on_terminal(seeds, "tools-cited-by-profiling-and-compiler", columns=120)
    assert whole.splitlines()[-1] == ("8 tools cited by both sides: PyTorch, TVM, vLLM, XLA, AMOS, FlashAttention, "
                                      "Megatron-LM and Tensor Comprehensions")
    assert "(29 rows)" in whole.splitlines()
    other = on_terminal(seeds, "tools-cited-by-both", "-p", "topic-a=profiling", "-p",
                        "topic-b=deep-learning-compilers", columns=120)
    assert other.splitlines()[0].startswith("side A, Profiling and tracing: ")


def test_machine_formats_and_files_keep_the_columns(seeds: Path) -> None:
    """Only a table on a terminal is the headline view: csv is the golden answer, a table to a file the plain one."""
    for name in ("tools-cited-by-both", "tools-cited-by-profiling-and-compiler"):
        golden = (ROOT / "tests" / "golden" / "queries" / f"{name}.csv")
        csv = on_terminal(seeds, name, "-f", "csv", columns=80)
        if golden.is_file():
            assert csv.replace("\r\n", "\n") == golden.read_text(encoding="utf-8").replace("\r\n", "\n")
        plain = kg(seeds, "query", name).stdout
        assert plain.startswith("tool ") and "side A" not in plain and "cited by both sides" not in plain


def _read_all(fd: int) -> bytes:
    out = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # (the child closed the terminal: EIO on Linux)
            break
        if not chunk:
            break
        out += chunk
    return out


@pytest.mark.skipif(not hasattr(pty, "openpty") or sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_query_on_a_real_terminal_of_90_columns_fits_it(seeds: Path) -> None:
    """kg on a pseudo-terminal of 90x40 (its size set by ioctl; no COLUMNS, no KG_TERMINAL): the stream is a
    terminal, its width the terminal's, and no line is wider."""
    import fcntl
    import termios
    kg_bin = shutil.which("kg", path=str(Path(sys.executable).parent)) or shutil.which("kg")
    assert kg_bin is not None
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 90, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "KG_TERMINAL")}
    env["KG_HOME"] = str(seeds)
    proc = subprocess.Popen([kg_bin, "query", "tools-cited-by-both"], stdin=terminal, stdout=terminal,
                            stderr=terminal, env=env, cwd=ROOT, close_fds=True)
    os.close(terminal)
    out = _read_all(controller).decode("utf-8").replace("\r\n", "\n")
    os.close(controller)
    assert proc.wait(timeout=60) == 0, out
    lines = out.splitlines()
    assert lines[0] == "side A, Performance analysis: 3 papers"
    assert max(map(cell_len, lines)) <= 90 and max(map(cell_len, lines)) > 80, out
    assert " ".join(lines[-2:]).startswith("8 tools cited by both sides: PyTorch, TVM")


def test_a_list_column_shows_an_item_a_line(seeds: Path) -> None:
    """Multi-value cells (a work's authors, one a line) wrap inside their column, a blank line between rows."""
    assert on_terminal(seeds, "works", "--limit", "2", columns=100) == """\
title           type            year  venue           authors         doi
--------------- --------------- ----- --------------- --------------- ------------------------------
PASTA: A Modu…  proceedings-a…  2026  2026 IEEE/ACM…  Mao Lin         10.1109/cgo68049.2026.11395237
                                                      Hyeran Jeon
                                                      Keren Zhou

A Journey of …  proceedings-a…  2024  Proceedings o…  Michael Davies  10.1145/3620665.3640367
                                                      Ian McDougall
                                                      Selvaraj Anan…
                                                      Deep Machchhar
                                                      Rithik Jain
                                                      Karthikeyan S…
(2 rows)
(shortened to fit: title, type, venue, authors; --wide shows them whole)
"""
    assert kg(seeds, "query", "works", "--limit", "1").stdout.splitlines()[2].endswith(
        "Mao Lin Hyeran Jeon Keren Zhou  10.1109/cgo68049.2026.11395237")  # (a file: one line a row, as before)
