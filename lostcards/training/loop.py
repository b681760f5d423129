"""Expert iteration: teacher_g = improve(champion) labels rounds, a network fits them, a gate decides.

A *line* (``LINES``) says which network policy: ``student`` starts from
expert and uses expert's move as the networks' reference; ``learned`` starts
from the self-play blueprint and uses the blueprint's move, so expert is never
a base, a feature or a gate of it (only, with ``reference`` deals, the bot
its learning curve is drawn against).

Generation g (from 1):

1. *teach*: improve around the champion (the line's start for g = 1, or the
   weights ``init`` names, kept as ``gen-000.npz``; then the last accepted
   network), played out by the champion, plays ``rounds`` fresh
   rounds of each table in ``rules`` (one or more, comma-separated) and labels
   every choice (``teacher``; seed ``seed * 1000 + g``; the first table's
   shards in ``teacher-GGG``, another's in ``teacher-GGG-PRESET-P``);
2. *fit*: the network's weights from the last ``keep`` generations' labels
   of every table (``fit``, with its ``loss``), starting from the champion's
   weights;
3. *gate*: the new network (gated by ``margin``, ``policies.network.scorer``)
   against the champion on ``gate`` duplicate deals of the first table
   (seed ``seed * 1000 + 500 + g``); it becomes the champion only when its
   mean margin's one-sided 95% lower bound (mean - 1.645 se) is above 0.
   The gate never looks at the offline loss;
4. *reference*: the new network against expert on ``reference`` duplicate
   deals of the first table (seed ``seed * 1000 + 900 + g``), for the
   learning curve only (0 deals: expert is not played at all).

Each step's wall and CPU seconds go to ``curve.csv`` (one row a generation)
with the margins; ``curve.png`` draws them.  The run claims its folder
(``iterate.json`` names its settings; another run's folder is refused),
holds its lock, and resumes where it stopped: finished generations are
kept, a generation's teacher shards are kept as they finish.
"""
from __future__ import annotations

import csv
import hashlib
import importlib
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from lostcards.errors import LostcardsError
from lostcards.policies import resolve
from lostcards.policies.network import read_weights, reference_digest, write_weights
from lostcards.training.fit import LOSSES, FitSettings, fit
from lostcards.training.measure import margin
from lostcards.training.teacher import TeacherSettings, read_shards, write_shards

Z_GATE = 1.645
STATE = "iterate.json"
INIT = "gen-000.npz"         # the initial champion (``init``), copied into the run
CURVE_HEAD = ["generation", "accepted", "champion", "teacher_rounds", "groups", "vs_previous", "vs_previous_se",
              "gate_deals", "vs_expert", "vs_expert_se", "reference_deals", "held_out_agreement",
              "teach_s", "teach_cpu_s", "fit_s", "gate_s", "reference_s"]


@dataclass(frozen=True)
class Line:
    """A line of network policies: where it starts, its networks' reference policy, how one is made."""

    name: str
    start: str            # generation 0's champion (a registered bot) unless ``init``
    reference: str        # the networks' reference policy (a registered bot): a feature and the gate's move
    maker: str            # "module:function": (weights, name=, margin=) -> the network Policy

    def reference_digest(self) -> str:
        """The digest of the reference policy's parameters, recorded with every network fitted beside it."""
        return reference_digest(resolve(self.reference).params)

    def policy(self, weights, name: str, margin: float):
        mod, _, fn = self.maker.partition(":")
        return getattr(importlib.import_module(mod), fn)(weights, name=name, margin=margin)


LINES = {"student": Line("student", "expert", "expert", "lostcards.policies.student:student_of"),
         "learned": Line("learned", "blueprint", "blueprint", "lostcards.policies.learned:learned_of")}


