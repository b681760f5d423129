"""Policies (bots) by name: ``random``, ``greedy``, ``expert``, ... or an import path.

A policy is a jitted function ``policy(obs, params, rng) -> move`` (see
``lostcards/observation.py`` for ``obs`` and ``lostcards/engine.py`` for moves),
plus its named parameters.  ``resolve("expert:invest=never")`` turns a policy
spec into a ``Policy`` ready for the engine; ``register`` adds one.  A spec may
also be an import path, ``mypkg.mybots:cautious``, naming a ``Policy`` or a
jitted function; packages can register theirs in the entry-point group
``lostcards.policies``.
"""
from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from lostcards.errors import PolicyError


@dataclass(frozen=True)
class Policy:
    """A numba policy with its parameters.

    ``parameters`` maps each name to its default; a default that is a dict maps
    the allowed words to numbers (``{"normal": 0, "never": 1}``, first = default).
    ``values`` are this instance's numbers in declaration order.
    """

    name: str
    kernel: object
    parameters: dict = field(default_factory=dict)
    values: tuple = ()
    doc: str = ""
    python: object = None

    @property
    def params(self) -> np.ndarray:
        vals = self.values or tuple(_default(v) for v in self.parameters.values())
        return np.array(vals if vals else (0.0,), dtype=np.float64)

    @property
    def spec(self) -> str:
        """The canonical spec text: name, then the parameters that differ from the defaults."""
        if not self.values:
            return self.name
        parts = []
        for (k, d), v in zip(self.parameters.items(), self.values):
            if v != _default(d):
                word = next((w for w, x in d.items() if x == v), None) if isinstance(d, dict) else None
                parts.append(f"{k}={word if word is not None else _num(v)}")
        return self.name + (":" + ",".join(parts) if parts else "")

    def with_params(self, text: str) -> "Policy":
        values = [_default(v) for v in self.parameters.values()]
        names = list(self.parameters)
        for item in filter(None, (t.strip() for t in text.split(","))):
            if "=" not in item:
                raise PolicyError(f"policy parameter {item!r} of {self.name!r} must be NAME=VALUE")
            k, v = (s.strip() for s in item.split("=", 1))
            if k not in self.parameters:
                allowed = ", ".join(names) or "none"
                raise PolicyError(f"unknown parameter {k!r} of policy {self.name!r} (allowed: {allowed})")
            d = self.parameters[k]
            if isinstance(d, dict):
                if v not in d:
                    raise PolicyError(f"{self.name}:{k}={v} is not allowed: one of {', '.join(d)}")
                values[names.index(k)] = float(d[v])
            else:
                try:
                    values[names.index(k)] = float(v)
                except ValueError:
                    raise PolicyError(f"{self.name}:{k}={v} is not allowed: a number") from None
        return Policy(self.name, self.kernel, self.parameters, tuple(values), self.doc, self.python)


def _default(d):
    return float(next(iter(d.values()))) if isinstance(d, dict) else float(d)


def _num(v):
    return str(int(v)) if float(v).is_integer() else str(v)


_REGISTRY: dict[str, Policy] = {}
_BUILTIN_MODULES = ("random", "greedy", "expert", "search")
_loaded = False
BROKEN: dict[str, str] = {}      # entry points that failed to load: name -> why (warned once)


def register(policy: Policy) -> Policy:
    """Make a policy available by its name."""
    _REGISTRY[policy.name] = policy
    return policy


def _load_builtin(mod: str):
    try:
        importlib.import_module(f"{__name__}.{mod}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{mod}":
            raise


def _load_builtins():
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in _BUILTIN_MODULES:
        _load_builtin(mod)
    from importlib.metadata import entry_points
    for ep in entry_points(group="lostcards.policies"):
        try:
            obj = ep.load()
        except Exception as e:      # a broken third-party entry point must not break the built-ins
            BROKEN[ep.name] = f"{ep.value}: {type(e).__name__}: {e}"
            print(f"lostcards: warning: policy entry point {ep.name!r} ({BROKEN[ep.name]}) cannot be "
                  "loaded; it is left out", file=sys.stderr)
            continue
        if not isinstance(obj, Policy):
            BROKEN[ep.name] = f"{ep.value} is not a lostcards Policy"
            print(f"lostcards: warning: policy entry point {ep.name!r}: {BROKEN[ep.name]}; it is left out",
                  file=sys.stderr)
        elif obj.name not in _REGISTRY:
            register(obj)


def split_policies(text: str) -> list[str]:
    """'expert:invest=never,endgame=off,greedy' -> ['expert:invest=never,endgame=off', 'greedy']."""
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if out and "=" in piece and ":" not in piece.split("=", 1)[0]:
            out[-1] += "," + piece
        elif piece:
            out.append(piece)
    return out


def names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def resolve(spec) -> Policy:
    """A Policy from ``name``, ``name:k=v,...``, ``module.path:attr`` or a Policy."""
    if isinstance(spec, Policy):
        return spec
    text = str(spec).strip()
    name, _, params = text.partition(":")
    if name in _BUILTIN_MODULES:
        _load_builtin(name)       # only the module asked for: a quick start
    else:
        _load_builtins()
    if name in _REGISTRY:
        return _REGISTRY[name].with_params(params) if params else _REGISTRY[name]
    if name in BROKEN:
        raise PolicyError(f"policy {name!r} cannot be loaded: {BROKEN[name]}")
    if "." in name and params:
        attr, _, params = params.partition(":")
        if os.getcwd() not in sys.path:
            sys.path.append(os.getcwd())    # a user's module in the working directory, as `python -m` would
        try:
            obj = getattr(importlib.import_module(name), attr)
        except (ImportError, AttributeError) as e:
            raise PolicyError(f"cannot load policy {text!r}: {e}") from None
        if not isinstance(obj, Policy):
            if hasattr(obj, "py_func"):          # a numba policy: the fast engine
                obj = Policy(f"{name}:{attr}", obj, doc=(obj.__doc__ or "").strip())
            elif callable(obj):                  # plain Python: the reference engine
                obj = Policy(f"{name}:{attr}", None, doc=(obj.__doc__ or "").strip(), python=obj)
            else:
                raise PolicyError(f"{name}:{attr} is neither a Policy nor a callable")
        return obj.with_params(params) if params else obj
    raise PolicyError(f"unknown policy {name!r} (known: {', '.join(names())}; or module.path:name)")
