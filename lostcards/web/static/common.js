// lostcards in a browser: what the three pages share (the API call, cards drawn as cards, numbers with intervals).
"use strict";

const SHAPES = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660",
                 Y: "\u25CF", B: "\u25B2", W: "\u25A0", G: "\u25C6", R: "\u2605", P: "\u271A" };

// POST (with a JSON body) or GET; resolves to the JSON answer, or rejects with the server's one-line error.
async function api(path, body) {
  const opts = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" },
                                           body: JSON.stringify(body) };
  const r = await fetch(path, opts);
  let data;
  try { data = await r.json(); } catch (e) { throw new Error(`the server answered ${r.status} without JSON`); }
  if (!r.ok) throw new Error(data.error || `the server answered ${r.status}`);
  return data;
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k.nodeType ? k : String(k));
  return e;
}

// A card (from the API: {card, suit, s, rank}) as a button or a span: rank, suit letter and shape, suit colour.
function cardEl(c, opts) {
  opts = opts || {};
  const tag = opts.button ? "button" : "span";
  const e = el(tag, { class: `card s${c.s % 6}${opts.small ? " small" : ""}`, "data-card": c.card,
                      title: c.card, "aria-label": c.card, type: opts.button ? "button" : null },
               el("span", { class: "rank" }, c.rank), el("span", { class: "suit" }, `${SHAPES[c.suit] || ""}${c.suit}`));
  if (opts.onclick) e.addEventListener("click", opts.onclick);
  return e;
}

function fmt(x, digits) {
  if (x === null || x === undefined || Number.isNaN(x)) return "-";
  return Number(x).toFixed(digits === undefined ? 2 : digits);
}

// [estimate, low, high, n] as "12.3 [11.9, 12.7] n=600"
function withInterval(v, digits) {
  if (!v) return "-";
  return `${fmt(v[0], digits)} [${fmt(v[1], digits)}, ${fmt(v[2], digits)}] n=${v[3]}`;
}

function say(id, text, bad) {
  const e = document.getElementById(id);
  if (!e) return;
  e.textContent = text || "";
  e.classList.toggle("error", !!bad);
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
