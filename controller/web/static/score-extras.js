// Beside the scoreboard's points: the money at the table's stakes, with the book's limit and
// how it settles, and an American game's tournament points (American SC-9). Both are the
// server's (engine/scoring/stakes.py and tournament.py, by way of /api/game, the game in play
// as `mjtable export` prints it): the page draws them, it never reckons them.
"use strict";
const extras = {seq: null, game: null, asked: 0};

function signed(v) { return (String(v).startsWith("-") || Number(v) === 0) ? String(v) : "+" + v; }

async function fetchGame(seq) {
  const asked = ++extras.asked;
  const r = await fetch("/api/game", {cache: "no-store"});
  if (!r.ok || asked !== extras.asked) return;  // a newer hand asked meanwhile
  const game = (await r.json()).game;
  const id = ((face.scores || {}).game || {}).id;
  extras.game = game && game.id === id ? game : null;
  extras.seq = seq;
  drawExtras();
}
function panel(id, cls) {
  let box = document.getElementById(id);
  if (!box) {
    box = el("div", "panel " + cls);
    box.id = id;
    // the money first, then the tournament points, both after the points
    const before = document.getElementById("stakes") || document.getElementById("scoreboard");
    (id === "tournament" ? before : document.getElementById("scoreboard")).after(box);
  }
  return box;
}
function drawStakes(game) {
  const s = game.stakes;
  const box = panel("stakes", "stakes");
  if (!s || s.error) { box.remove(); return; }
  const rate = `${s.per_point} ${s.unit} a point`;
  const how = s.settle === "hand" ? "each hand settled as it ends" : "settled once at the game's end";
  const parts = [el("h2", "", `Stakes: ${rate}, ${how}`)];
  const row = el("div", "totals");
  for (const p of game.players) {
    const t = el("div", "total money");
    t.dataset.moneyPlayer = p;
    t.dataset.money = s.totals[p];
    t.append(el("span", "name", p), el("span", "points", `${signed(s.totals[p])} ${s.unit}`));
    row.appendChild(t);
  }
  parts.push(row);
  if (s.final) {
    const f = el("div", "final");
    f.appendChild(el("h3", "", `Final settlement in ${s.unit}`));
    for (const p of game.final.ranking) {
      const d = el("div", "settle", `${p}: ${signed(s.final.settlement[p])} ${s.unit}`);
      d.dataset.moneySettle = p;
      d.dataset.amount = s.final.settlement[p];
      f.appendChild(d);
    }
    parts.push(f);
  }
  const rules = el("ul", "stake-rules");
  const limit = s.limit
    ? `Limit: ${s.limit.points} points a payment (${s.limit.amount} ${s.unit}), ${s.limit.east_points} to or from East (${s.limit.east_amount} ${s.unit})`
    : "No limit";
  [[limit, s.rules.limit], ["Settling", s.rules.settling], ["Chips", s.rules.chips]]
    .forEach(([k, rule]) => { const li = el("li", "", k); li.appendChild(el("span", "rule", rule)); rules.appendChild(li); });
  parts.push(rules);
  if (s.warning) parts.push(el("p", "warning", s.warning));
  const last = s.hands[s.hands.length - 1];
  if (last && last.payments.some(p => p.counters)) {
    // the book's own counters (Harr, Settling the Scores): how the last hand was paid
    parts.push(el("h3", "", `Hand ${last.hand} in counters`));
    const ul = el("ul", "counters");
    for (const p of last.payments) {
      const made = Object.entries(p.counters).sort((a, b) => b[0] - a[0]).map(([v, n]) => `${n} × ${v}`);
      ul.appendChild(el("li", "", `${p.from} pays ${p.to} ${p.points}: ${made.join(", ")}`));
    }
    parts.push(ul);
  }
  box.replaceChildren(...parts);
}
function drawHandMoney(game) {
  // each hand's money under its points, in the hands table the scoreboard drew
  const byHand = new Map(game.hands.map(h => [String(h.hand), h]));
  document.querySelectorAll("#scoreboard .hand-row").forEach(row => {
    const hand = byHand.get(row.dataset.hand);
    if (!hand || !hand.money || row.dataset.moneyShown) return;
    row.dataset.moneyShown = "1";
    const cells = row.querySelectorAll("td.num");
    game.players.forEach((p, i) => {
      if (cells[i]) cells[i].appendChild(el("span", "money", `${signed(hand.money[p])} ${game.stakes.unit}`));
    });
  });
}
function drawTournament(game) {
  const t = game.tournament;
  const box = panel("tournament", "tournament");
  if (!t) { box.remove(); return; }
  const parts = [el("h2", "", "Tournament points")];
  const row = el("div", "totals");
  for (const p of t.standing) {
    const d = el("div", "total");
    d.dataset.tournamentPlayer = p;
    d.dataset.tournament = String(t.totals[p]);
    d.append(el("span", "name", p), el("span", "points", signed(t.totals[p])));
    row.appendChild(d);
  }
  parts.push(row, el("p", "rule", t.rule));
  const scored = new Map(game.hands.map(h => [h.hand, h]));
  const list = el("ol", "tp-hands");
  for (const h of t.hands) {
    const score = (scored.get(h.hand) || {}).score || {};
    const line = score.line ? `, card line ${score.line} for ${score.points} (${score.by})` : "";
    const li = el("li", "tp-hand", `Hand ${h.hand}${score.winner ? ": " + score.winner + line : ": wall game"}`);
    li.dataset.hand = h.hand;
    const why = el("ul", "items");
    for (const [p, got] of Object.entries(h.points)) {
      if (!got.points && !got.why.length) continue;
      why.appendChild(el("li", "", `${p} ${signed(got.points)}: ${got.why.join("; ")}`));
    }
    li.appendChild(why);
    list.appendChild(li);
  }
  parts.push(list);
  box.replaceChildren(...parts);
}
function drawExtras() {
  const game = extras.game;
  if (!game) { ["stakes", "tournament"].forEach(id => { const b = document.getElementById(id); if (b) b.remove(); }); return; }
  drawStakes(game);
  drawTournament(game);
  if (game.stakes && !game.stakes.error) drawHandMoney(game);
}
function renderScoreExtras(v) {
  if (v !== "/score") return;
  const sc = face.scores || {};
  if (!sc.game) return;
  // asked again only when the game has a new hand or ends, not with each hand's start
  const seq = `${sc.game.id}:${sc.game.hands.length}:${!!sc.game.final}`;
  if (seq !== extras.seq) { extras.seq = seq; fetchGame(seq); return; }
  const game = extras.game;  // the scoreboard may have redrawn its rows
  if (game && game.stakes && !game.stakes.error) drawHandMoney(game);
}
(window.faceParts = window.faceParts || []).push(renderScoreExtras);
