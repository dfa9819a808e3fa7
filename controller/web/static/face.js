// The table's page: folds the feed (a snapshot, then every public message) into the table
// view, the scoreboard and the referee's console. A reloaded page folds the same snapshot a
// page that never left has folded message by message: both show the same.
"use strict";
const SEATS = ["E", "S", "W", "N"];
const WIND = {E: "East", S: "South", W: "West", N: "North"};
const LOG_KEEP = 400;
const face = {state: null, scores: null, log: [], settings: {}, referee: false, picked: []};

function who(seat) {
  const name = ((face.state || {}).players || {})[seat];
  return name ? `${seat} (${name})` : seat;
}
// The discard open to calls: {"tile", "from"} (the American state names it alike or as a token).
function liveDiscard() {
  const d = (face.state || {}).discard;
  if (!d) return null;
  return typeof d === "string" ? {tile: d, from: lastOf(["Discarded"])?.seat} : d;
}
function tilesOf(meld) { return Array.isArray(meld) ? meld : (meld && meld.tiles) || []; }

// -- the feed ---------------------------------------------------------------------------------
function take(item) {
  if (item.topic === "state") { face.state = item.body; return; }
  if (item.topic === "scores") { face.scores = item.body; return; }
  if (item.topic === "events" && item.body.type === "HandStarted") face.log = [];
  face.log.push(item);
  if (face.log.length > LOG_KEEP) face.log.shift();
}
function connect() {
  const source = new EventSource("/feed");
  source.addEventListener("snapshot", (e) => {
    const snap = JSON.parse(e.data);
    face.state = snap.state; face.scores = snap.scores; face.log = snap.log || [];
    face.settings = snap.settings || {};
    setLink("live");
    render();
  });
  source.onmessage = (e) => { JSON.parse(e.data).forEach(take); render(); };
  source.addEventListener("reload", () => { source.close(); setTimeout(connect, 200); });
  source.onerror = () => setLink("reconnecting");
}
function setLink(word) {
  const link = $("link");
  link.dataset.state = word;
  link.textContent = word === "live" ? "● live" : word + "…";
}

