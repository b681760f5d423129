// The table: set up a round, then play it by clicking (a card, where it goes, the draw) or by typing the
// terminal's commands. Every move is sent as the line `lostcards play` reads; the server decides the rules.
"use strict";

let menu = null, view = null, picked = null, passing = [], passMode = false, polling = null;

function $(id) { return document.getElementById(id); }

async function loadMenu() {
  menu = await api("/api/menu");
  for (const sel of [$("against"), $("partner")]) {
    for (const b of menu.bots) sel.append(el("option", { value: b, selected: b === "expert" }, b));
  }
  for (const p of menu.presets) $("preset").append(el("option", { value: p }, p));
  const params = new URLSearchParams(location.search);
  if (params.get("against")) $("against").value = params.get("against");
  showStrength();
}

// The ladder's measured strength against expert (docs/bots.md), for the chosen bot and table.
function showStrength() {
  const bot = $("against").value.split(":")[0];
  const players = $("players").value;
  const key = players === "1" ? "solitaire" : ($("preset").value === "lost-cities" ? "lost-cities" : `${players}p`);
  const lines = menu.ladder.levels.map(l => {
    const v = l[key];
    const txt = key === "solitaire" ? `${fmt(v[0], 1)}% of the optimum [${fmt(v[1], 1)}, ${fmt(v[2], 1)}]`
      : (l.bot === "expert" ? "0 (the reference)" : `${v[0] > 0 ? "+" : ""}${fmt(v[0], 1)} [${fmt(v[1], 1)}, ${fmt(v[2], 1)}] points a round`);
    return `${l.bot === bot ? "\u25B6 " : ""}${l.bot}: ${txt}${v[3] ? ` (n=${v[3]})` : ""}`;
  });
  $("strength").textContent = `Difficulty (against expert, ${key}; docs/bots.md): ` + lines.join(" \u2192 ");
}

function seatOptions() {
  const n = Number($("players").value);
  for (const id of ["seat", "first"]) {
    const sel = $(id), was = sel.value;
    sel.replaceChildren(...Array.from({ length: n }, (_, i) => el("option", { value: i }, i)));
    if (Number(was) < n) sel.value = was;
  }
  $("partner-label").classList.toggle("hidden", n !== 4);
  showStrength();
}

async function deal() {
  say("setup-msg", "");
  const body = { players: Number($("players").value), seat: Number($("seat").value),
                 first: Number($("first").value), against: $("against").value, preset: $("preset").value,
                 hints: $("hints").checked };
  const sets = $("sets").value.split(";").map(s => s.trim()).filter(Boolean);
  if (sets.length) body.sets = sets;
  const seed = $("seed").value.trim();
  if (seed !== "") {
    if (!/^[0-9]+$/.test(seed)) { say("setup-msg", `seed ${seed} is not allowed: a whole number 0 or more`, true); return; }
    body.seed = Number(seed);
    if (!Number.isSafeInteger(body.seed)) { say("setup-msg", "seed is too large for this page: at most 9007199254740991", true); return; }
  }
  if (body.players === 4 && $("partner").value !== body.against) body.partner = $("partner").value;
  try {
    view = await api("/api/rooms", body);
  } catch (e) { say("setup-msg", e.message, true); return; }
  history.replaceState(null, "", `/?room=${view.room}`);
  picked = null; passing = []; passMode = false;
  show(view);
  if (view.status === "preparing") poll();
}

function poll(wait) {
  clearTimeout(polling);
  wait = wait || 40;                       // soon at first (a warm start takes a fraction of a second), then less often
  polling = setTimeout(async () => {
    try { view = await api(`/api/rooms/${view.room}`); } catch (e) { say("msg", e.message, true); return; }
    show(view);
    if (view.status === "preparing") poll(Math.min(500, wait * 2));
  }, wait);
}

async function send(line) {
  if (!view || !view.your_turn) { say("msg", "not your turn", true); return; }
  try {
    const r = await api(`/api/rooms/${view.room}/move`, { seat: view.seat, turn: view.turn, line });
    view = r;
    say("msg", r.help || r.said || "");
    $("hint-out").textContent = "";
    picked = null; passing = []; passMode = false;
    show(view);
  } catch (e) { say("msg", e.message, true); }
}

