// The club page: every table live (a small view built from the table page's tiles), each
// event's clock, standings and next seating; a player's page with a plot of their results.
// It asks the hub's page server once a second (/api/club): the hub holds what the club
// broker holds.
"use strict";
const WINDS = ["East", "South", "West", "North"];
const SEAT_OF = {East: "E", South: "S", West: "W", North: "N"};
const MINI_SEATS = ["E", "S", "W", "N"];
const POLL_MS = 1000;

function playerLink(name) {
  const a = el("a", "player-link", name);
  a.href = "/player/" + encodeURIComponent(name);
  return a;
}
function setLink(ok) {
  const link = $("link");
  link.dataset.state = ok ? "live" : "lost";
  link.textContent = ok ? "live" : "reconnecting…";
}

// -- one table, small -------------------------------------------------------------------------
function miniSeat(state, totals, seat) {
  const info = (state.seats || {})[seat];
  const name = (state.players || {})[seat] || "";
  const box = el("div", "seat seat-" + seat);
  if (state.turn === seat && state.phase !== "ended") box.classList.add("turn");
  const head = el("div", "seat-head");
  head.appendChild(el("span", "wind", seat));
  const p = el("span", "player", name);
  p.dataset.player = name;
  head.appendChild(p);
  if (name in totals) head.appendChild(el("span", "points", totals[name]));
  box.appendChild(head);
  if (!info) return box;
  const exposed = el("div", "tiles");
  for (const meld of (info.melds || info.exposures || [])) {
    const m = el("span", "meld");
    (Array.isArray(meld) ? meld : meld.tiles || []).forEach(t => m.appendChild(tileEl(t)));
    exposed.appendChild(m);
  }
  box.appendChild(exposed);
  const discards = el("div", "tiles discards");
  (info.discards || []).slice(-8).forEach(t => discards.appendChild(tileEl(t)));
  box.appendChild(discards);
  return box;
}
function miniTable(id, t) {
  const card = el("article", "mini");
  card.dataset.table = id;
  const head = el("div", "mini-head");
  head.appendChild(el("span", "id", id));
  const state = t.state || {};
  if (state.hand) head.appendChild(el("span", "hand", "hand " + state.hand));
  const online = (t.status || {}).state !== "offline";
  head.appendChild(el("span", "state " + (online ? "online" : "offline"),
                      online ? "live" : "offline"));
  card.appendChild(head);
  const totals = (t.scores || {}).totals || {};
  const grid = el("div", "table");
  MINI_SEATS.forEach(s => grid.appendChild(miniSeat(state, totals, s)));
  grid.appendChild(el("div", "middle", state.phase || ""));
  card.appendChild(grid);
  return card;
}

