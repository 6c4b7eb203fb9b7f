"""The workspace, the ``.kg`` folder builds write and commands read: its paths, the record of the inputs its graph
was built from, scratch folders, the pointer to a cluster build's parts folder, and what to fetch next."""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from pathlib import Path

import orjson

from .errors import KgError
from .infra import outputs, parts
from .infra.location import Location
from .ingest.read import display_path

WORKSPACE_ENV = "KG_HOME"
INPUTS_FILE = "inputs.json"  # the inputs of the build that wrote the workspace graph
FETCH_FOLDER = "fetched"  # where 'kg fetch' saves records unless -o


WORKSPACE_NAME = ".kg"


def workspace() -> Path:
    """The workspace folder: $KG_HOME, else the nearest .kg/ in the current folder or one of its parents (as git
    finds .git: ``cd kg && kg stats`` reads the project's), else .kg/ in the current folder (a build makes it);
    a .kg/ found above is given relative to the current folder (``../.kg``)."""
    if home := os.environ.get(WORKSPACE_ENV):
        return Path(home)
    above = found_above()
    return above if above is not None else Path(WORKSPACE_NAME)


def found_above() -> Path | None:
    """The .kg/ of the nearest parent folder, when the current folder has none (and no $KG_HOME says where)."""
    if os.environ.get(WORKSPACE_ENV):
        return None
    try:
        here = Path.cwd()
    except OSError:  # (the current folder was removed)
        return None
    if (here / WORKSPACE_NAME).is_dir():
        return None
    for folder in here.parents:
        if (folder / WORKSPACE_NAME).is_dir():
            return Path(os.path.relpath(folder / WORKSPACE_NAME, here))
    return None


def workspace_source() -> Path | str:
    """The workspace's graph: its ``graph.nq``, or the parts folder a cluster build wrote (``kg.infra.parts``; a
    path, or a URL)."""
    return parts.workspace_graph(workspace())


def workspace_graph() -> Path:
    """The workspace's graph on this machine: ``workspace_source`` unless that is a URL (an error then)."""
    src = workspace_source()
    if isinstance(src, str):
        raise KgError(f"{src}: the workspace graph is a parts folder at a URL; read it with kg query or kg export, "
                      "or copy it here and pass its folder")
    return src