function show(v) {
  $("table").classList.remove("hidden");
  $("notice").classList.toggle("hidden", !v.notice);
  $("notice").textContent = v.notice || "";
  if (v.status === "failed") { say("msg", v.error, true); }
  const who = v.players === 1 ? "solitaire" : `seat ${v.seat}`;
  $("title").textContent = `${v.rules}, ${v.players} player${v.players > 1 ? "s" : ""}, seed ${v.seed}: you are ${who}`;
  if (v.status !== "ready") { $("status").textContent = v.status === "preparing" ? "preparing the bots..." : ""; return; }
  $("status").textContent = v.ended ? `over: ended by ${v.ended_by}` :
    `turn ${v.turn + 1}, ${v.your_turn ? "your move" : `seat ${v.to_move} to move`}`;
  // the other seats
  $("others").replaceChildren(...v.others.map(o => el("div", { class: "row" },
    `seat ${o.seat} (${o.partner ? "your partner, " : ""}${o.who}): ${o.cards} cards`,
    o.known.length ? el("span", { class: "muted" }, o.partner ? " known to hold:" : " known to hold (taken off the piles):") : null,
    ...o.known.map(c => cardEl(c, { small: true })))));
  // expeditions
  $("sides").replaceChildren(...v.sides.map(s => el("div", { class: "exp" },
    el("div", {}, el("strong", {}, `${s.score >= 0 ? "+" : ""}${s.score}`), el("br"), s.label),
    ...s.suits.map(x => el("div", { class: "cell" },
      el("div", { class: "muted" }, `${x.suit}: ${x.cards.length ? (x.score >= 0 ? "+" : "") + x.score : "-"}`),
      el("div", { class: "cards" }, ...x.cards.map(c => cardEl(c, { small: true }))))))));
  // piles, deck, stall count
  const stall = v.stall_end ? `, stall count ${v.stall_count} (the round ends at ${v.stall_end})` :
    (v.players > 1 ? `, stall count ${v.stall_count}` : "");
  $("deck").textContent = `draw pile: ${v.deck} cards${stall}`;
  $("piles").replaceChildren(...v.piles.map(p => {
    const top = p.cards[p.cards.length - 1];
    const canDraw = v.chosen && v.draws.some(d => d.from === p.suit);
    return el("div", { class: "pile" }, el("div", { class: "muted" }, `${p.suit} (${p.cards.length})`),
      top ? cardEl(top, { button: canDraw, onclick: canDraw ? () => send(`draw ${p.suit}`) : null }) : "-");
  }));
  // the hand
  const chosen = v.chosen ? v.chosen.card : picked;
  $("hand").replaceChildren(...v.hand.map((c, i) => {
    const b = cardEl(c, { button: true });
    if (v.playable.includes(c.card)) b.classList.add("fits");
    if (c.card === chosen && !passMode) b.classList.add("chosen");
    if (passMode && passing.includes(i)) b.classList.add("marked");
    b.dataset.index = i;
    b.addEventListener("click", () => clickCard(i, c.card));
    return b;
  }));
  const mine = v.your_turn;
  $("to-exp").disabled = !(mine && picked && !v.chosen && !passMode);
  $("to-discard").disabled = !(mine && picked && !v.chosen && !passMode);
  $("undo").disabled = !(mine && v.chosen);
  $("draws").replaceChildren(...(v.chosen ? [el("span", { class: "muted" }, "then draw: "),
    ...v.draws.map(d => el("button", { class: "draw", "data-from": d.from, onclick: () => send(`draw ${d.from}`) }, d.label))] : []));
  $("pass-mode").classList.toggle("hidden", !(mine && v.can_pass && !v.chosen));
  $("pass-mode").textContent = passMode ? "Cancel the pass" : "Pass two cards\u2026";
  $("pass-go").classList.toggle("hidden", !passMode);
  $("pass-go").disabled = passing.length !== 2;
  $("hint").classList.toggle("hidden", !(v.hints && mine && !v.chosen));
  // the log, newest last
  $("log").textContent = v.log.map(e => `turn ${e.turn}: seat ${e.seat} (${e.who}): ${e.text}`).join("\n");
  $("log").scrollTop = $("log").scrollHeight;
  $("end").classList.toggle("hidden", !v.ended);
  if (v.ended) {
    $("summary").textContent = v.summary;
    $("reveal").textContent = v.reveal;
    $("download").href = `/api/rooms/${v.room}/record`;
    $("recpath").textContent = `saved as ${v.record} (lostcards replay ${v.record})`;
    $("review").href = `/review?room=${v.room}`;
  }
}

