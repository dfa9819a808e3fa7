// The referee's console, its own parts: a false Mah-jongg's penalty asked before it is
// booked, and the hand's moves, one amended by picking it. Every action is a command sent
// to /api/cmd/<verb>, the path cmd/<verb> on MQTT takes (one path, one validation).
// Loaded before face.js, whose helpers (el, tileEl, command, openPicker, face) it uses.
"use strict";
const consoleParts = {moves: null, listedAt: null, hand: null};

// -- a false Mah-jongg: the scorer's explanation, then confirm or dismiss ---------------------
function meldsEl(sets) {
  const box = el("div", "tiles");
  for (const set of sets || []) {
    const m = el("span", "meld");
    (Array.isArray(set) ? set : [set]).forEach(t => m.appendChild(tileEl(t)));
    box.appendChild(m);
  }
  return box;
}
function penaltyQuestion(p) {
  const li = el("li", "question penalty");
  li.dataset.pending = p.id;
  li.appendChild(el("p", "ask", `#${p.id}: ${p.seat} (${p.player}) declared Mah-jongg in hand ` +
    `${p.hand}, which the rules do not accept. Book the false Mah-jongg's penalty?`));
  li.appendChild(el("p", "why", p.reason));
  if (p.rule) li.appendChild(el("span", "rule", p.rule));
  li.appendChild(el("p", "k", "The closest arrangement of the hand:"));
  li.appendChild(meldsEl(p.closest));
  if ((p.unarranged || []).length) {
    const loose = el("p", "k", "Do not arrange: ");
    loose.appendChild(meldsEl([p.unarranged]));
    li.appendChild(loose);
  }
  if (p.lacks && p.lacks !== p.reason) li.appendChild(el("p", "lacks", "It lacks " + p.lacks));
  const fixes = (p.would_complete || []).map(w => `${w.needed} in place of ${w.held}`);
  if (fixes.length) li.appendChild(el("p", "would", "It would be complete with " + fixes.join(", or ")
    + ": if the camera or the scorer misread a tile, dismiss and correct the hand."));
  const pay = Object.entries(p.penalty || {}).map(([who, v]) => `${who} ${v > 0 ? "+" : ""}${v}`);
  li.appendChild(el("p", "penalty-amounts", "Penalty if confirmed: " + pay.join(", ")));
  const ok = el("button", "confirm", "Confirm: book the penalty"); ok.type = "button";
  ok.onclick = () => command("confirm", {pending: p.id});
  const no = el("button", "dismiss", "Dismiss: no penalty"); no.type = "button";
  no.onclick = () => command("dismiss", {pending: p.id});
  li.append(ok, no);
  return li;
}

// -- the hand's moves: listed by the table (cmd/moves), one picked and amended ----------------
function moveLabel(m) {
  const c = m.command || {};
  const tiles = c.tile ? [c.tile] : (c.tiles || []);
  return `${m.at}: ${m.seat || ""} ${String(m.type || "").replace(/^american\//, "")} ${tiles.join(" ")}`;
}
async function listMoves() {
  const r = await fetch("/api/cmd/moves", {method: "POST", headers: {"Content-Type": "application/json"},
                                           body: "{}"});
  const out = await r.json();
  if (!out.ok) { $("answer").textContent = `moves refused: ${out.error}`; return; }
  consoleParts.moves = out.moves; consoleParts.listedAt = out.seq; consoleParts.hand = out.hand;
  drawMoves();
}
function amendMove(m, replacement) {
  return command("correct", {at: m.at, command: replacement, was: m.command,
                             reason: "amended by the referee at the console"}).then(listMoves);
}
function drawMoves() {
  const list = $("moves");
  list.replaceChildren();
  for (const m of (consoleParts.moves || []).slice().reverse()) {
    const li = el("li", "move", moveLabel(m));
    li.dataset.at = m.at;
    li.dataset.type = m.type;
    const c = m.command || {};
    if (c.tile !== undefined || c.tiles !== undefined) {
      const fix = el("button", "amend", "Amend…"); fix.type = "button";
      fix.onclick = () => {
        openPicker(`move ${moveLabel(m)}`, tiles => amendMove(m,
          c.tile !== undefined ? {...c, tile: tiles[0]} : {...c, tiles}));
        $("picker").scrollIntoView({block: "start"});  // the list is far below the picker
      };
      li.appendChild(fix);
    }
    const strike = el("button", "strike", "Strike out"); strike.type = "button";
    strike.onclick = () => amendMove(m, null);
    li.appendChild(strike);
    list.appendChild(li);
  }
  if (!list.children.length) list.appendChild(el("li", "none", "no move yet this hand"));
  renderMoveList();
}
// Called on every render: the list is the table's answer at one moment; say when the hand
// has moved on since (listing again is the referee's choice, not a command per event).
function renderMoveList() {
  const note = $("moves-note");
  const seq = (face.state || {}).seq;
  if (consoleParts.moves === null) note.textContent = "List the moves to amend one.";
  else note.textContent = seq !== consoleParts.listedAt ? "The hand has moved on since this list." : "";
}
function wireMoves() { $("list-moves").onclick = listMoves; }