@dataclass(frozen=True)
class LoopSettings:
    generations: int = 3
    rules: str = "expeditions/2"
    seed: int = 0
    rounds: int = 2000          # teacher rounds a generation
    shard: int = 25
    k: int = 64
    z: float = 2.0
    explore: float = 0.12
    temp: float = 2.0
    epochs: int = 4
    lr: float = 2e-3
    batch: int = 1024
    keep: int = 3               # generations of labels a fit uses (the last ones)
    gate: int = 4000
    reference: int = 1000
    workers: int = 1
    loss: str = "soft"          # the fit's loss (``fit.LOSSES``)
    margin: float = 0.0         # the networks' gate (points; 0: the best-scoring move)
    other_rounds: int = 0       # teacher rounds of each table after the first (0: ``rounds``)
    init: str = ""              # a network weights file: generation 0's champion (""; the line's start)
    line: str = "student"       # ``LINES``
    others: str = ""            # the teacher's play-outs: the other side's policy ("": the champion)
    depth: int = 0              # the teacher's play-outs: turns the own side plays the champion (0: all)
    luck: float = 0.0           # the teacher's play-outs: the deck's luck taken off (0: off)

    def identity(self) -> dict:
        """What decides the results (not how many generations, nor the workers; loss, margin,
        other_rounds, init, line, others, depth and luck only when not the defaults, so a run
        from before they existed still resumes; init by its weights' digest, not its path)."""
        d = asdict(self)
        d.pop("generations")
        d.pop("workers")
        for key, default in (("loss", "soft"), ("margin", 0.0), ("other_rounds", 0), ("init", ""),
                             ("line", "student"), ("others", ""), ("depth", 0), ("luck", 0.0)):
            if d[key] == default:
                d.pop(key)
        if self.init:
            d["init"] = hashlib.sha256(read_weights(self.init)[0].tobytes()).hexdigest()[:16]
        return d

    def the_line(self) -> Line:
        if self.line not in LINES:
            raise LostcardsError(f"--line {self.line!r} is not allowed: one of {', '.join(LINES)}")
        if self.line == "learned" and "expert" in self.others:
            raise LostcardsError(f"--others {self.others!r} is not allowed with --line learned: expert is never "
                                 "part of that line (give a policy without expert, or leave --others out)")
        return LINES[self.line]

    def rounds_of(self, i: int) -> int:
        """Teacher rounds of table i."""
        return self.rounds if i == 0 or self.other_rounds == 0 else self.other_rounds

    def tables(self) -> list:
        """The rulesets of ``rules``, the first the gate's."""
        from lostcards.rules.ruleset import parse_table_list, table_rules
        return [table_rules(t) for t in parse_table_list(self.rules, "--rules", error=LostcardsError)]


def table_folder(out: Path, g: int, i: int, name: str) -> Path:
    """Generation g's teacher shards of table i (named `name`, PRESET/P)."""
    if i == 0:
        return out / f"teacher-{g:03d}"
    return out / f"teacher-{g:03d}-{name.strip().replace('/', '-')}"


def _save_json(path: Path, data) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)


def champion_policy(out: Path, state: dict, line: Line):
    name = state["champion"]
    if name == line.start:
        return line.start, None
    w, meta = read_weights(out / name)
    return line.policy(w, name=f"{line.name}-{Path(name).stem}", margin=meta["settings"].get("margin", 0.0)), w


