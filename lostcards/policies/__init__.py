"""Policies (bots) by name: ``random``, ``greedy``, ``expert``, ... or an import path.

A policy is a jitted function ``policy(obs, params, mem) -> move`` (see
``lostcards/engine/policy.py`` for the signature, ``lostcards/engine/observation.py`` for
``obs`` and ``lostcards/engine/moves.py`` for moves; ``docs/policies.md``), plus its
named parameters, each with its type and range (``Float``, ``Int``, ``Choice``,
``Switch``: ``parameters``).  ``resolve("expert:invest=never")`` turns a policy spec
into a ``Policy`` ready for the engine; ``names()`` lists the bots (``registry``: a
built-in bot is a module here declaring ``POLICIES``); ``register`` adds one.  A spec
may also be an import path, ``mypkg.mybots:cautious``, naming a ``Policy`` or a
jitted function (``user``); packages can register theirs in the entry-point group
``lostcards.policies``.
"""
from lostcards.policies.parameters import Choice, Float, Int, Policy, Switch, as_parameter
from lostcards.policies.registry import BROKEN, bases, names, register, resolve, split_policies
from lostcards.policies.user import failure, guarded

__all__ = ["BROKEN", "Choice", "Float", "Int", "Policy", "Switch", "as_parameter", "bases", "failure", "guarded",
           "names", "register", "resolve", "split_policies"]