// -- the table view ---------------------------------------------------------------------------
function lastOf(types) {
  for (let i = face.log.length - 1; i >= 0; i--) {
    const it = face.log[i];
    if (it.topic === "events" && types.includes(it.body.type)) return it.body;
  }
  return null;
}
function renderFacts() {
  const s = face.state || {};
  const facts = $("facts");
  facts.replaceChildren();
  const dice = lastOf(["DiceThrown"]);
  const items = [
    ["Table", s.table || face.settings.table || "-"],
    ["Hand", s.hand || "-"],
    ["Prevailing wind", s.prevailing ? WIND[s.prevailing] : "-"],
    ["Wall", s.live !== undefined && s.live !== null ? s.live + " live" : (s.wall ?? "-")],
    ["Dice", dice ? dice.dice.join(" + ") : "-"],
    ["Phase", s.phase || "-"],
  ];
  if (s.dead !== undefined) items.push(["Dead wall", s.dead]);
  for (const [k, v] of items) {
    const d = el("div", "fact");
    d.appendChild(el("span", "k", k));
    const val = el("span", "v", v);
    val.dataset.fact = k.toLowerCase().replace(/ /g, "-");
    d.appendChild(val);
    facts.appendChild(d);
  }
  facts.appendChild(countdown());
}
function countdown() {
  const box = el("div", "fact countdown");
  box.id = "countdown";
  const s = face.state || {};
  const last = lastOf(["Discarded", "KongAdded"]);
  if (!last || !["claims", "rob", "window"].includes(s.phase || s.step)) {
    box.hidden = true;
    return box;
  }
  const pause = face.settings.pause_ms || 1500;
  const left = Math.max(0, Date.parse(last.ts) + pause - Date.now());
  box.appendChild(el("span", "k", "Call window"));
  box.appendChild(el("span", "v", (left / 1000).toFixed(1) + " s"));
  return box;
}
function seatBox(seat) {
  const s = face.state || {};
  const info = (s.seats || {})[seat];
  const box = el("div", "seat seat-" + seat);
  box.dataset.seat = seat;
  const turn = s.turn === seat && !["ended"].includes(s.phase);
  if (turn) box.classList.add("turn");
  const head = el("div", "seat-head");
  head.appendChild(el("span", "wind", WIND[seat]));
  const name = el("span", "player", (s.players || {})[seat] || "");
  name.dataset.player = (s.players || {})[seat] || "";
  head.appendChild(name);
  if (turn) head.appendChild(el("span", "turn-mark", "to play"));
  box.appendChild(head);
  if (!info) { box.appendChild(el("div", "empty", "no player")); return box; }
  const held = info.concealed ?? info.count;
  if (held !== undefined) box.appendChild(el("div", "held", held + " tiles in hand"));
  const exposed = el("div", "exposed tiles");
  for (const meld of (info.melds || info.exposures || [])) {
    const m = el("span", "meld");
    tilesOf(meld).forEach(t => m.appendChild(tileEl(t)));
    exposed.appendChild(m);
  }
  for (const f of (info.flowers || [])) exposed.appendChild(tileEl(f, "flower"));
  box.appendChild(exposed);
  const discards = el("div", "discards tiles");
  const list = info.discards || [];
  const open = liveDiscard();
  list.forEach((t, i) => {
    const live = open && i === list.length - 1 && open.from === seat
      && tileFace(open.tile).label === tileFace(t).label;
    discards.appendChild(tileEl(t, live ? "live" : ""));
  });
  box.appendChild(discards);
  return box;
}
function rulingText(item) {
  const b = item.body;
  if (item.topic === "adjudications" && b.type === "refused")
    return ["refused", `${who(b.seat)}: call of ${b.kind} refused: ${b.reason}`, b.rule];
  if (item.topic === "adjudications") {
    const taker = b.winner ? `${who(b.winner)} takes ${b.discard} (${b.kind})` : "nobody takes it";
    const whose = b.discarder ? `${who(b.discarder)}'s ` : "";  // an American window without calls names no discarder
    return ["decision", `${whose}${b.discard}: [${(b.claims || []).join(", ") || "no calls"}] → ${taker}`, b.rule];
  }
  if (item.topic === "events" && b.type === "HandScored") {
    const net = Object.entries(b.net_by_player || {}).map(([p, v]) => `${p} ${v > 0 ? "+" : ""}${v}`);
    return ["scored", `hand ${b.hand} scored: ${net.join(", ") || b.result}`, b.rule];
  }
  if (item.topic === "events" && (b.type === "FalseMahjong" || b.type === "FalseMahJongg"))
    return ["refused", `${who(b.seat)}: false Mah-jongg: ${b.reason || (b.public || {}).why}`, b.rule];
  const pub = b.public || {};
  if (item.topic === "events" && b.type === "MahjongDeclared")
    return ["won", `${who(b.seat)}: Mah-jongg on ${b.win_tile} (${b.by})`, ""];
  if (item.topic === "events" && b.type === "MahJongg")
    return ["won", `${who(b.seat)}: Mah Jongg, card line ${pub.line} for ${pub.points} (${pub.by})`, pub.rule || ""];
  if (item.topic === "events" && b.type === "CharlestonPassOffered")
    return ["pass", `${who(b.seat)} passes (${pub.stage}${pub.blind ? ", " + pub.blind + " blind" : ""})`, ""];
  if (item.topic === "events" && b.type === "JokerExchanged")
    return ["pass", `${who(b.seat)} exchanges ${pub.tile} for a Joker from ${who(pub.owner)}`, ""];
  if (item.topic === "prompts")
    return ["asked", `the table asks #${b.id}: ${b.reason}`, b.rule || ""];
  if (item.topic === "events" && b.type === "ObservationSettled")
    return ["settled", `question #${b.id} ${b.how} by the referee`, ""];
  if (item.topic === "events" && b.type === "PenaltySettled")
    return ["settled", `false Mah-jongg #${b.id}: penalty ${b.how} by the referee`, b.rule];
  return null;
}
function renderTable() {
  const s = face.state || {};
  const table = $("table");
  table.dataset.turn = s.turn && s.phase !== "ended" ? s.turn : "";
  table.replaceChildren(...SEATS.map(seatBox));
  const middle = el("div", "middle");
  const open = liveDiscard();
  if (open) {
    middle.appendChild(el("span", "k", `${who(open.from)}'s discard, open to calls`));
    middle.appendChild(tileEl(open.tile, "live big"));
  }
  table.appendChild(middle);
  const rulings = $("rulings");
  rulings.replaceChildren();
  face.log.map(rulingText).filter(Boolean).slice(-12).reverse().forEach(([kind, text, rule]) => {
    const li = el("li", "ruling " + kind, text);
    if (rule) li.appendChild(el("span", "rule", rule));
    rulings.appendChild(li);
  });
  const doubts = $("doubts");
  doubts.replaceChildren();
  for (const p of (s.pending || [])) {
    const o = p.observation || p;
    const li = el("li", "doubt", p.kind === "false_mahjong"
      ? `#${p.id}: ${p.player} (${p.seat} in hand ${p.hand}): a false Mah-jongg, its penalty awaiting the referee`
      : `#${p.id}: ${o.kind || ""} ${o.seat || ""} ${(o.tiles || []).join(" ")}`);
    doubts.appendChild(li);
  }
  if (!doubts.children.length) doubts.appendChild(el("li", "none", "none"));
}

