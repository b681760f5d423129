"""The registry: every bot by name, found by reading the bot modules' ``POLICIES``.

A built-in bot is one module (or package) of ``lostcards.policies`` that declares
``POLICIES = (Policy(...), ...)``; ``names()`` is the one list of bots every tool and
test reads, and a policy's facts (``compile_s``, ``improvable``, ``test_rounds``,
``slow``, ``quick``) are on its ``Policy``.  Packages add theirs in the entry-point
group ``lostcards.policies``; ``register`` adds one at run time.
"""
from __future__ import annotations

import importlib
import pkgutil
import sys

from lostcards.errors import PolicyError
from lostcards.policies.held import KEY, held, take_rules
from lostcards.policies.parameters import Policy, shown
from lostcards.policies.user import import_policy

PACKAGE = "lostcards.policies"
OWN_MODULES = ("held", "parameters", "registry", "user")   # this package's modules that are not bots
_REGISTRY: dict[str, Policy] = {}
_loaded = False
BROKEN: dict[str, str] = {}      # entry points that failed to load: name -> why (warned once)


def register(policy: Policy) -> Policy:
    """Make a policy available by its name."""
    _REGISTRY[policy.name] = policy
    return policy


def bot_modules() -> list[str]:
    """The modules and packages of lostcards.policies that may declare bots (all but the registry's own)."""
    package = sys.modules[PACKAGE]
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__)
                  if m.name not in OWN_MODULES and not m.name.startswith("_"))


def _load_module(mod: str) -> bool:
    """Import a bot module and register its POLICIES; False while it is still being imported."""
    try:
        module = importlib.import_module(f"{PACKAGE}.{mod}")
    except ModuleNotFoundError as e:
        if e.name != f"{PACKAGE}.{mod}":
            raise
        return True
    if getattr(getattr(module, "__spec__", None), "_initializing", False):
        return False                # it asked for the list while it is being imported (improve's bases)
    for p in getattr(module, "POLICIES", ()):
        _REGISTRY.setdefault(p.name, p)
    return True


def _load_builtins():
    global _loaded
    if _loaded:
        return
    complete = all([_load_module(mod) for mod in bot_modules()])
    if not complete:
        return
    _loaded = True
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
            raise PolicyError(f"{option} {shown(text)!r} has an empty entry (a comma too many, or nothing): "
                              "give policy names separated by commas, e.g. expert,greedy")
        if out and "=" in piece and ":" not in piece.split("=", 1)[0]:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def bases(first: str = "expert") -> tuple:
    """The bots ``improve`` takes as its base by name (``improvable``), `first` first (the default)."""
    _load_builtins()
    found = [n for n in sorted(_REGISTRY) if _REGISTRY[n].improvable]
    return tuple(sorted(found, key=lambda n: n != first))


def resolve(spec) -> Policy:
    """A Policy from ``name``, ``name:k=v,...``, ``module.path:attr[:k=v,...]`` or a Policy; a ``rules=``
    among the parameters holds the bot to those move rules (``policies.held``).

    A module path may be a plain module in the working directory (``mymodule:first_card_away``).
    """
    if isinstance(spec, Policy):
        return spec
    if not isinstance(spec, str):
        raise PolicyError(f"a policy is a name such as 'expert:invest=never' or a Policy, got {shown(repr(spec))}")
    text = spec.strip()
    name, _, params = text.partition(":")
    if KEY + "=" in params:                  # held to move rules: the bot, then held (policies.held)
        attr, colon, rest = params.rpartition(":")
        rest, rules = take_rules(rest)
        head = name + (":" + attr if colon else "")
        base = resolve(head + (":" + rest if rest else ""))
        if KEY not in base.parameters:       # a bot with its own rules parameter (improve) takes it below
            return held(base, rules)
    if name not in _REGISTRY and name.isidentifier() and name in bot_modules():
        _load_module(name)       # only the module asked for: a quick start
    if name not in _REGISTRY:
        _load_builtins()
    if name in _REGISTRY:
        return _REGISTRY[name].with_params(params) if params else _REGISTRY[name]
    if name in BROKEN:
        raise PolicyError(f"policy {name!r} cannot be loaded: {BROKEN[name]}")
    attr, _, rest = params.partition(":")
    if attr and "=" not in attr:
        obj = import_policy(text, name, attr)
        return obj.with_params(rest) if rest else obj
    raise PolicyError(f"unknown policy {shown(name)!r} (known: {', '.join(names())}; or module:name, "
                      "a module on the import path or in the working directory)")
