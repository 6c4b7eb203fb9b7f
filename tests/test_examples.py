"""Every example runs (issue 26): the examples of every command's --help and the `kg ...` commands of the code
blocks of the README and of the docs/ pages it links, each in a workspace of its own built from seeds/, exit 0.

A README line runs its `kg` commands (joined by `&&` or `|`); what else it holds (the venv and pip of the install
lines, `oxigraph`, `isql-vt`) is not kg's and is left out; comments are. Prose in backquotes names commands and
options (`kg build --cluster`) and is not an example. The examples not run are listed in NOT_RUN with the
reason. The workspace holds what the examples name: seeds/, the seeds gzipped as dump/*.json.gz and as
more.jsonl.gz, and .kg/ built from seeds/ (once for the module; each example gets a copy). The examples
validate with the default SHACL engine, as a reader's would (the suite's default runs pySHACL beside it).
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main

ROOT = Path(__file__).resolve().parents[1]

# example -> why it is not run here
NOT_RUN = {
    "kg fetch --cited-by seeds --mailto you@example.org": "asks the Crossref API: the network",
    "kg build seeds fetched": "reads what the kg fetch before it downloaded (the network)",
    "kg fetch --cited-by seeds --mailto you@example.org && kg build seeds fetched":
        "asks the Crossref API: the network",
    "kg fetch --query-container-title ASPLOS --filter from-pub-date:2021 --mailto you@example.org":
        "asks the Crossref API: the network",
    "kg fetch --citing 10.1145/3341301.3359646 --depth 2 --mailto you@example.org":
        "asks the OpenCitations Index API and Crossref: the network",
    "kg fetch --citing seeds --cited-by seeds": "asks the OpenCitations Index API and Crossref: the network",
    "kg fetch --query 'deep learning compiler' --filter from-pub-date:2020 --count --mailto you@example.org":
        "asks the Crossref API: the network",
    "kg build fetched && kg report -o report.html": "reads what the kg fetch before it downloaded (the network)",
    "kg build /data/crossref/ --cluster local:8": "a folder of the reader's machine, on a cluster of 8 workers",
    "kg query tools --endpoint http://127.0.0.1:7878/query": "an endpoint (tests/test_queries.py runs one)",
    "kg export -f nt -o /srv/kg/load/graph.nt": "the load folder of a Virtuoso server",
    "kg query tools --endpoint http://127.0.0.1:8890/sparql --default-graph-uri https://example.org/crossref-kg":
        "a Virtuoso endpoint (tests/test_virtuoso.py runs one)",
    "kg report --endpoint http://127.0.0.1:8890/sparql --default-graph-uri https://example.org/my-graph":
        "a Virtuoso endpoint (tests/test_virtuoso.py runs kg report on one)",
}


def _commands(line: str) -> str | None:
    """The kg commands of a shell line, joined again by ``&&`` and ``|`` (None when it runs no kg command)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # (not shell: a line of Python or configuration)
        return None
    commands: list[tuple[str, list[str]]] = []
    joiner = ""
    for token in [*tokens, ";"]:
        if token in ("&&", "|", ";", "&"):
            if commands and commands[-1][1] == []:
                commands.pop()
            commands.append((token, []))
            continue
        if not commands:
            commands.append(("", []))
        commands[-1][1].append(token)
    out = ""
    for sep, words in commands:
        if words[:1] == ["kg"]:
            out += (f" {joiner} " if out else "") + shlex.join(words)
        joiner = sep if sep in ("&&", "|") else "&&"
    return out or None


def readme_examples(pages: tuple[Path, ...] = (ROOT / "README.md",)) -> list[str]:
    """The kg commands of the code blocks (fenced, or indented by four spaces) of these pages, in order, once each."""
    found: list[str] = []
    for page in pages:
        fenced = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                fenced = not fenced
                continue
            if fenced or line.startswith("    "):
                example = _commands(line.strip())
                if example and example not in found:
                    found.append(example)
    return found


DOC_PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))


def help_examples() -> dict[str, list[str]]:
    """The examples under 'Example:' in the help of ``kg`` and of each of its commands."""
    out: dict[str, list[str]] = {}
    for name, command in [("kg", main), *sorted(main.commands.items())]:
        examples = out.setdefault(name, [])
        under = False
        for line in (command.help or "").splitlines():
            if re.fullmatch(r"\s*Examples?:\s*", line):
                under = True
            elif under and line.strip().startswith("kg "):
                examples.append(line.strip())
            elif under and line.strip() and line.strip() != "\b":
                under = False
    return out


EXAMPLES = sorted({e for es in help_examples().values() for e in es} | set(readme_examples(DOC_PAGES)))


def test_every_command_has_an_example_and_the_readme_has_its_copy_paste_commands() -> None:
    """Every command's help has an example; the README's first command builds the seeds and asks the headline
    question; no exclusion below names an example that no longer exists."""
    assert all(help_examples().values()), [name for name, es in help_examples().items() if not es]
    readme = readme_examples()
    assert "kg build seeds && kg query tools-cited-by-profiling-and-compiler" in readme
    assert not any("pip" in e or "venv" in e for e in readme)  # (the install lines' kg commands only)
    assert set(NOT_RUN) <= set(EXAMPLES), set(NOT_RUN) - set(EXAMPLES)  # (no stale exclusion)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with seeds/, dump/*.json.gz and more.jsonl.gz (the seeds again), and .kg/ built from seeds/."""
    base = tmp_path_factory.mktemp("examples")
    shutil.copytree(ROOT / "seeds", base / "seeds")
    (base / "dump").mkdir()
    records = []
    for seed in sorted((base / "seeds").iterdir()):
        data = seed.read_bytes()
        (base / "dump" / f"{seed.stem}.json.gz").write_bytes(gzip.compress(data, mtime=0))
        records.append(json.dumps(json.loads(data)["message"]))
    (base / "more.jsonl.gz").write_bytes(gzip.compress("\n".join(records).encode() + b"\n", mtime=0))
    r = _run(base, ["build", "seeds"])
    assert r.exit_code == 0, r.output
    return base


def _run(where: Path, args: list[str], stdin: bytes | None = None):  # type: ignore[no-untyped-def]  # noqa: ANN202
    here = os.getcwd()
    os.chdir(where)
    try:
        expanded = [m for a in args for m in (sorted(glob.glob(a)) if any(c in a for c in "*?[") else []) or [a]]
        return CliRunner().invoke(main, expanded, input=stdin, prog_name="kg",
                                  env={"KG_HOME": None, "KG_TERMINAL": "0", "KG_SHACL_ENGINE": "fast"})
    finally:
        os.chdir(here)


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_example_runs(example: str, seeded: Path, tmp_path: Path) -> None:
    if example in NOT_RUN:
        pytest.skip(NOT_RUN[example])
    where = tmp_path / "ws"
    shutil.copytree(seeded, where)
    for chain in example.split(" && "):
        piped: bytes | None = None
        for command in chain.split(" | "):
            words = shlex.split(command)
            assert words[0] == "kg"
            r = _run(where, words[1:], piped)
            assert r.exit_code == 0, (example, command, r.stderr[-2000:])
            piped = r.stdout_bytes