// -- events -----------------------------------------------------------------------------------
function clockText(clock) {
  if (!clock) return "";
  if (clock.state === "ended") return `round ${clock.round} ended`;
  const left = Math.max(0, Math.round((Date.parse(clock.ends) - Date.now()) / 1000));
  if (clock.state === "time" || left === 0) return `round ${clock.round}: time`;
  const m = Math.floor(left / 60), s = String(left % 60).padStart(2, "0");
  return `round ${clock.round}: ${m}:${s} left`;
}
function standingsTable(st) {
  const t = el("table", "standings");
  t.dataset.scheme = st.scheme || "";
  const head = el("tr");
  ["#", "Player", st.scheme === "placement" ? "Placement" : "Points", "Games", "Won"]
    .forEach(h => head.appendChild(el("th", "", h)));
  t.appendChild(head);
  (st.players || []).forEach((p, i) => {
    const row = el("tr");
    row.dataset.player = p.name;
    row.appendChild(el("td", "n", i + 1));
    const name = el("td");
    name.appendChild(playerLink(p.name));
    row.appendChild(name);
    [p.points, p.games, p.hands_won].forEach(v => row.appendChild(el("td", "n", v)));
    t.appendChild(row);
  });
  return t;
}
function seatingTable(seating) {
  const number = seating.next || seating.current;
  const round = (seating.rounds || []).find(r => r.round === number);
  const wrap = el("div", "seating");
  if (!round) { wrap.appendChild(el("p", "", "every round has been played")); return wrap; }
  wrap.appendChild(el("h3", "", (seating.next ? "Next: round " : "Now: round ") + number));
  const t = el("table", "standings seating");
  t.dataset.round = number;
  for (const table of round.tables) {
    const row = el("tr");
    row.dataset.table = table.table_id;
    row.appendChild(el("td", "", table.table_id));
    for (const w of WINDS) {
      const td = el("td");
      if (table.seats[w]) { td.appendChild(el("span", "w", SEAT_OF[w] + " ")); td.appendChild(playerLink(table.seats[w])); }
      row.appendChild(td);
    }
    t.appendChild(row);
  }
  wrap.appendChild(t);
  if ((round.byes || []).length) wrap.appendChild(el("p", "", "Sitting out: " + round.byes.join(", ")));
  return wrap;
}
function eventBox(id, ev) {
  const box = el("section", "event");
  box.dataset.event = id;
  const head = el("div", "event-head");
  const info = ev.event || {};
  head.appendChild(el("h2", "", info.name || id));
  head.appendChild(el("span", "", `${info.kind === "tournament" ? "Tournament" : "Club night"}, round ${info.started || 0} of ${info.rounds || "?"}`));
  if (ev.clock) {
    const c = el("span", "clock" + (ev.clock.state === "time" ? " time" : ""), clockText(ev.clock));
    c.id = "clock-" + id;
    head.appendChild(c);
  }
  box.appendChild(head);
  // A table that refused the round's game (a game with booked hands still going on there).
  for (const [table, answer] of Object.entries((ev.tables || {}).tables || {})) {
    if (answer && !answer.ok)
      box.appendChild(el("p", "refused-table", `${table} did not start the round: ${answer.error}`));
  }
  const body = el("div", "event-body");
  const left = el("div");
  left.appendChild(el("h3", "", "Standings"));
  if (ev.standings) left.appendChild(standingsTable(ev.standings));
  body.appendChild(left);
  const right = el("div");
  if (ev.seating) right.appendChild(seatingTable(ev.seating));
  body.appendChild(right);
  box.appendChild(body);
  return box;
}
async function pollClub() {
  try {
    const r = await fetch("/api/club", {cache: "no-store"});
    const club = await r.json();
    setLink(true);
    $("events").replaceChildren(...Object.keys(club.events).sort().map(id => eventBox(id, club.events[id])));
    $("tables").replaceChildren(...Object.keys(club.tables).sort().map(id => miniTable(id, club.tables[id])));
    document.body.dataset.ready = "club";
  } catch (e) {
    setLink(false);
  }
  setTimeout(pollClub, POLL_MS);
}

// -- a player's page --------------------------------------------------------------------------
function plot(values) {
  // Results over time: the running sum of the player's game totals, one point per game.
  const W = 520, H = 220, P = 34;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "running total after each game: " + values.join(", "));
  const all = [0, ...values];
  const lo = Math.min(...all), hi = Math.max(...all), span = (hi - lo) || 1;
  const x = i => P + i * (W - 2 * P) / Math.max(1, values.length);
  const y = v => H - P - (v - lo) * (H - 2 * P) / span;
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e);
    return e;
  };
  add("line", {class: "zero", x1: P, x2: W - P, y1: y(0), y2: y(0)});
  add("text", {x: 2, y: y(hi) + 4}, hi);
  add("text", {x: 2, y: y(lo) + 4}, lo);
  add("polyline", {class: "line", points: all.map((v, i) => `${x(i)},${y(v)}`).join(" ")});
  values.forEach((v, i) => {
    add("circle", {class: "dot", cx: x(i + 1), cy: y(v), r: 4}).dataset.value = v;
    add("text", {x: x(i + 1) - 6, y: H - 10}, i + 1);
  });
  return svg;
}
async function showPlayer(name) {
  $("player-name").textContent = name;
  const r = await fetch("/api/player/" + encodeURIComponent(name), {cache: "no-store"});
  const page = await r.json();
  if (!r.ok) { $("player-facts").replaceChildren(el("p", "", page.error)); document.body.dataset.ready = "player"; return; }
  const finished = page.games.filter(g => g.finished);
  const facts = [["Games", page.games.length], ["Hands won", page.hands_won],
                 ["Points", finished.reduce((s, g) => s + g.total, 0)]];
  $("player-facts").replaceChildren(...facts.map(([k, v]) => {
    const f = el("div", "fact"); f.appendChild(el("span", "k", k)); f.appendChild(el("span", "v", v)); return f;
  }));
  $("plot").replaceChildren(plot(page.over_time));
  $("made-most").replaceChildren(...page.made_most.map(m => el("li", "", `${m.hand} × ${m.times}`)));
  const t = $("player-games");
  t.replaceChildren();
  const head = el("tr");
  ["Table", "Game", "Opponents", "Hands", "Won", "Total", "Place pts"].forEach(h => head.appendChild(el("th", "", h)));
  t.appendChild(head);
  for (const g of page.games) {
    const row = el("tr", g.finished ? "" : "running");
    row.appendChild(el("td", "", g.table));
    row.appendChild(el("td", "n", g.game));
    const opp = el("td");
    g.opponents.forEach((o, i) => { if (i) opp.append(", "); opp.appendChild(playerLink(o)); });
    row.appendChild(opp);
    [g.hands, g.won, g.total, g.finished ? g.placement_points : "playing"].forEach(v => row.appendChild(el("td", "n", v)));
    t.appendChild(row);
  }
  document.body.dataset.ready = "player";
}