def iterate(settings: LoopSettings, out, command: str = "", say=print) -> dict:
    """Run (or resume) the loop into `out` (module docstring); returns the state."""
    from lostcards.run.batchdir import DirLock
    st = settings
    out = Path(out)
    rules = st.tables()
    line = st.the_line()
    if st.others:
        resolve(st.others)              # a bad spec is refused before the folder exists
    if st.loss not in LOSSES:
        raise LostcardsError(f"--loss {st.loss!r} is not allowed: one of {', '.join(LOSSES)}")
    identity = st.identity()            # reads init's weights: a bad file is refused before the folder exists
    if st.init:
        want = line.reference_digest()
        if read_weights(st.init)[1].get("reference_digest", want) != want:
            raise LostcardsError(f"--init {st.init}: those weights were fitted beside another reference policy, "
                                 f"not --line {line.name}'s {line.reference}")
    out.mkdir(parents=True, exist_ok=True)
    with DirLock(out):
        path = out / STATE
        if path.is_file():
            state = json.loads(path.read_text())
            if state.get("identity") != identity:
                old = state.get("identity", {})
                diff = ", ".join(f"{k}={old.get(k)!r} -> {v!r}" for k, v in identity.items()
                                 if old.get(k) != v)
                raise LostcardsError(f"{out} holds another iterate run ({diff or 'a foreign state file'}): "
                                     "give another --out, or the same settings to resume it")
            say(f"resuming: {len(state['rows'])} generation(s) done, champion {state['champion']}")
        elif any(out.iterdir()) and not all(p.name == ".lock" for p in out.iterdir()):
            raise LostcardsError(f"{out} holds files of something else: give an empty or new --out")
        else:
            state = {"format": "lostcards-iterate/1", "command": command, "identity": identity,
                     "champion": line.start, "rows": []}
            if st.init:
                w0, meta0 = read_weights(st.init)
                write_weights(out / INIT, w0, {**{k: v for k, v in meta0.items() if k != "format"},
                                               "initial_champion_from": str(st.init)})
                state["champion"] = INIT
            _save_json(path, state)
        for g in range(len(state["rows"]) + 1, st.generations + 1):
            state = _generation(st, rules, out, state, g, command, say)
            _save_json(path, state)
            plot_curve(out / "curve.csv", out / "curve.png")
    return state


def _generation(st: LoopSettings, tables, out: Path, state: dict, g: int, command: str, say) -> dict:
    line = st.the_line()
    champ, champ_w = champion_policy(out, state, line)
    names = st.rules.split(",")
    rules = tables[0]
    t0, c0 = time.perf_counter(), time.process_time()
    cpu = 0.0
    for i, table in enumerate(tables):
        extra = "".join(f", {w}={v}" for w, v, d in (("others", st.others, ""), ("depth", st.depth, 0),
                                                      ("luck", st.luck, 0.0)) if v != d)
        say(f"generation {g}: teacher = improve(base={state['champion']}{extra}), k={st.k}, "
            f"{st.rounds_of(i):,} rounds of {names[i].strip()}")
        info = write_shards(table_folder(out, g, i, names[i]), table, champ, st.seed * 1000 + g, st.rounds_of(i),
                            st.shard, TeacherSettings(st.k, st.z, st.explore, st.temp, line.reference, st.others,
                                                      st.depth, st.luck), st.workers, say)
        cpu += info["cpu_s"]
    teach_s = time.perf_counter() - t0
    teach_cpu = cpu + (time.process_time() - c0)
    t0 = time.perf_counter()
    folders = [table_folder(out, h, i, names[i]) for h in range(max(1, g - st.keep + 1), g + 1)
               for i in range(len(tables))]
    groups, cands = read_shards(folders)
    fs = FitSettings(epochs=st.epochs, batch=st.batch, lr=st.lr, temp=st.temp, z=st.z, seed=st.seed * 1000 + g,
                     loss=st.loss)
    w, rep = fit(groups, cands, init=champ_w, settings=fs, say=say)
    fit_s = time.perf_counter() - t0
    name = f"gen-{g:03d}.npz"
    write_weights(out / name, w, {"command": command, "generation": g, "teacher_base": state["champion"],
                                  "settings": {**state["identity"], "loss": st.loss, "margin": st.margin,
                                               "other_rounds": st.other_rounds, "line": line.name,
                                               "reference_policy": line.reference},
                                  "reference_digest": line.reference_digest(), "fit": rep})
    cand = line.policy(w, name=f"{line.name}-gen-{g:03d}", margin=st.margin)
    t0 = time.perf_counter()
    gate = margin(rules, cand, champ, st.gate, st.seed * 1000 + 500 + g) if st.gate > 0 else None
    gate_s = time.perf_counter() - t0
    accepted = gate is not None and gate["mean"] - Z_GATE * gate["se"] > 0
    t0 = time.perf_counter()
    ref = margin(rules, cand, "expert", st.reference, st.seed * 1000 + 900 + g) if st.reference > 0 else None
    ref_s = time.perf_counter() - t0
    if accepted:
        state = {**state, "champion": name}
    labelled = sum(map(st.rounds_of, range(len(tables))))
    row = {"generation": g, "accepted": int(accepted), "champion": state["champion"], "teacher_rounds": labelled,
           "groups": rep["groups"],
           "vs_previous": gate["mean"] if gate else math.nan, "vs_previous_se": gate["se"] if gate else math.nan,
           "gate_deals": st.gate, "vs_expert": ref["mean"] if ref else math.nan,
           "vs_expert_se": ref["se"] if ref else math.nan, "reference_deals": st.reference,
           "held_out_agreement": rep["epochs"][-1]["held_out_agreement"] if rep["epochs"] else math.nan,
           "teach_s": round(teach_s, 1), "teach_cpu_s": round(teach_cpu, 1), "fit_s": round(fit_s, 1),
           "gate_s": round(gate_s, 1), "reference_s": round(ref_s, 1)}
    _append(out / "curve.csv", row)
    say(f"generation {g}: against the previous {row['vs_previous']:+.2f} ± {1.96 * row['vs_previous_se']:.2f} "
        f"({st.gate:,} deals), against expert {row['vs_expert']:+.2f} ± {1.96 * row['vs_expert_se']:.2f} "
        f"({st.reference:,} deals): {'accepted' if accepted else 'rejected'}; teach {teach_s:.0f} s, "
        f"fit {fit_s:.0f} s, gate {gate_s:.0f} s, reference {ref_s:.0f} s")
    return {**state, "rows": state["rows"] + [row]}


