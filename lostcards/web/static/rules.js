// Try a rule: change parameters of a preset, run a quick batch (progress, cancel), compare with the unchanged rules.
"use strict";

let menu = null, batch = null, timer = null;

function $(id) { return document.getElementById(id); }

function fillParams() {
  const preset = $("preset").value;
  const tb = $("params").querySelector("tbody");
  tb.replaceChildren(...Object.entries(menu.parameters).filter(([k]) => k !== "players").map(([k, p]) =>
    el("tr", {}, el("td", {}, k),
      el("td", {}, el("input", { "data-param": k, value: p.values[preset], size: 16 })),
      el("td", { class: "muted" }, p.values[preset]), el("td", { class: "muted" }, p.meaning))));
}

function changes() {
  const preset = $("preset").value, out = [];
  for (const inp of document.querySelectorAll("input[data-param]")) {
    const k = inp.dataset.param, v = inp.value.trim();
    if (v !== menu.parameters[k].values[preset]) out.push(`${k}=${v}`);
  }
  return out;
}

function num(id, what) {
  const s = $(id).value.trim();
  if (!/^[0-9]+$/.test(s)) throw new Error(`${what} ${s} is not allowed: a whole number`);
  return Number(s);
}

async function run() {
  say("msg", "");
  let body;
  try {
    body = { preset: $("preset").value, players: Number($("players").value), sets: changes(),
             rounds: num("rounds", "rounds"), skill_rounds: num("skill", "duplicate deals"), seed: num("seed", "seed"),
             opponent: $("opponent").value };
  } catch (e) { say("msg", e.message, true); return; }
  try { batch = await api("/api/batches", body); } catch (e) { say("msg", e.message, true); return; }
  $("result").classList.add("hidden");
  $("run").disabled = true; $("cancel").disabled = false;
  progress(batch);
  poll();
}

function poll() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    try { batch = await api(`/api/batches/${batch.batch}`); } catch (e) { say("msg", e.message, true); return; }
    progress(batch);
    if (batch.status === "queued" || batch.status === "running") poll();
  }, 300);
}

function progress(b) {
  $("bar").firstElementChild.style.width = `${100 * b.step / b.steps}%`;
  $("notice").classList.toggle("hidden", !b.notice);
  $("notice").textContent = b.notice || "";
  $("doing").textContent = `step ${b.step} of ${b.steps}: ${b.doing}` + (b.seconds !== null ? ` (${b.seconds} s)` : "");
  if (b.status === "done" || b.status === "cancelled" || b.status === "failed") {
    $("run").disabled = false; $("cancel").disabled = true;
  }
  if (b.status === "failed") say("msg", b.error, true);
  if (b.status === "cancelled") say("msg", "cancelled");
  if (b.status === "done") show(b);
}

async function cancel() {
  if (!batch) return;
  try { progress(await api(`/api/batches/${batch.batch}/cancel`, {})); } catch (e) { say("msg", e.message, true); }
}

function show(b) {
  $("result").classList.remove("hidden");
  $("headline").textContent = `${b.changed} against ${b.unchanged}, ${b.players} player${b.players > 1 ? "s" : ""}, ` +
    `seed ${b.seed}: ${b.rounds} self-play rounds` + (b.skill_rounds ? `, ${b.skill_rounds} duplicate deals against ${b.opponent}` : "");
  const tb = $("metrics").querySelector("tbody");
  tb.replaceChildren(...b.rows.map(r => el("tr", {},
    el("td", { title: r.meaning }, r.metric + (r.opponent ? ` (vs ${r.opponent})` : "")),
    el("td", {}, withInterval(r.base, 3)), el("td", {}, withInterval(r.changed, 3)),
    el("td", { class: "diff" }, withInterval(r.diff, 3)))));
  $("command").textContent = b.command;
  plot(b.rows);
}

// Each metric's change, as a share of its unchanged value, with its interval.
function plot(rows) {
  const svg = $("plot"), W = 900, rowH = 16, L = 230;
  const shown = rows.filter(r => r.diff && r.base[0] && Number.isFinite(r.diff[1]));
  const H = 30 + rowH * shown.length;
  svg.setAttribute("height", H);
  svg.replaceChildren();
  const vals = shown.flatMap(r => [r.diff[1], r.diff[2]].map(v => 100 * v / Math.abs(r.base[0])));
  const m = Math.min(200, Math.max(5, ...vals.map(Math.abs)));
  const x = v => L + (W - L - 20) * (Math.max(-m, Math.min(m, v)) + m) / (2 * m);
  svg.append(svgEl("line", { x1: x(0), x2: x(0), y1: 10, y2: H - 16, stroke: "#999" }));
  svg.append(svgEl("text", { x: L, y: H - 2 }, `-${m.toFixed(0)}%`));
  svg.append(svgEl("text", { x: W - 60, y: H - 2 }, `+${m.toFixed(0)}%`));
  svg.append(svgEl("text", { x: x(0) - 60, y: H - 2 }, "change vs unchanged"));
  shown.forEach((r, i) => {
    const yy = 18 + i * rowH, b = Math.abs(r.base[0]);
    svg.append(svgEl("text", { x: 2, y: yy + 4 }, r.metric + (r.opponent ? ` (${r.opponent})` : "")));
    svg.append(svgEl("line", { x1: x(100 * r.diff[1] / b), x2: x(100 * r.diff[2] / b), y1: yy, y2: yy,
                               stroke: "#0072B2", "stroke-width": 2 }));
    svg.append(svgEl("circle", { cx: x(100 * r.diff[0] / b), cy: yy, r: 3.5, fill: "#D55E00" }));
  });
}

document.addEventListener("DOMContentLoaded", async () => {
  menu = await api("/api/menu");
  for (const p of menu.presets) $("preset").append(el("option", { value: p }, p));
  fillParams();
  $("preset").addEventListener("change", fillParams);
  $("run").addEventListener("click", run);
  $("cancel").addEventListener("click", cancel);
});
