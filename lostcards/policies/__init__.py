"""Policies (bots) by name: ``random``, ``greedy``, ``expert``, ... or an import path.

A policy is a jitted function ``policy(obs, params, mem) -> move`` (see
``lostcards/engine/policy.py`` for the signature, ``lostcards/engine/observation.py`` for
``obs`` and ``lostcards/engine/moves.py`` for moves; ``docs/policies.md``), plus its
named parameters, each with its type and range (``Float``,
``Int``, ``Choice``, ``Switch``).  ``resolve("expert:invest=never")`` turns a policy
spec into a ``Policy`` ready for the engine; ``register`` adds one.  A spec may
also be an import path, ``mypkg.mybots:cautious``, naming a ``Policy`` or a
jitted function; packages can register theirs in the entry-point group
``lostcards.policies``.
"""
from __future__ import annotations

import importlib
import math
import os
import sys
import traceback
from dataclasses import dataclass, field

import numpy as np

from lostcards.errors import PolicyError

# ---- parameters: each declares its type and range ---------------------------------------------

def _shown(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text):,} characters)"


class Float(float):
    """A number parameter: its default, and the finite range lo..hi it may take."""

    def __new__(cls, default, lo: float = -1e15, hi: float = 1e15, meaning: str = ""):
        self = super().__new__(cls, default)
        self.lo, self.hi, self.meaning = float(lo), float(hi), meaning
        if not (self.lo <= float(default) <= self.hi):
            raise PolicyError(f"default {default!r} outside its own range {lo}..{hi}")
        return self

    @property
    def allowed(self) -> str:
        return f"a number in {_num(self.lo)}..{_num(self.hi)}"

    def parse(self, where: str, text: str) -> float:
        """The value of `text`; PolicyError naming the parameter, the value (shortened) and the range."""
        try:
            v = float(text) if len(text) <= 40 else float("nan")
        except ValueError:
            v = float("nan")
        if not (math.isfinite(v) and self.lo <= v <= self.hi and self._fits(v)):
            raise PolicyError(f"{where}={_shown(text)} is not allowed: {self.allowed}")
        return v

    def _fits(self, v: float) -> bool:
        return True

    def text(self, v: float) -> str:
        return _num(v)


class Int(Float):
    """A whole-number parameter (a count): its default and range lo..hi."""

    @property
    def allowed(self) -> str:
        return f"an integer in {_num(self.lo)}..{_num(self.hi)}"

    def _fits(self, v: float) -> bool:
        return float(v).is_integer()


class Choice(dict):
    """A parameter that takes one of some words, each standing for a number (the first is the default)."""

    meaning = ""

    @property
    def allowed(self) -> str:
        return "one of " + ", ".join(self)

    def parse(self, where: str, text: str) -> float:
        if text not in self:
            raise PolicyError(f"{where}={_shown(text)} is not allowed: {self.allowed}")
        return float(self[text])

    def text(self, v: float) -> str:
        return next((w for w, x in self.items() if x == v), _num(v))


def Switch(default: str = "on") -> Choice:
    """An on/off parameter (on = 1, off = 0), `default` first."""
    return Choice({"on": 1, "off": 0} if default == "on" else {"off": 0, "on": 1})


def as_parameter(name: str, d):
    """A declaration as a typed parameter: a Float, Int or Choice as it is; an old-style plain
    number is any finite number, a plain dict a Choice."""
    if isinstance(d, (Float, Choice)):
        return d
    if isinstance(d, dict):
        if not d or not all(isinstance(w, str) for w in d):
            raise PolicyError(f"parameter {name!r}: a choice maps words to numbers, got {d!r}")
        return Choice(d)
    if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d):
        raise PolicyError(f"parameter {name!r}: declare it as Float, Int, Choice or Switch, got {d!r}")
    return Float(d)