def _append(path: Path, row: dict) -> None:
    new = not path.is_file()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CURVE_HEAD)
        if new:
            w.writeheader()
        w.writerow(row)


def plot_curve(csv_path: Path, png: Path) -> None:
    """The learning curve: margin against the previous generation and against expert, by generation."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    df = pd.read_csv(csv_path)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for col, label in (("vs_previous", "against the previous generation"), ("vs_expert", "against expert")):
        ax.errorbar(df["generation"], df[col], yerr=1.96 * df[f"{col}_se"], marker="o", capsize=3, label=label)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("generation")
    ax.set_ylabel("margin, points a round (95% CI)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    tmp = png.with_name(png.stem + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(png)


def ship(out, dest, command: str = "", generation: int | None = None) -> Path:
    """Copy the champion's weights of a finished run (or generation `generation`'s, accepted or not:
    its gate row goes with it) to `dest` (the package's weights file)."""
    out = Path(out)
    state = json.loads((out / STATE).read_text())
    if generation is not None:
        rows = [r for r in state["rows"] if r["generation"] == generation]
        if not rows:
            raise LostcardsError(f"{out}: generation {generation} has not run (done: {len(state['rows'])})")
        name, gate = f"gen-{generation:03d}.npz", rows[0]
    elif state["champion"] in (*(ln.start for ln in LINES.values()), INIT):
        raise LostcardsError(f"{out}: no generation was accepted; nothing to ship")
    else:
        name = state["champion"]
        gate = next(r for r in state["rows"] if f"gen-{r['generation']:03d}.npz" == name)
    w, meta = read_weights(out / name)
    if "reference_digest" not in meta:          # weights from before the digest was recorded
        line = LINES[state["identity"].get("line", "student")]
        meta["reference_digest"] = line.reference_digest()
    write_weights(dest, w, {**{k: v for k, v in meta.items() if k != "format"}, "shipped_from": name,
                            "gate": gate, "ship_command": command})
    return Path(dest)

