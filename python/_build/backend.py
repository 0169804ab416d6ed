"""A PEP 517 build backend on the standard library alone, kept in the source tree (`backend-path`).

Written by hand because no build backend can be assumed on an offline machine: pip fetches the backend from
PyPI unless `--no-build-isolation` is given, and then it must already be installed. setuptools before 70.1 cannot
build a wheel without the separate `wheel` package (the Python this project is developed with has setuptools
65 and no `wheel`), and flit_core or hatchling are rarely preinstalled. This backend needs nothing, so
`pip install ./python` works offline with or without build isolation, on any pip that knows `backend-path` (19.1+).

It builds what a pure-Python package needs and nothing more: a `py3-none-any` wheel of `src/<package>/` with the
metadata of pyproject.toml's `[project]` table (the version is the contract's, `CONTRACT_VERSION` in the generated `_constants.py`), an
sdist, and an editable wheel (PEP 660: a `.pth` file pointing at `src/`).
"""

from __future__ import annotations

import ast
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
# Zip and tar entries carry this date, so a build depends only on the files (or SOURCE_DATE_EPOCH).
_EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, the earliest a zip can hold


def _read_project() -> Dict[str, Any]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        return _read_project_fallback(text)
    project: Dict[str, Any] = tomllib.loads(text)["project"]
    return project


def _read_project_fallback(text: str) -> Dict[str, Any]:
    """Before Python 3.11 (no `tomllib`): the `[project]` table's one-line strings and string arrays, which is
    all pyproject.toml uses there. A TOML basic string or array of them reads the same as a Python literal."""
    project: Dict[str, Any] = {}
    table = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            table = line.strip("[]").strip()
            continue
        if table in ("project", "project.urls") and "=" in line:
            key, _, value = line.partition("=")
            target = project if table == "project" else project.setdefault("urls", {})
            target[key.strip().strip('"')] = ast.literal_eval(value.strip())
    return project


class _Metadata:
    def __init__(self) -> None:
        project = _read_project()
        self.name: str = project["name"]
        self.package = re.sub(r"[-_.]+", "_", self.name).lower()
        # The version is the contract's (decision PY22), generated into _constants.py by `npm run generate`.
        constants = (SRC / self.package / "_constants.py").read_text(encoding="utf-8")
        match = re.search(r'^CONTRACT_VERSION = "([^"]+)"$', constants, re.M)
        if not match:
            raise RuntimeError(f"src/{self.package}/_constants.py has no CONTRACT_VERSION = \"...\" line")
        self.version = match.group(1)
        self.project = project

    @property
    def dist_info(self) -> str:
        return f"{self.package}-{self.version}.dist-info"

    def text(self) -> str:
        p = self.project
        lines = ["Metadata-Version: 2.1", f"Name: {self.name}", f"Version: {self.version}"]
        if "description" in p:
            lines.append(f"Summary: {p['description']}")
        if "requires-python" in p:
            lines.append(f"Requires-Python: {p['requires-python']}")
        if isinstance(p.get("license"), str):
            lines.append(f"License: {p['license']}")
        lines += [f"Project-URL: {label}, {url}" for label, url in p.get("urls", {}).items()]
        lines += [f"Classifier: {c}" for c in p.get("classifiers", [])]
        lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
        body = ""
        if isinstance(p.get("readme"), str):
            lines.append("Description-Content-Type: text/markdown")
            body = "\n" + (ROOT / p["readme"]).read_text(encoding="utf-8")
        return "\n".join(lines) + "\n" + body


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}"


def _package_files(meta: _Metadata) -> List[Tuple[str, bytes]]:
    base = SRC / meta.package
    files = []
    for path in sorted(base.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts or path.suffix in (".pyc", ".tmp") or path.name.startswith("."):
            continue
        files.append((path.relative_to(SRC).as_posix(), path.read_bytes()))
    return files


def _dist_info_files(meta: _Metadata) -> List[Tuple[str, bytes]]:
    wheel = "Wheel-Version: 1.0\nGenerator: analysis-api _build/backend.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    return [
        (f"{meta.dist_info}/METADATA", meta.text().encode("utf-8")),
        (f"{meta.dist_info}/WHEEL", wheel.encode("utf-8")),
        (f"{meta.dist_info}/top_level.txt", f"{meta.package}\n".encode("utf-8")),
    ]


def _write_wheel(directory: str, meta: _Metadata, files: List[Tuple[str, bytes]]) -> str:
    files = files + _dist_info_files(meta)
    record = "\n".join([_record_line(n, d) for n, d in files] + [f"{meta.dist_info}/RECORD,,", ""])
    files.append((f"{meta.dist_info}/RECORD", record.encode("utf-8")))
    filename = f"{meta.package}-{meta.version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=_zip_date())
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return filename


def _zip_date() -> Tuple[int, int, int, int, int, int]:
    t = time.gmtime(max(_EPOCH, 315532800))
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec)


# ---- the PEP 517 / PEP 660 hooks ----------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    meta = _Metadata()
    target = Path(metadata_directory) / meta.dist_info
    target.mkdir(parents=True, exist_ok=True)
    for name, data in _dist_info_files(meta):
        (Path(metadata_directory) / name).write_bytes(data)
    return meta.dist_info


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    meta = _Metadata()
    return _write_wheel(wheel_directory, meta, _package_files(meta))


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    meta = _Metadata()
    return _write_wheel(wheel_directory, meta, [(f"{meta.package}.pth", f"{SRC}\n".encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    meta = _Metadata()
    stem = f"{meta.package}-{meta.version}"
    filename = f"{stem}.tar.gz"
    names = ["pyproject.toml", "_build/backend.py"]
    if isinstance(meta.project.get("readme"), str):
        names.append(meta.project["readme"])
    names += [f"src/{n}" for n, _ in _package_files(meta)]

    def add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
        info = tarfile.TarInfo(f"{stem}/{name}")
        info.size, info.mtime, info.mode = len(data), _EPOCH, 0o644
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for name in names:
            add(tar, name, (ROOT / name).read_bytes())
        add(tar, "PKG-INFO", meta.text().encode("utf-8"))
    return filename