@dataclass(frozen=True)
class Policy:
    """A numba policy with its parameters.

    ``parameters`` maps each name to its declaration: ``Float(default, lo, hi)``,
    ``Int(default, lo, hi)``, ``Choice({"normal": 0, "never": 1})`` (first =
    default) or ``Switch("on")``; a plain number or dict is taken as an
    unbounded finite ``Float`` or a ``Choice``.  ``values`` are this instance's
    numbers in declaration order.
    """

    name: str
    kernel: object
    parameters: dict = field(default_factory=dict)
    values: tuple = ()
    doc: str = ""
    python: object = None

    def __post_init__(self):
        object.__setattr__(self, "parameters", {k: as_parameter(k, d) for k, d in self.parameters.items()})

    @property
    def params(self) -> np.ndarray:
        vals = self.values or tuple(_default(v) for v in self.parameters.values())
        return np.array(vals if vals else (0.0,), dtype=np.float64)

    @property
    def spec(self) -> str:
        """The canonical spec text: name, then the parameters that differ from the defaults."""
        if not self.values:
            return self.name
        parts = [f"{k}={d.text(v)}" for (k, d), v in zip(self.parameters.items(), self.values) if v != _default(d)]
        return self.name + (":" + ",".join(parts) if parts else "")

    def with_params(self, text: str) -> "Policy":
        values = [_default(v) for v in self.parameters.values()]
        names = list(self.parameters)
        given: set = set()
        for item in (t.strip() for t in text.split(",")):
            if "=" not in item:
                raise PolicyError(f"policy parameter {_shown(item)!r} of {self.name!r} must be NAME=VALUE")
            k, v = (s.strip() for s in item.split("=", 1))
            if k in given:
                raise PolicyError(f"{self.name}:{_shown(k)} is given twice in {_shown(self.name + ':' + text)!r}: "
                                  "give each parameter once")
            given.add(k)
            if k not in self.parameters:
                allowed = ", ".join(names) or "none"
                raise PolicyError(f"unknown parameter {_shown(k)!r} of policy {self.name!r} (allowed: {allowed})")
            values[names.index(k)] = self.parameters[k].parse(f"{self.name}:{k}", v)
        return Policy(self.name, self.kernel, self.parameters, tuple(values), self.doc, self.python)


def _default(d):
    return float(next(iter(d.values()))) if isinstance(d, dict) else float(d)


def _num(v):
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else f"{v:g}"


_REGISTRY: dict[str, Policy] = {}
_BUILTIN_MODULES = ("random", "greedy", "expert", "staller", "search", "improve", "learned", "student")
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


def split_policies(text: str, option: str = "--policies") -> list[str]:
    """'expert:invest=never,endgame=off,greedy' -> ['expert:invest=never,endgame=off', 'greedy'].

    An empty entry ('random,', ',random', 'a,,b', '') is refused, naming the option."""
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            raise PolicyError(f"{option} {_shown(text)!r} has an empty entry (a comma too many, or nothing): "
                              "give policy names separated by commas, e.g. expert,greedy")
        if out and "=" in piece and ":" not in piece.split("=", 1)[0]:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def resolve(spec) -> Policy:
    """A Policy from ``name``, ``name:k=v,...``, ``module.path:attr[:k=v,...]`` or a Policy.

    A module path may be a plain module in the working directory (``mymodule:first_card_away``).
    """
    if isinstance(spec, Policy):
        return spec
    if not isinstance(spec, str):
        raise PolicyError(f"a policy is a name such as 'expert:invest=never' or a Policy, got {_shown(repr(spec))}")
    text = spec.strip()
    name, _, params = text.partition(":")
    if name in _BUILTIN_MODULES:
        _load_builtin(name)       # only the module asked for: a quick start
    else:
        _load_builtins()
    if name in _REGISTRY:
        return _REGISTRY[name].with_params(params) if params else _REGISTRY[name]
    if name in BROKEN:
        raise PolicyError(f"policy {name!r} cannot be loaded: {BROKEN[name]}")
    attr, _, rest = params.partition(":")
    if attr and "=" not in attr:
        obj = _import_policy(text, name, attr)
        return obj.with_params(rest) if rest else obj
    raise PolicyError(f"unknown policy {_shown(name)!r} (known: {', '.join(names())}; or module:name, "
                      "a module on the import path or in the working directory)")


