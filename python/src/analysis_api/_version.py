"""The package's version, in a module of its own: `__init__.py` exports it as `analysis_api.__version__` and the
clients send it in their `User-Agent`, both importing it from here (the clients importing the package back would be
an import circle; scripts/checks/check-python-circles.py)."""

from ._constants import CONTRACT_VERSION

__version__ = CONTRACT_VERSION
"""The package's version is the contract's `info.version` (decision PY22), `CONTRACT_VERSION` of the generated
`_constants.py`, which the build backend (python/_build/backend.py) reads for the wheel's version too."""