// -- the scoreboard ---------------------------------------------------------------------------
function renderScores() {
  const board = $("scoreboard");
  board.replaceChildren();
  const sc = face.scores || {};
  const game = sc.game;
  if (!game) { board.appendChild(el("p", "none", "No hand has been scored yet.")); return; }
  board.appendChild(el("h2", "", `Game ${game.id} · ${game.ruleset}`));
  const totals = el("div", "totals");
  for (const p of game.players) {
    const t = el("div", "total");
    t.dataset.player = p;
    t.dataset.total = String(game.totals[p]);
    t.appendChild(el("span", "name", p));
    t.appendChild(el("span", "points", (game.totals[p] > 0 ? "+" : "") + game.totals[p]));
    totals.appendChild(t);
  }
  board.appendChild(totals);
  if (game.next) board.appendChild(el("p", "next",
    `Next: hand ${game.next.hand}, ${game.next.east} is East` +
    (game.next.prevailing ? `, ${WIND[game.next.prevailing]} prevails` : "")));
  if (game.final) {
    const f = el("div", "final");
    f.appendChild(el("h3", "", "Final settlement"));
    for (const p of game.final.ranking) {
      const d = el("div", "settle", `${p}: ${game.final.settlement[p] > 0 ? "+" : ""}${game.final.settlement[p]}`);
      d.dataset.settle = p;
      d.dataset.amount = String(game.final.settlement[p]);
      f.appendChild(d);
    }
    f.appendChild(el("p", "rule", game.final.why));
    board.appendChild(f);
  }
  const table = el("table", "hands");
  const head = el("tr");
  ["Hand", "Wind", "East", "Winner", ...game.players].forEach(h => head.appendChild(el("th", "", h)));
  table.appendChild(head);
  for (const h of game.hands) {
    const row = el("tr", "hand-row");
    row.dataset.hand = h.hand;
    const won = h.penalty ? `${h.penalty.seat}: false Mah-jongg, penalty ${h.penalty.status}`
      : h.winner || (h.error ? `not scored: ${h.error}` : h.outcome.replace("_", " "));
    if (h.penalty) row.classList.add(h.penalty.status);
    [h.hand, h.prevailing || "-", h.seats.E, won].forEach(v => row.appendChild(el("td", "", v)));
    game.players.forEach(p => row.appendChild(el("td", "num", (h.net[p] > 0 ? "+" : "") + h.net[p])));
    row.addEventListener("click", () => toggleSheet(row, h, game.players.length + 4));
    table.appendChild(row);
  }
  const wrap = el("div", "hands-wrap");  // a phone scrolls the hands, not the page
  wrap.appendChild(table);
  board.appendChild(wrap);
}
function toggleSheet(row, hand, span) {
  const next = row.nextElementSibling;
  if (next && next.classList.contains("sheet")) { next.remove(); return; }
  const tr = el("tr", "sheet");
  const td = el("td");
  td.colSpan = span;
  const score = hand.score || {};
  if (score.mahjong && score.mahjong.valid === false)
    td.appendChild(el("p", "void", `Void: ${score.mahjong.reason || ""} ${score.mahjong.rule || ""}`));
  for (const [player, h] of Object.entries(score.hands || {})) {
    const block = el("div", "scored-hand");
    block.appendChild(el("h4", "", `${player}: ${h.value ?? h.score ?? ""}`));
    const arr = el("div", "tiles");
    (h.arrangement || []).forEach(set => { const m = el("span", "meld"); set.forEach(t => m.appendChild(tileEl(t))); arr.appendChild(m); });
    block.appendChild(arr);
    const items = el("ul", "items");
    (h.items || []).forEach(it => items.appendChild(el("li", "",
      `${it.item}: ${it.points ? it.points + " points" : ""}${it.doubles ? it.doubles + " double(s)" : ""} — ${it.rule}`)));
    block.appendChild(items);
    td.appendChild(block);
  }
  const pays = el("ul", "payments");
  (score.payments || []).forEach(p => pays.appendChild(el("li", "", `${p.from} pays ${p.to} ${p.amount} (${p.why})`)));
  td.appendChild(pays);
  if (hand.penalty) td.appendChild(el("p", "void", `The false Mah-jongg's penalty is ${hand.penalty.status}` +
    (hand.penalty.status === "pending" ? ": booked only once the referee confirms it." : " by the referee.")));
  if (hand.error) td.appendChild(el("p", "void", `Not scored: ${hand.error}`));
  if (!td.children.length) td.appendChild(el("p", "", hand.rule || hand.outcome));
  tr.appendChild(td);
  row.after(tr);
}

