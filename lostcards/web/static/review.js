// The review: the move-by-move analysis of a finished round (?room=ID) or of an uploaded record.
"use strict";

function $(id) { return document.getElementById(id); }

function samples() {
  const s = $("samples").value.trim();
  if (!/^[0-9]+$/.test(s)) throw new Error(`determinizations ${s} is not allowed: a whole number 2..512`);
  return Number(s);
}

async function fromRoom(room) {
  say("msg", "analysing your moves (play-outs of every legal move, each turn; the first analysis after an " +
      "install compiles the play-outs: up to a minute)...");
  try { show(await api(`/api/rooms/${room}/analysis`, { samples: samples() })); say("msg", ""); }
  catch (e) { say("msg", e.message, true); }
}

async function fromFile() {
  const f = $("file").files[0];
  if (!f) { say("msg", "choose a record file first", true); return; }
  if (f.size > 2 * 1024 * 1024) { say("msg", `${f.name} holds ${f.size} bytes; at most 2 MiB`, true); return; }
  say("msg", "analysing...");
  try {
    const text = await f.text();
    show(await api("/api/analyze", { record: text, seat: Number($("seat").value), samples: samples() }));
    say("msg", "");
  } catch (e) { say("msg", e.message, true); }
}

function show(a) {
  $("result").classList.remove("hidden");
  const sides = a.scores.map(s => (s >= 0 ? "+" : "") + s).join(" : ");
  $("headline").textContent = `seat ${a.seat}: ${fmt(a.total_loss, 1)} expected points lost in all ` +
    `[${fmt(a.total_lo, 1)}, ${fmt(a.total_hi, 1)}] over ${a.turns_analysed} moves; final scores ${sides}`;
  $("method").textContent = `Each move against the best move found from the seat's information set: ${a.samples} ` +
    `determinizations of the hidden cards a turn, played out by ${a.evaluator} for every seat; a fresh set measures ` +
    `the loss (95% interval). ${a.hints.length ? `Hints used: ${a.hints.map(h => "turn " + h.turn).join(", ")}.` : "No hint used."}`;
  const worst = a.worst.map(t => a.turns.find(x => x.turn === t));
  $("worst").replaceChildren(el("h2", {}, "The three costliest moves"),
    worst.length ? el("ol", {}, ...worst.map(t => el("li", { class: "worst-move" },
      `turn ${t.turn}: you played ${t.played}; better: ${t.best} \u2014 ${fmt(t.loss, 1)} points [${fmt(t.lo, 1)}, ${fmt(t.hi, 1)}]`)))
      : el("p", {}, "No move lost points against the best one found."));
  const tb = $("turns").querySelector("tbody");
  tb.replaceChildren(...a.turns.map(t => el("tr", { class: a.worst.includes(t.turn) ? "worst" : "" },
    el("td", {}, t.turn), el("td", {}, t.played), el("td", {}, t.played === t.best ? "(the same)" : t.best),
    el("td", {}, `${fmt(t.loss, 1)} [${fmt(t.lo, 1)}, ${fmt(t.hi, 1)}]`), el("td", {}, t.rank), el("td", {}, t.moves))));
  chart(a);
}

// Each side's score after every turn, the analysed seat's costliest moves marked.
function chart(a) {
  const svg = $("chart"), W = 900, H = 260, L = 40, B = 24, T = 10;
  svg.replaceChildren();
  const track = a.track, n = track.length - 1, sidesN = track[0].length;
  const all = track.flat();
  const lo = Math.min(0, ...all), hi = Math.max(1, ...all);
  const x = i => L + (W - L - 10) * i / Math.max(1, n), y = v => T + (H - T - B) * (hi - v) / (hi - lo);
  svg.append(svgEl("line", { x1: L, x2: W - 10, y1: y(0), y2: y(0), stroke: "#999" }));
  for (const v of [lo, hi]) svg.append(svgEl("text", { x: 2, y: y(v) + 4 }, Math.round(v)));
  svg.append(svgEl("text", { x: W - 60, y: H - 4 }, `turn ${n}`));
  const colours = ["#0072B2", "#D55E00"];
  for (let s = 0; s < sidesN; s++) {
    const pts = track.map((row, i) => `${x(i)},${y(row[s])}`).join(" ");
    svg.append(svgEl("polyline", { points: pts, fill: "none", stroke: colours[s % 2], "stroke-width": 2,
                                   "stroke-dasharray": s ? "5,3" : "" }));
    svg.append(svgEl("text", { x: L + 8 + 150 * s, y: H - 4, fill: colours[s % 2] },
      sidesN === 1 ? "score" : (sidesN === 2 ? `seat ${s}` : `team ${"AB"[s]}`) + (s === (sidesN === 2 ? a.seat : a.seat % 2) ? " (analysed)" : "")));
  }
  for (const t of a.worst) {
    svg.append(svgEl("line", { x1: x(t), x2: x(t), y1: T, y2: H - B, stroke: "#b00020", "stroke-dasharray": "2,2" }));
    svg.append(svgEl("text", { x: x(t) + 2, y: T + 10, fill: "#b00020" }, `turn ${t}`));
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("go").addEventListener("click", fromFile);
  const room = new URLSearchParams(location.search).get("room");
  if (room) { $("upload").querySelector("h2").textContent = "The round just played"; fromRoom(room); }
});