def scratch_dir(folder: Path) -> Path:
    """A fresh scratch folder inside the workspace ``folder``; scratch folders of dead builds are removed first."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(".build-*"):
        pid = old.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not outputs.alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=".build-", suffix=f"-{os.getpid()}", dir=folder))


def inputs_note(plan: outputs.Outputs, inputs: list[str], options: dict[str, object] | None = None,
                ) -> tuple[str | None, bytes]:
    """A note when the workspace graph was built from other inputs than ``inputs``, and the record of these (and
    of the build's ``options``, ``options_record``: what a later plain ``kg build`` reuses)."""
    ids = ["stdin" if i == "-" else os.path.abspath(i) for i in inputs]
    given = ["stdin" if i == "-" else display_path(i) for i in inputs]
    mine = orjson.dumps({"inputs": ids, "given": given, **({"options": options} if options is not None else {})},
                        option=orjson.OPT_INDENT_2)
    try:
        last = orjson.loads((plan.workspace / INPUTS_FILE).read_bytes())
        before, given = list(last["inputs"]), [str(g) for g in last["given"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None, mine + b"\n"
    if sorted(before) == sorted(ids) or not plan.graph.path or not plan.graph.path.exists():
        return None, mine + b"\n"
    shown = ", ".join(given[:3]) + (f" and {len(given) - 3} more" if len(given) > 3 else "")
    return (f"{plan.graph.shown}: was built from other inputs ({shown}); this build replaces it with the graph "
            "of the inputs given", mine + b"\n")


def write_inputs(plan: outputs.Outputs, manifest: bytes) -> None:
    """The record of the build's inputs (``inputs_note``), committed with the workspace graph."""
    _commit_with(plan, plan.workspace / INPUTS_FILE, manifest)


def point_at_parts(plan: outputs.Outputs, folder: Location) -> None:
    """Make a cluster build's parts ``folder`` the workspace graph (the pointer, committed with the outputs)."""
    where = folder.where if folder.url else os.path.abspath(folder.where)
    _commit_with(plan, plan.workspace / parts.POINTER, (where + "\n").encode())


def drop_parts_pointer(plan: outputs.Outputs) -> None:
    """Make ``graph.nq`` the workspace graph again (after a build that wrote it is committed)."""
    pointer = plan.workspace / parts.POINTER
    if pointer.exists():
        pointer.unlink()


def _commit_with(plan: outputs.Outputs, path: Path, data: bytes) -> None:
    """A file of the workspace written aside and put in place with the other outputs of ``plan``."""
    target = outputs.Target(str(path), path, False, False)
    with outputs.opened(target, binary=True) as fh:
        fh.write(data)
    plan.extra.append(target)


def fetch_command(on_workspace: bool = True) -> str:
    """``kg fetch --cited-by ... && kg build ... fetched``: fetch what the inputs of the workspace graph cite, then
    build them again with the records fetched. The inputs are those of the last build (``inputs.json``), as paths
    that work from the current folder; ``INPUTS`` stands for them when they are not known or cannot be read again
    (standard input, a file since removed), or when the graph is not the workspace's."""
    inputs = last_inputs() if on_workspace else None
    if inputs is None:
        return (f"kg fetch --cited-by INPUTS && kg build INPUTS {FETCH_FOLDER} (INPUTS: the Crossref records the "
                "graph was built from)")
    fetched = os.path.abspath(FETCH_FOLDER)
    cited_by = [p for p in inputs if os.path.abspath(p) != fetched] or inputs
    built = inputs + ([] if any(os.path.abspath(p) == fetched for p in inputs) else [FETCH_FOLDER])
    return ("kg fetch" + "".join(f" --cited-by {shlex.quote(p)}" for p in cited_by) + " && kg build "
            + " ".join(map(shlex.quote, built)))


def last_inputs() -> list[str] | None:
    """The inputs of the build that wrote the workspace graph, shown relative to the current folder when inside
    it; None when not recorded, or when one of them cannot be read again (standard input, a path since gone)."""
    try:
        paths = [str(p) for p in orjson.loads((workspace() / INPUTS_FILE).read_bytes())["inputs"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not paths or any(p == "stdin" or not os.path.exists(p) for p in paths):
        return None
    here = os.getcwd()
    return [os.path.relpath(p, here) if os.path.commonpath([here, p]) == here else p for p in paths]


# ---------------------------------------------------------------- options that stick

STICKY = ("base", "tools", "topics")  # the options of kg build a later plain kg build reuses


def options_record(base: str, tools: tuple[Path, ...] | None, topics: Path | None) -> dict[str, object]:
    """The sticky options of a build as ``inputs.json`` keeps them: the base, and each file as given and absolute."""
    def file(p: Path) -> dict[str, str]:
        return {"given": display_path(str(p)), "path": os.path.abspath(p)}
    return {"base": base, "tools": [file(t) for t in tools or ()], "topics": file(topics) if topics else None}


def kept_options() -> dict[str, object]:
    """The sticky options of the build that wrote the workspace graph (``options_record``); {} when none."""
    try:
        kept = orjson.loads((workspace() / INPUTS_FILE).read_bytes()).get("options")
    except (OSError, ValueError, AttributeError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _kept_file(option: str, entry: object) -> Path:
    """A file kept as ``{"given", "path"}``: as given when that still names it from here, else its path (relative
    when under the current folder); a KgError when it is gone."""
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        raise KgError(f"{workspace() / INPUTS_FILE}: the kept {option} is unreadable; give {option} again, or "
                      "--defaults to build without the kept options")
    path, given = entry["path"], str(entry.get("given") or "")
    if not os.path.exists(path):
        raise KgError(f"{path}: kept from an earlier build as {option} and no longer there; give {option} FILE "
                      "again, or --defaults to build without the kept options")
    if given and os.path.abspath(given) == path:
        return Path(given)
    here = os.getcwd()
    return Path(os.path.relpath(path, here) if os.path.commonpath([here, path]) == here else path)


def sticky_options(base: str | None, tools: tuple[Path, ...], topics: Path | None, default_base: str,
                   forget: bool = False) -> tuple[str, tuple[Path, ...], Path | None, list[str]]:
    """``kg build``'s --base, --tools and --topics: those given, else those kept from the build that wrote the
    workspace graph (none with ``forget``, --defaults), else the defaults; and the notes that say what was reused,
    replaced or dropped (one line each)."""
    kept = kept_options()
    b, t = kept.get("base"), kept.get("tools")
    was_base = b if isinstance(b, str) else None
    raw_tools = t if isinstance(t, list) else []
    if forget:
        dropped = {"--base": was_base if was_base != default_base else None,
                   "--tools": " --tools ".join(_given(t) for t in raw_tools) or None,
                   "--topics": _given(kept["topics"]) if kept.get("topics") else None}
        shown = _shown({k: v for k, v in dropped.items() if v})
        return base or default_base, tools, topics, (
            [f"--defaults: the options kept from the last build are dropped ({shown})"] if shown else [])
    was_tools = tuple(_kept_file("--tools", t) for t in raw_tools)
    was_topics = _kept_file("--topics", kept["topics"]) if kept.get("topics") else None
    was: dict[str, str] = {}  # option -> the kept value as shown, where it is not the default
    if was_base and was_base != default_base:
        was["--base"] = was_base
    if was_tools:
        was["--tools"] = " --tools ".join(map(str, was_tools))
    if was_topics:
        was["--topics"] = str(was_topics)
    now = {"--base": base, "--tools": " --tools ".join(map(str, tools)) or None,
           "--topics": str(topics) if topics else None}
    reused = {k: v for k, v in was.items() if now[k] is None}
    changed = {k: (was.get(k), v) for k, v in now.items()
               if v is not None and v != was.get(k, _default(k, default_base))}
    notes = []
    if reused:
        notes.append(f"reusing the options of the last build: {_shown(reused)} (give one again to change it, "
                     "--defaults to drop them)")
    for k, (old, new) in changed.items():
        notes.append(f"{k} {new} replaces {k} {old} of the last build; later builds reuse it" if old else
                     f"{k} {new}: later builds without {k} reuse it (--defaults drops it)")
    return (base or (was_base if was_base and "--base" in was else default_base), tools or was_tools,
            topics or was_topics, notes)


def _given(entry: object) -> str:
    return str(entry.get("given") or entry.get("path") or "?") if isinstance(entry, dict) else "?"


def _default(option: str, default_base: str) -> str | None:
    return default_base if option == "--base" else None


def _shown(options: dict[str, str]) -> str:
    return " ".join(f"{k} {v}" for k, v in options.items())