function clickCard(i, card) {
  if (!view || !view.your_turn || view.chosen) return;
  if (passMode) {
    const k = passing.indexOf(i);
    if (k >= 0) passing.splice(k, 1); else if (passing.length < 2) passing.push(i);
  } else {
    picked = picked === card ? null : card;
  }
  show(view);
}

async function hint() {
  $("hint-out").textContent = "asking the strongest bot (the first hint after an install compiles it and the " +
    "play-outs: up to a minute)...";
  try {
    const h = await api(`/api/rooms/${view.room}/hint`, {});
    const sign = v => (v >= 0 ? "+" : "") + fmt(v, 1);
    $("hint-out").textContent = `hint (${h.bot}): ${h.move}.` + (h.next ? ` Played out ${h.samples} times by ` +
      `${h.evaluator} from your information set, it ends the round at ${sign(h.margin)} (your side's margin); the best ` +
      `other move, ${h.next}, at ${sign(h.next_margin)}: ${h.by >= 0 ? "ahead" : "behind"} by ${fmt(Math.abs(h.by), 1)} ` +
      `points [${fmt(h.lo, 1)}, ${fmt(h.hi, 1)}].` : "") + " (Marked in the record.)";
  } catch (e) { $("hint-out").textContent = e.message; }
}

document.addEventListener("DOMContentLoaded", async () => {
  await loadMenu();
  seatOptions();
  $("players").addEventListener("change", seatOptions);
  $("preset").addEventListener("change", showStrength);
  $("against").addEventListener("change", () => { $("partner").value = $("against").value; showStrength(); });
  $("deal").addEventListener("click", deal);
  $("to-exp").addEventListener("click", () => picked && send(`play ${picked}`));
  $("to-discard").addEventListener("click", () => picked && send(`discard ${picked}`));
  $("undo").addEventListener("click", () => send("undo"));
  $("hint").addEventListener("click", hint);
  $("pass-mode").addEventListener("click", () => { passMode = !passMode; passing = []; picked = null; show(view); });
  $("pass-go").addEventListener("click", () => send(`pass ${passing.map(i => view.hand[i].card).join(" ")}`));
  $("command").addEventListener("keydown", ev => {
    if (ev.key === "Enter" && $("command").value.trim()) { send($("command").value.trim()); $("command").value = ""; }
  });
  // keyboard play: "/" types a move; e / x play or discard the focused (or picked) card; k draws off the deck; u undoes
  document.addEventListener("keydown", ev => {
    if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT" || !view || !view.your_turn) return;
    const focused = ev.target.dataset && ev.target.dataset.card && ev.target.closest("#hand") ? ev.target.dataset.card : null;
    const card = focused || picked;
    if (ev.key === "/") { ev.preventDefault(); $("command").focus(); }
    else if (ev.key === "e" && card && !view.chosen) send(`play ${card}`);
    else if (ev.key === "x" && card && !view.chosen) send(`discard ${card}`);
    else if (ev.key === "k" && view.chosen) send("draw deck");
    else if (ev.key === "u" && view.chosen) send("undo");
  });
  const room = new URLSearchParams(location.search).get("room");
  if (room) {
    try { view = await api(`/api/rooms/${room}`); show(view); if (view.status === "preparing") poll(); }
    catch (e) { say("setup-msg", e.message, true); }
  }
});
