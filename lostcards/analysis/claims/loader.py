"""Finding the experiments: one module per strategy tip, each declaring a ``CLAIM``."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import lostcards
from lostcards.errors import ClaimsError


def experiments_dir() -> Path:
    """The experiments folder: ``lostcards/experiments`` of an installed package, else ``experiments/``
    beside the package in a source tree (the one this ``lostcards`` was imported from)."""
    here = Path(lostcards.__file__).resolve().parent
    for d in (here / "experiments", here.parent / "experiments"):
        if (d / "__init__.py").is_file():
            return d
    raise ClaimsError(f"no experiments folder beside {here}")


def load_experiments(directory=None) -> dict:
    """{claim id: module} for every ``*.py`` of the folder that declares ``CLAIM``, in the claims' order."""
    directory = Path(directory) if directory else experiments_dir()
    found = []
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_") or "CLAIM = Claim(" not in path.read_text(encoding="utf-8"):
            continue
        name = f"lostcards_experiment_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        found.append(mod)
    found.sort(key=lambda m: (m.CLAIM.order, m.CLAIM.id))
    return {m.CLAIM.id: m for m in found}
