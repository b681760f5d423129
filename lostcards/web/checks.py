"""Request checks: a request's body read within a bound, its JSON read into named, typed values, or one clear refusal.

Every refusal is a ``Refused`` (an HTTP status of the 4xx family and one line
naming the value and what is allowed); the app turns it into ``{"error": ...}``.
"""
from __future__ import annotations

import json

MAX_BODY = 64 * 1024             # a move, a room, a batch: small JSON objects
MAX_RECORD_BODY = 2 * 1024 * 1024   # an uploaded round record (a long lost-cities round is ~20 kB)
MAX_SEED = 2**63 - 1              # as the command line's --seed


class Refused(Exception):
    """A request the server will not carry out: `status` (4xx) and one line saying why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def short(value, width: int = 40) -> str:
    """A value as JSON text, cut to `width` characters, for messages."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


async def read_json(request, limit: int = MAX_BODY) -> dict:
    """The request's body as a JSON object; 413 past `limit` bytes, 415 unless it says JSON, 400 if malformed."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise Refused(415, f"the body must be JSON (Content-Type: application/json), not {short(kind or 'none')}")
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):
            raise Refused(400, f"Content-Length {short(length)} is not a number of bytes")
        if len(length) > 15:
            raise Refused(413, f"Content-Length has {len(length):,} digits: the body is over {limit:,} bytes, the "
                               "most accepted here")
        if int(length) > limit:
            raise Refused(413, f"the body holds {int(length):,} bytes; at most {limit:,} are accepted here")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise Refused(413, f"the body is over {limit:,} bytes, the most accepted here")
    try:
        value = json.loads(bytes(data).decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise Refused(400, "the body is not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise Refused(400, f"malformed JSON: {e}") from None
    except ValueError as e:              # NaN and friends, or an integer too long for Python to read
        what = "a number of over 4,300 digits" if "digits" in str(e) else str(e)
        raise Refused(400, f"malformed JSON: {what}") from None
    except RecursionError:
        raise Refused(400, "malformed JSON: nested too deeply") from None
    if not isinstance(value, dict):
        raise Refused(400, f"the body must be a JSON object, got {short(value)}")
    return value


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def only(body: dict, allowed) -> None:
    """Refuse keys the endpoint does not know (a typo must not be silently ignored)."""
    extra = sorted(set(body) - set(allowed))
    if extra:
        takes = f"allowed: {', '.join(allowed)}" if allowed else "this request takes no fields"
        raise Refused(400, f"unknown field(s) {', '.join(map(short, extra))}; {takes}")


def integer(body: dict, key: str, lo: int, hi: int, default=None) -> int:
    """An integer field within lo..hi (JSON numbers only: no strings, booleans or fractions)."""
    if key not in body or body[key] is None:
        if default is None:
            raise Refused(400, f"{key} is missing: an integer {lo}..{hi}")
        return default
    v = body[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise Refused(400, f"{key} = {short(v)} is not allowed: an integer {lo}..{hi}")
    if not lo <= v <= hi:
        raise Refused(422, f"{key} = {short(v)} is out of range: {lo}..{hi}")
    return v


def text(body: dict, key: str, max_len: int = 200, default=None, choices=None) -> str:
    """A string field (at most `max_len` characters; one of `choices` when given)."""
    if key not in body or body[key] is None:
        if default is None:
            raise Refused(400, f"{key} is missing: a string" + (f", one of {', '.join(choices)}" if choices else ""))
        return default
    v = body[key]
    if not isinstance(v, str):
        raise Refused(400, f"{key} = {short(v)} is not allowed: a string")
    if len(v) > max_len:
        raise Refused(422, f"{key} holds {len(v):,} characters; at most {max_len}")
    if choices is not None and v not in choices:
        raise Refused(422, f"{key} = {short(v)} is not allowed: one of {', '.join(choices)}")
    return v


def boolean(body: dict, key: str, default: bool = False) -> bool:
    """true or false (null or absent: `default`)."""
    v = body.get(key)
    if v is None:
        return default
    if not isinstance(v, bool):
        raise Refused(400, f"{key} = {short(v)} is not allowed: true or false")
    return v


def strings(body: dict, key: str, max_items: int = 20, max_len: int = 200) -> list:
    """A list of short strings (e.g. the --set items), empty when absent or null."""
    v = body.get(key)
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise Refused(400, f"{key} = {short(v)} is not allowed: a list of strings")
    if len(v) > max_items:
        raise Refused(422, f"{key} holds {len(v)} items; at most {max_items}")
    for x in v:
        if len(x) > max_len:
            raise Refused(422, f"an item of {key} holds {len(x):,} characters; at most {max_len}")
    return v