// -- the referee's console --------------------------------------------------------------------
async function command(verb, body) {
  const r = await fetch("/api/cmd/" + verb, {method: "POST", headers: {"Content-Type": "application/json"},
                                             body: JSON.stringify(body)});
  const out = await r.json();
  const answer = $("answer");
  answer.className = "answer " + (out.ok ? "ok" : "refused");
  answer.textContent = out.ok ? `${verb}: done` : `${verb} refused: ${out.error}${out.rule ? " (" + out.rule + ")" : ""}`;
  return out;
}
function renderConsole() {
  $("signin").hidden = face.referee;
  $("console").hidden = !face.referee;
  if (!face.referee) return;
  const pending = (face.state || {}).pending || [];
  const key = JSON.stringify(pending);
  if (key !== face.questionsKey) { face.questionsKey = key; renderQuestions(pending); }
  renderMoveList();  // console.js
}
function renderQuestions(pending) {
  const qs = $("questions");
  qs.replaceChildren();
  for (const p of pending) {
    if (p.kind === "false_mahjong") { qs.appendChild(penaltyQuestion(p)); continue; }  // console.js
    const o = p.observation || p;
    const li = el("li", "question");
    li.dataset.pending = p.id;
    li.appendChild(el("span", "", `#${p.id} ${o.kind} ${o.seat || ""} `));
    (o.tiles || []).forEach(t => li.appendChild(tileEl(t)));
    const ok = el("button", "confirm", "Confirm"); ok.type = "button";
    ok.onclick = () => command("confirm", {pending: p.id});
    const no = el("button", "dismiss", "Dismiss"); no.type = "button";
    no.onclick = () => command("dismiss", {pending: p.id});
    const fix = el("button", "correct", "Correct…"); fix.type = "button";
    fix.onclick = () => openPicker(`question #${p.id}`, tiles => command("correct", {pending: p.id, tiles}));
    li.append(ok, no, fix);
    qs.appendChild(li);
  }
  if (!qs.children.length) qs.appendChild(el("li", "none", "no question"));
}
function openPicker(what, send) {
  face.picked = []; face.pickSend = send;
  $("picker").hidden = false; $("picker-for").textContent = what;
  const box = $("picker-tiles");
  box.replaceChildren(...ALL_TILES.map(t => { const e = tileEl(t, "pick"); e.onclick = () => { face.picked.push(t); showPicked(); }; return e; }));
  showPicked();
}
function showPicked() { $("picked").replaceChildren(...face.picked.map(t => tileEl(t))); }
function wireConsole() {
  wireMoves();  // console.js
  $("signin").onsubmit = async (e) => {
    e.preventDefault();
    const r = await fetch("/api/login", {method: "POST", headers: {"Content-Type": "application/json"},
                                         body: JSON.stringify({password: $("password").value})});
    const out = await r.json();
    face.referee = !!out.ok;
    if (!out.ok) { $("answer").textContent = out.error; alertSignin(out.error); }
    render();
  };
  $("signout").onclick = async () => { await fetch("/api/logout", {method: "POST"}); face.referee = false; render(); };
  $("picker-send").onclick = async () => { await face.pickSend(face.picked); $("picker").hidden = true; };
  $("observe-form").onsubmit = (e) => {
    e.preventDefault();
    const seat = $("observe-seat").value, kind = $("observe-kind").value;
    openPicker(`${seat}'s ${kind.replace("_", " ")}`, tiles => command("observe", {kind, seat, tiles}));
  };
  $("picker-clear").onclick = () => { face.picked = []; showPicked(); };
  $("claim-form").onsubmit = (e) => { e.preventDefault(); command("claim", {seat: $("claim-seat").value, kind: $("claim-kind").value}); };
  $("roll").onclick = () => command("roll", {seat: "E"});
  $("game-form").onsubmit = (e) => { e.preventDefault(); command("game", {action: "start", players: SEATS.map(s => $("p-" + s).value)}); };
  $("end-form").onsubmit = (e) => { e.preventDefault(); command("game", {action: "end", reason: $("end-reason").value}); };
}
function alertSignin(text) {
  let p = document.querySelector("#signin .error");
  if (!p) { p = el("p", "error"); $("signin").appendChild(p); }
  p.textContent = text;
}

// -- the page -----------------------------------------------------------------------------------
function view() { return location.pathname.replace(/\/$/, "") || "/"; }
function render() {
  const v = view();
  $("table-view").hidden = !(v === "/" || v === "/console");
  $("score-view").hidden = v !== "/score";
  $("console-view").hidden = v !== "/console";
  document.querySelectorAll("[data-nav]").forEach(a => a.classList.toggle("here", a.dataset.nav === v));
  if (!$("table-view").hidden) { renderFacts(); renderTable(); }
  if (!$("score-view").hidden && face.scores !== face.shownScores) {
    face.shownScores = face.scores;  // the scoreboard changes only with the scores topic
    renderScores();
  }
  if (!$("console-view").hidden) renderConsole();
  (window.faceParts || []).forEach(part => part(v));  // the page's own modules (charleston.js ...)
}
async function start() {
  wireConsole();
  if (view() === "/console") {
    const r = await fetch("/api/session");
    face.referee = (await r.json()).referee;
  }
  render();
  connect();
  setInterval(() => { if (!$("table-view").hidden) { const c = $("countdown"); if (c) c.replaceWith(countdown()); } }, 100);
}
start();
