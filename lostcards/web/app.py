"""The web app (Starlette): the three pages, their JSON API, and the checks every request passes.

Pages: ``/`` the table (play a round), ``/review`` (the move-by-move analysis
of a finished or uploaded round), ``/rules`` (try a rule change).  The API
answers JSON; every refusal is ``{"error": "<one line>"}`` with a 4xx status.
Rooms' setup and batches run on a small thread pool of their own, moves,
hints and analyses on Starlette's, so a long batch never blocks play.
Requests must name this machine as their host (a page elsewhere cannot reach
the server through a rebound DNS name), and bodies must be JSON (a form posted
from another site is refused).
"""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from lostcards.errors import LostcardsError
from lostcards.web.batch import Batches
from lostcards.web.checks import MAX_RECORD_BODY, Refused, integer, only, read_json, short
from lostcards.web.rooms import Rooms

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
MAX_ANALYSIS_SAMPLES = 512
MAX_ANALYSIS_WORK = 200 * MAX_ANALYSIS_SAMPLES     # turns x samples: a long round (~200 turns) at the most samples
ANALYSIS_SEEDS = 2**62                             # analyze's seeds are 0..2**62; a room's seed may be larger
HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                                      "script-src 'self'; frame-ancestors 'none'"}


def ladder() -> dict:
    """docs/bots.md's measured strength of each bot against expert, as shipped with the package."""
    return json.loads(resources.files("lostcards.web").joinpath("ladder.json").read_text())


def static_dir() -> Path:
    return Path(str(resources.files("lostcards.web").joinpath("static")))


class HostCheck:
    """Refuse requests whose Host is not this machine (unless the server was started for other hosts)."""

    def __init__(self, app, hosts):
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and self.hosts is not None:
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name not in self.hosts:
                resp = JSONResponse({"error": f"host {short(host)} is not this server's: open it as "
                                              "http://127.0.0.1:PORT/"}, status_code=421, headers=HEADERS)
                return await resp(scope, receive, send)
        return await self.app(scope, receive, send)


class AsciiJSON(JSONResponse):
    """JSON with every character past ASCII escaped: a value the request sent back in a message (even a lone
    surrogate, which UTF-8 cannot hold) always makes a valid body."""

    def render(self, content) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def _json(data, status: int = 200) -> JSONResponse:
    return AsciiJSON(data, status_code=status, headers=HEADERS)


class Headers:
    """The pages' security headers on every response of the wrapped app (the static files)."""

    def __init__(self, app):
        self.app = app
        self.raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in HEADERS.items()]

    async def __call__(self, scope, receive, send):
        async def with_headers(message):
            if message["type"] == "http.response.start":
                names = {k for k, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                   *((k, v) for k, v in self.raw if k not in names)]}
            await send(message)
        return await self.app(scope, receive, with_headers)