// -- the organiser's desk (only where the hub has an organiser's password) ---------------------
async function post(path, body) {
  const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                               body: JSON.stringify(body)});
  let answer;
  try { answer = await r.json(); } catch (e) { answer = {ok: false, error: `HTTP ${r.status}`}; }
  return answer;
}
function showAnswer(answer) {
  const p = $("desk-answer");
  p.className = "desk-answer " + (answer.ok ? "ok" : "refused");
  if (!answer.ok) {
    p.textContent = `refused: ${answer.error}` + (answer.where ? ` (${answer.where})` : "");
  } else if (answer.tables && !Array.isArray(answer.tables)) {
    p.textContent = `round ${answer.round} started: ` + Object.entries(answer.tables)
      .map(([t, names]) => `${t}: ${names.join(", ")}`).join("; ");
  } else if (answer.games_ended) {
    p.textContent = `round ${answer.round} ended` + (answer.games_ended.length
      ? `; games ended at ${answer.games_ended.join(", ")}` : "");
  } else {
    p.textContent = `event ${answer.event} created: ${answer.players.length} players, ` +
      `tables ${answer.tables.join(", ")}, ${answer.rounds} rounds of ${answer.round_minutes} minutes`;
  }
  p.dataset.ok = answer.ok ? "true" : "false";
}
function whole(text) {
  // a number where the field holds one; otherwise the text, for the desk to name
  const n = Number(text);
  return text.trim() !== "" && Number.isInteger(n) ? n : text;
}
function listOf(text, sep) { return text.split(sep).map(s => s.trim()).filter(s => s); }
async function deskSession() {
  const r = await fetch("/api/desk/session", {cache: "no-store"});
  const s = await r.json();
  $("desk-open").hidden = !s.offered || s.organiser;
  $("desk").hidden = !s.organiser;
  $("desk-login").hidden = true;
  $("desk-forms").hidden = !s.organiser;
}
function setUpDesk() {
  $("desk-open").onclick = () => {
    $("desk").hidden = false; $("desk-login").hidden = false; $("desk-password").focus();
  };
  $("desk-login").onsubmit = async (e) => {
    e.preventDefault();
    const answer = await post("/api/desk/login", {password: $("desk-password").value});
    $("desk-password").value = "";
    $("desk-login-error").textContent = answer.ok ? "" : `Not signed in: ${answer.error}`;
    if (!answer.ok) return;
    await deskSession();
  };
  $("desk-logout").onclick = async () => { await post("/api/desk/logout", {}); await deskSession(); };
  $("desk-create").onsubmit = async (e) => {
    e.preventDefault();
    const f = e.target.elements;
    showAnswer(await post("/api/desk/event", {
      action: "create", event: f.event.value.trim(), name: f.name.value.trim(),
      players: listOf(f.players.value, "\n"), tables: listOf(f.tables.value, ","),
      rounds: whole(f.rounds.value), scheme: f.scheme.value,
      round_minutes: whole(f.round_minutes.value)}));
  };
  $("desk-round").onsubmit = async (e) => {
    e.preventDefault();
    const f = e.target.elements;
    const action = e.submitter ? e.submitter.value : "start";
    const body = {action: action, event: f.event.value.trim()};
    if (action === "end") body.end_games = f.end_games.checked;
    showAnswer(await post("/api/desk/round", body));
  };
  deskSession();
}

function main() {
  const m = /^\/player\/(.+)$/.exec(location.pathname);
  if (m) { $("player-view").hidden = false; showPlayer(decodeURIComponent(m[1])); setLink(true); }
  else { $("club-view").hidden = false; setUpDesk(); pollClub(); }
}
main();
