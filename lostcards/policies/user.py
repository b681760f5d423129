"""A user's own policies: ``module:name`` imported from the working directory or the import path,
checked to compile, and plain-Python ones guarded so their errors are one line."""
from __future__ import annotations

import importlib
import os
import sys
import traceback

from lostcards.errors import PolicyError
from lostcards.policies.parameters import Policy, shown


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


def import_policy(text: str, module: str, attr: str) -> Policy:
    here = os.getcwd()
    if sys.path[:1] != [here]:          # a user's module in the working directory comes first, as with `python -m`
        sys.path[:] = [here, *(p for p in sys.path if p != here)]
        importlib.invalidate_caches()
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and (module == e.name or module.startswith(e.name + ".")):
            raise PolicyError(f"cannot load policy {shown(text)!r}: no module named {e.name!r} (not installed, "
                              "nor in the working directory)") from None
        raise PolicyError(f"cannot load policy {shown(text)!r}: importing {module} failed: {failure(e)}") from None
    except Exception as e:              # the user's module raised while it was imported
        raise PolicyError(f"cannot load policy {shown(text)!r}: importing {module} failed: {failure(e)}") from None
    try:
        obj = getattr(mod, attr)
    except AttributeError:
        raise PolicyError(f"cannot load policy {shown(text)!r}: module {module} has no {attr!r}") from None
    if isinstance(obj, Policy):
        return obj
    if hasattr(obj, "py_func"):          # a numba policy: the fast engine
        check_compiles(text, obj)
        return Policy(f"{module}:{attr}", obj, doc=(obj.__doc__ or "").strip())
    if callable(obj):                    # plain Python: the reference engine
        _check_takes_two(text, obj)
        return Policy(f"{module}:{attr}", None, doc=(obj.__doc__ or "").strip(), python=obj)
    raise PolicyError(f"{module}:{attr} is neither a Policy nor a callable")


def _check_takes_two(text: str, fn) -> None:
    """A plain-Python policy can be called with (observation, stream), or PolicyError says so now, not at
    its first turn (where its signature says; some built-ins say nothing, and are called as they are)."""
    import inspect
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(None, None)
    except TypeError:
        raise PolicyError(f"policy {shown(text)!r} takes {_shown_long(str(sig), 60)}: a policy is called "
                          "with (observation, stream)") from None


def check_compiles(text: str, kernel) -> None:
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