def create_app(records: Path = Path("runs/web"), menu=None, hosts=LOOPBACK_HOSTS, ttl: float = 4 * 3600,
               most_rooms: int = 64) -> Starlette:
    """The app: round records go to `records`; `menu`: the bots a page may choose (default: every
    registered one); `hosts`: the Host names accepted (None: any)."""
    from lostcards.policies import names
    menu = list(menu) if menu else list(names())
    rooms = Rooms(records, menu, ttl, most_rooms)
    batches = Batches()
    pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="lostcards-web")
    static = static_dir()

    def page(name):
        async def endpoint(request):
            return FileResponse(static / name, headers=HEADERS)
        return endpoint

    async def menu_ep(request):
        from lostcards.rules.ruleset import PARAMETERS, PRESETS, format_value
        lad = ladder()
        return _json({"bots": menu, "ladder": lad, "presets": list(PRESETS),
                      "parameters": {k: {"kind": v[0], "meaning": v[1],
                                         "values": {p: format_value(getattr(r, k)) for p, r in PRESETS.items()}}
                                     for k, v in PARAMETERS.items()}})

    async def new_room(request):
        body = await read_json(request)
        room = await run_in_threadpool(rooms.create, body)
        pool.submit(room.prepare)
        return _json(room.view(), 201)

    async def get_room(request):
        room = rooms.get(request.path_params["rid"])
        return _json(await run_in_threadpool(_locked_view, room))

    async def move(request):
        room = rooms.get(request.path_params["rid"])
        body = await read_json(request)
        return _json(await run_in_threadpool(room.move, body))

    async def hint(request):
        room = rooms.get(request.path_params["rid"])
        body = await read_json(request)
        only(body, ("samples",))
        samples = integer(body, "samples", 8, 256, default=48)
        return _json(await run_in_threadpool(room.hint, samples))

    async def record(request):
        room = rooms.get(request.path_params["rid"])
        room.ready()
        text = await run_in_threadpool(_record_text, room)      # the lock waits off the event loop
        return Response(text, media_type="application/json",
                        headers={**HEADERS, "Content-Disposition": f'attachment; filename="{room.path.name}"'})

    async def room_analysis(request):
        room = rooms.get(request.path_params["rid"])
        body = await read_json(request)
        only(body, ("samples",))
        samples = integer(body, "samples", 2, MAX_ANALYSIS_SAMPLES, default=32)
        room.ready()
        rec = await run_in_threadpool(_ended_record, room)      # the lock waits off the event loop
        return _json(await run_in_threadpool(analysis, rec, room.seat, samples, room.seed % ANALYSIS_SEEDS))

    async def upload_analysis(request):
        body = await read_json(request, MAX_RECORD_BODY)
        only(body, ("record", "seat", "samples", "seed"))
        rec = body.get("record")
        if isinstance(rec, str):
            from lostcards.analysis.analyze import pick_record
            try:
                rec = pick_record(rec)
            except LostcardsError as e:
                raise Refused(422, f"record: {e}") from None
        if not isinstance(rec, dict):
            raise Refused(400, f"record = {short(rec)} is not allowed: a round record (a JSON object, or its text)")
        seat = integer(body, "seat", 0, 3, default=0)
        samples = integer(body, "samples", 2, MAX_ANALYSIS_SAMPLES, default=32)
        seed = integer(body, "seed", 0, ANALYSIS_SEEDS, default=0)
        turns = rec.get("turns")
        if isinstance(turns, list) and len(turns) * samples > MAX_ANALYSIS_WORK:
            raise Refused(413, f"record: {len(turns):,} turns at {samples} samples is too much to analyse here: "
                               f"turns x samples at most {MAX_ANALYSIS_WORK:,} (fewer samples, or a shorter round)")
        return _json(await run_in_threadpool(analysis, rec, seat, samples, seed))

    async def new_batch(request):
        body = await read_json(request)
        b = await run_in_threadpool(batches.create, body)
        pool.submit(b.run)
        return _json(b.view(), 201)

    async def get_batch(request):
        return _json(batches.get(request.path_params["bid"]).view())

    async def cancel_batch(request):
        b = batches.get(request.path_params["bid"])
        body = await read_json(request)
        only(body, ())
        if b.status in ("queued", "running"):
            b.cancel_asked = True
        return _json(b.view())

    async def refused(request, exc: Refused):
        return _json({"error": exc.message}, exc.status)

    async def http_error(request, exc: HTTPException):
        what = {404: f"no such page or API: {short(request.url.path, 60)}",
                405: f"{request.method} is not allowed on {short(request.url.path, 60)}"}.get(exc.status_code,
                                                                                              str(exc.detail))
        return _json({"error": what}, exc.status_code)

    async def failed(request, exc: LostcardsError):
        return _json({"error": str(exc)}, 422)

    async def unexpected(request, exc: Exception):
        return _json({"error": f"the server failed on this request ({type(exc).__name__}: {short(str(exc), 120)})"},
                     500)

    @asynccontextmanager
    async def lifespan(app):
        pool.submit(warm, menu)
        yield
        for b in batches.batches.values():
            b.cancel_asked = True
        rooms.save_all()
        pool.shutdown(wait=False, cancel_futures=True)

    rid, bid = "{rid:str}", "{bid:str}"
    routes = [
        Route("/", page("play.html")), Route("/review", page("review.html")), Route("/rules", page("rules.html")),
        Route("/api/menu", menu_ep),
        Route("/api/rooms", new_room, methods=["POST"]),
        Route(f"/api/rooms/{rid}", get_room),
        Route(f"/api/rooms/{rid}/move", move, methods=["POST"]),
        Route(f"/api/rooms/{rid}/hint", hint, methods=["POST"]),
        Route(f"/api/rooms/{rid}/record", record),
        Route(f"/api/rooms/{rid}/analysis", room_analysis, methods=["POST"]),
        Route("/api/analyze", upload_analysis, methods=["POST"]),
        Route("/api/batches", new_batch, methods=["POST"]),
        Route(f"/api/batches/{bid}", get_batch),
        Route(f"/api/batches/{bid}/cancel", cancel_batch, methods=["POST"]),
        Mount("/static", Headers(StaticFiles(directory=static)), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={Refused: refused, HTTPException: http_error, LostcardsError: failed,
                                        Exception: unexpected})
    app.state.rooms, app.state.batches, app.state.pool = rooms, batches, pool
    if hosts is not None:
        app.add_middleware(HostCheck, hosts=tuple(hosts))
    return app


def warm(menu) -> None:
    """Load what a first round needs (the engine's modules, and the ladder's bots where the numba cache
    has them already), so that the first deal is quick; nothing compiles here."""
    try:
        from lostcards.interactive.session import Session  # noqa: F401 - imported for its modules
        from lostcards.numba_cache import compile_all
        from lostcards.policies import resolve
        from lostcards.reference.round import Round
        from lostcards.rules.ruleset import rules
        from lostcards.rules.streams import Stream
        from lostcards.run.bridge import entries, python_policy
        for name in ("expert", "improve", "greedy", "random"):      # the ladder's bots, the page's levels
            bot = resolve(name) if name in menu else None
            todo = entries([bot]) if bot is not None and bot.kernel is not None else []
            if todo and all(e.ready for e in todo):
                compile_all(todo)
                rnd = Round.dealt(rules(), 0, 0)          # one decision: a bot's first one sets itself up
                python_policy(bot)(rnd.observation(), Stream(0, 0, 1))
    except Exception:        # noqa: BLE001 - a head start only: the first round does it again and reports
        pass


def _locked_view(room) -> dict:
    if room.status == "preparing":      # the bots compile or move first under the lock: say so at once
        return room.view(brief=True)
    with room.lock:
        return room.view()


def _record_text(room) -> str:
    with room.lock:
        return json.dumps(room.session.record) + "\n"


def _ended_record(room) -> dict:
    with room.lock:
        if not room.session.rnd.ended:
            raise Refused(409, "the round is not over yet: the analysis comes at the end")
        return json.loads(json.dumps(room.session.record))


def _hints(record: dict) -> list:
    """The hints a table marked in `record` (each {turn, seat, move, by}); 422 for anything else."""
    hints = record.get("hints", [])
    if not isinstance(hints, list) or len(hints) > 10_000:
        raise Refused(422, f"record: hints = {short(hints)} is not allowed: a list of the table's hints")
    for k, h in enumerate(hints):
        ok = (isinstance(h, dict) and set(h) == {"turn", "seat", "move", "by"}
              and all(isinstance(h[f], int) and not isinstance(h[f], bool) and 0 <= h[f] <= 10**6
                      for f in ("turn", "seat"))
              and isinstance(h["move"], str) and len(h["move"]) <= 40
              and isinstance(h["by"], (int, float)) and not isinstance(h["by"], bool))
        if not ok:
            raise Refused(422, f"record: hints[{k}] = {short(h)} is not a hint the table wrote "
                               "({turn, seat, move, by})")
    return hints


def analysis(record: dict, seat: int, samples: int, seed: int) -> dict:
    """The move-by-move analysis of `seat` in `record` (``analysis.analyze``), its three costliest moves,
    and each side's score after every turn (the chart)."""
    from lostcards.analysis.analyze import analyze_round
    from lostcards.records.format import move_of_turn
    from lostcards.records.replay import check_record
    hints = _hints(record)
    try:
        res = analyze_round(record, seat=seat, samples=samples, seed=seed)
    except LostcardsError as e:
        raise Refused(422, f"record: {e}") from None
    d = res.as_dict()
    worst = sorted((t for t in d["turns"] if t["played"] != t["best"] and t["loss"] > 0), key=lambda t: -t["loss"])
    d["worst"] = [t["turn"] for t in worst[:3]]
    _, _, rec = check_record(record)
    rnd = rec.deal.round()
    track = [list(rnd.scores)]
    movers = []
    for turn in rec.turns:
        movers.append(rnd.seat)
        rnd.apply(move_of_turn(turn, rec.deal.rules))
        track.append(list(rnd.scores))
    d["track"], d["movers"] = track, movers
    d["hints"] = hints
    return d
