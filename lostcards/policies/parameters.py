"""A policy's parameters and facts: ``Float``, ``Int``, ``Choice``, ``Switch`` and ``Policy``.

What a bot module imports to declare itself; it holds no registry, so a bot's numba
cache key (the sources its module imports) does not change when the registry does.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field

import numpy as np

from lostcards.errors import PolicyError

# ---- parameters: each declares its type and range ---------------------------------------------

def shown(text: str) -> str:
    """`text` as it is, or its start and length when it is long (for one-line errors)."""
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text):,} characters)"


NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
INT_TEXT = re.compile(r"[+-]?[0-9]+")


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
        # plain ASCII number text only: float() would also take '１６', '1_6', 'infinity'
        v = float(text) if len(text) <= 40 and self._pattern().fullmatch(text) else float("nan")
        if not (math.isfinite(v) and self.lo <= v <= self.hi and self._fits(v)):
            raise PolicyError(f"{where}={shown(text)} is not allowed: {self.allowed}")
        return v

    def _fits(self, v: float) -> bool:
        return True

    @staticmethod
    def _pattern():
        return NUMBER_TEXT

    def text(self, v: float) -> str:
        return _num(v)


class Int(Float):
    """A whole-number parameter (a count): its default and range lo..hi."""

    @property
    def allowed(self) -> str:
        return f"an integer in {_num(self.lo)}..{_num(self.hi)}"

    def _fits(self, v: float) -> bool:
        return float(v).is_integer()

    @staticmethod
    def _pattern():
        return INT_TEXT


class Choice(dict):
    """A parameter that takes one of some words, each standing for a number (the first is the default)."""

    meaning = ""

    @property
    def allowed(self) -> str:
        return "one of " + ", ".join(self)

    def parse(self, where: str, text: str) -> float:
        if text not in self:
            raise PolicyError(f"{where}={shown(text)} is not allowed: {self.allowed}")
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

    A built-in bot's facts, which every tool and test reads from here:
    ``compile_s``, a first guess of the seconds its decider takes to compile (the
    cache then remembers what it took); ``improvable``, whether ``improve`` takes it
    as its base by name; ``test_rounds``, the rounds a fast statistical test plays
    with it; ``slow``, whether it plays out games at every decision, so that its
    statistical tests run in ``make test-slow`` only; ``quick``, the parameters
    (``k=v,...``) that make it quick enough for a few rounds in the fast tests.
    """

    name: str
    kernel: object
    parameters: dict = field(default_factory=dict)
    values: tuple = ()
    doc: str = ""
    python: object = None
    compile_s: float = 10.0
    improvable: bool = False
    test_rounds: int = 40_000
    slow: bool = False
    quick: str = ""

    def __post_init__(self):
        if self.kernel is not None and not hasattr(self.kernel, "py_func"):
            raise PolicyError(f"policy {shown(str(self.name))!r}: its kernel {shown(repr(self.kernel))} is not a "
                              "numba function (@numba.njit; None for a plain-Python policy, given as python=...)")
        object.__setattr__(self, "parameters", {k: as_parameter(k, d) for k, d in self.parameters.items()})
        _check_values(self)

    @property
    def params(self) -> np.ndarray:
        vals = self.values or tuple(_default(v) for v in self.parameters.values())
        return np.array(vals if vals else (0.0,), dtype=np.float64)

    @property
    def quick_spec(self) -> str:
        """The spec a fast test plays it with: its ``quick`` parameters, if any."""
        return f"{self.name}:{self.quick}" if self.quick else self.name

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
                raise PolicyError(f"policy parameter {shown(item)!r} of {self.name!r} must be NAME=VALUE")
            k, v = (s.strip() for s in item.split("=", 1))
            if k in given:
                raise PolicyError(f"{self.name}:{shown(k)} is given twice in {shown(self.name + ':' + text)!r}: "
                                  "give each parameter once")
            given.add(k)
            if k not in self.parameters:
                allowed = ", ".join(names) or "none"
                raise PolicyError(f"unknown parameter {shown(k)!r} of policy {self.name!r} (allowed: {allowed})")
            values[names.index(k)] = self.parameters[k].parse(f"{self.name}:{k}", v)
        return dataclasses.replace(self, values=tuple(values))



def _check_values(p: Policy) -> None:
    """A Policy built in code takes the values its parameters allow, as a spec's text must: one a
    parameter, each finite and in its range (PolicyError naming the first that is not)."""
    if not p.values:
        return
    if len(p.values) != len(p.parameters):
        raise PolicyError(f"policy {shown(p.name)!r} has {len(p.parameters)} parameters, given "
                          f"{len(p.values)} values: one a parameter")
    for (k, d), v in zip(p.parameters.items(), p.values):
        where = f"{shown(p.name)}:{k}"
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise PolicyError(f"{where}={shown(repr(v))} is not allowed: {d.allowed}")
        if isinstance(d, Choice):
            if float(v) not in [float(x) for x in d.values()]:
                raise PolicyError(f"{where}={shown(repr(v))} is not allowed: {d.allowed}")
        else:
            d.parse(where, _num(v) if math.isfinite(v) and float(v).is_integer() else repr(float(v)))


def _default(d):
    return float(next(iter(d.values()))) if isinstance(d, dict) else float(d)


def _num(v):
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else f"{v:g}"

