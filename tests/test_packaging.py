"""An installed copy (``pip install .``, not editable) finds shapes/, queries/ and seeds/: the wheel puts
them under {prefix}/share/crossref-kg (pyproject's data-files), where kg/resources.py looks."""

from __future__ import annotations

import glob
import tomllib
from pathlib import Path

from kg import resources

ROOT = Path(__file__).resolve().parents[1]


def test_data_files_ship_every_shape_query_and_seed() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    shipped = {target: sorted(f for pattern in patterns for f in glob.glob(pattern, root_dir=ROOT))
               for target, patterns in conf["data-files"].items()}
    assert set(shipped) == {"share/crossref-kg/shapes", "share/crossref-kg/queries", "share/crossref-kg/seeds"}
    for target, files in shipped.items():
        name = target.rsplit("/", 1)[1]
        present = sorted(str(p.relative_to(ROOT)) for p in (ROOT / name).iterdir() if p.is_file()
                         and p.suffix in (".ttl", ".rq", ".txt"))
        assert files == present and files, target


def test_an_installed_copy_looks_where_the_wheel_puts_them(tmp_path: Path) -> None:
    """Without a checkout beside the package, shapes and queries come from {sys.prefix}/share/crossref-kg."""
    package, prefix = tmp_path / "site-packages" / "kg", str(tmp_path / "prefix")
    for name in ("shapes", "queries"):
        (tmp_path / "prefix" / "share" / "crossref-kg" / name).mkdir(parents=True)
        assert resources.project_dir(name, package, prefix) == tmp_path / "prefix" / "share" / "crossref-kg" / name
    assert resources.project_dir("shapes") == resources.shapes_dir()  # (this checkout's own)