def _where(e: BaseException, prefer: str | None = None) -> str:
    """file:line where an exception was raised, in the user's code (relative to the working directory)."""
    if isinstance(e, SyntaxError) and e.filename:
        path, line = e.filename, e.lineno
    else:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if not f.filename.startswith("<")]
        if not frames:
            return "?"
        mine = [f for f in frames if prefer and f.filename == prefer]
        f = (mine or frames)[-1]
        path, line = f.filename, f.lineno
    try:
        path = os.path.relpath(path) if os.path.abspath(path).startswith(os.getcwd() + os.sep) else path
    except ValueError:
        pass
    return f"{path}:{line}"


def failure(e: BaseException, prefer: str | None = None) -> str:
    """One line for an exception raised in a user's policy code: type, message (first line) and where."""
    msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
    if isinstance(e, SyntaxError):
        msg = e.msg
    return f"{type(e).__name__}{': ' + _shown_long(msg) if msg else ''} ({_where(e, prefer)})"


def _shown_long(text: str, width: int = 120) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _import_policy(text: str, module: str, attr: str) -> Policy:
    here = os.getcwd()
    if sys.path[:1] != [here]:          # a user's module in the working directory comes first, as with `python -m`
        sys.path[:] = [here, *(p for p in sys.path if p != here)]
        importlib.invalidate_caches()
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and (module == e.name or module.startswith(e.name + ".")):
            raise PolicyError(f"cannot load policy {_shown(text)!r}: no module named {e.name!r} (not installed, "
                              "nor in the working directory)") from None
        raise PolicyError(f"cannot load policy {_shown(text)!r}: importing {module} failed: {failure(e)}") from None
    except Exception as e:              # the user's module raised while it was imported
        raise PolicyError(f"cannot load policy {_shown(text)!r}: importing {module} failed: {failure(e)}") from None
    try:
        obj = getattr(mod, attr)
    except AttributeError:
        raise PolicyError(f"cannot load policy {_shown(text)!r}: module {module} has no {attr!r}") from None
    if isinstance(obj, Policy):
        return obj
    if hasattr(obj, "py_func"):          # a numba policy: the fast engine
        _check_compiles(text, obj)
        return Policy(f"{module}:{attr}", obj, doc=(obj.__doc__ or "").strip())
    if callable(obj):                    # plain Python: the reference engine
        return Policy(f"{module}:{attr}", None, doc=(obj.__doc__ or "").strip(), python=obj)
    raise PolicyError(f"{module}:{attr} is neither a Policy nor a callable")


def _check_compiles(text: str, kernel) -> None:
    """A user's numba policy compiles for the policy signature, or PolicyError says why in one line."""
    from numba import types

    from lostcards.engine.policy import POLICY_SIG
    why = None
    try:
        kernel.compile(POLICY_SIG.args)           # a wrong signature is a TypeError, not a NumbaError
        got = kernel.overloads[tuple(POLICY_SIG.args)].signature.return_type
        if not isinstance(got, types.Integer):
            why = f"it returns {got}, not a move (an integer)"
    except Exception as e:  # noqa: BLE001 - whatever numba raises for the user's code: one line
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        why = f"{type(e).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    if why:
        raise PolicyError(f"policy {_shown_long(text, 60)!r} does not compile as a numba policy "
                          f"(obs, params, rng) -> move: {_shown_long(why)}") from None


def guarded(policy: Policy):
    """The plain-Python function of `policy`, raising PolicyFailure (one line: the policy, the exception
    and where in its code) instead of whatever the user's code raises."""
    fn = policy.python
    code = getattr(getattr(fn, "__code__", None), "co_filename", None)

    def call(obs, stream):
        try:
            return fn(obs, stream)
        except (Exception, SystemExit) as e:      # sys.exit() in a policy ends its run, not the program
            from lostcards.errors import PolicyFailure
            raise PolicyFailure(f"policy {policy.spec!r} raised {failure(e, code)}") from None
    return call
