"""The package installs offline with pip (`pip install --no-build-isolation ./python`), through the in-tree
build backend, and its wheel and sdist are well-formed."""

from __future__ import annotations

import base64
import hashlib
import importlib
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile
from pathlib import Path
from types import ModuleType

from support import contract, REPO, analysis_api

PROJECT = REPO / "python"


def backend() -> ModuleType:
    sys.path.insert(0, str(PROJECT / "_build"))
    try:
        return importlib.import_module("backend")
    finally:
        sys.path.remove(str(PROJECT / "_build"))


def source_modules() -> set[str]:
    """Every module of the package's source, as `analysis_api/<path>.py`, the private subpackages' included."""
    src = PROJECT / "src"
    return {p.relative_to(src).as_posix() for p in (src / "analysis_api").rglob("*.py") if "__pycache__" not in p.parts}


class PackageTest(unittest.TestCase):
    def test_pip_installs_it_offline_without_build_isolation(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "PIP_NO_CACHE_DIR": "1"}
            env.pop("PYTHONPATH", None)
            target = Path(tmp) / "site"
            install = subprocess.run(
                [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--target", str(target), str(PROJECT)],
                env=env, capture_output=True, text=True, timeout=300,
            )
            self.assertEqual(install.returncode, 0, install.stdout + install.stderr)
            probe = subprocess.run(
                [sys.executable, "-c", "import analysis_api, sys; print(analysis_api.__file__); print(analysis_api.__version__); print(analysis_api.Client(base_url='https://x.example', api_key='k').analyses.list.__name__)"],
                env={**env, "PYTHONPATH": str(target)}, cwd=tmp, capture_output=True, text=True, timeout=60,
            )
            self.assertEqual(probe.returncode, 0, probe.stderr)
            where, version, method = probe.stdout.split()
            self.assertTrue(where.startswith(str(target)), where)
            self.assertEqual((version, method), (analysis_api.__version__, "list"))
            for name in ("py.typed", "models.py", "_operations.py"):
                self.assertTrue((target / "analysis_api" / name).exists(), name)
            # Every module is installed, those of the private subpackages (`_http/`, `_calls/`, ...) included.
            installed = {p.relative_to(target).as_posix() for p in (target / "analysis_api").rglob("*.py")}
            self.assertEqual(installed, source_modules())

    def test_the_wheel_records_every_file_with_its_hash(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            name = backend().build_wheel(tmp)
            self.assertEqual(name, f"analysis_api-{analysis_api.__version__}-py3-none-any.whl")
            with zipfile.ZipFile(Path(tmp) / name) as wheel:
                record = wheel.read(f"analysis_api-{analysis_api.__version__}.dist-info/RECORD").decode().splitlines()
                files = set(wheel.namelist())
                for line in record:
                    path, digest, size = line.rsplit(",", 2)
                    if not digest:
                        continue
                    data = wheel.read(path)
                    self.assertEqual(digest, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), path)
                    self.assertEqual(int(size), len(data), path)
                metadata = wheel.read(f"analysis_api-{analysis_api.__version__}.dist-info/METADATA").decode()
            self.assertEqual({line.split(",")[0] for line in record}, files)
            self.assertIn("Requires-Python: >=3.9", metadata)
            self.assertNotIn("Requires-Dist", metadata)  # the standard library only
            # The version is the contract's; license and project URLs are in the metadata (issue 23).
            self.assertIn(f"Version: {contract()['info']['version']}", metadata)
            self.assertEqual(analysis_api.__version__, contract()["info"]["version"])
            self.assertIn("License: LicenseRef-Proprietary", metadata)
            self.assertIn("Project-URL: Documentation, https://", metadata)
            self.assertIn("## Quick start", metadata)  # the real python/README.md, not a pointer

    def test_the_sdist_holds_what_a_build_needs(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            name = backend().build_sdist(tmp)
            with tarfile.open(Path(tmp) / name) as sdist:
                names = set(sdist.getnames())
        stem = name[: -len(".tar.gz")]
        for needed in ("pyproject.toml", "_build/backend.py", "PKG-INFO", "src/analysis_api/__init__.py", "src/analysis_api/models.py"):
            self.assertIn(f"{stem}/{needed}", names)
        self.assertLessEqual({f"{stem}/src/{m}" for m in source_modules()}, names)  # the subpackages' modules too

    def test_the_pre_3_11_reader_of_pyproject_agrees_with_tomllib(self) -> None:
        b = backend()
        text = (PROJECT / "pyproject.toml").read_text(encoding="utf-8")
        fallback = b._read_project_fallback(text)
        try:
            import tomllib
        except ImportError:
            self.assertEqual(fallback["name"], "analysis-api")
            return
        self.assertEqual(fallback, tomllib.loads(text)["project"])


if __name__ == "__main__":
    unittest.main()
