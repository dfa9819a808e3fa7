// The American Charleston drawn on the table view (American CH-2..CH-5): the passes right,
// across and left, the optional second Charleston and the courtesy pass, as they happen. It
// is drawn from the hand's public events only (the `events` topic the page is fed): who has
// passed, in which direction and how many blind; never a tile, which no viewer receives.
"use strict";
const CHARLESTON_EVENTS = ["CharlestonPassOffered", "CharlestonPassed", "CharlestonVote",
  "SecondCharlestonStarted", "SecondCharlestonStopped", "CourtesyOffered", "CourtesyAgreed",
  "CourtesyPassOffered", "CourtesyPassed"];
const PASS_TO = {right: 1, across: 2, left: 3};  // seats on from the passer, E S W N
const ARROW = {right: "→", across: "↔", left: "←"};
const FIRST = ["right", "across", "left"];  // CH-2
const SECOND = ["left", "across", "right"];  // CH-4
const SPOT = {E: [100, 178], S: [178, 100], W: [100, 22], N: [22, 100]};  // as the table view

// -- the fold: the hand's Charleston from its public events ------------------------------------
function charlestonOf(log) {
  const ch = {steps: [], passing: null, votes: {}, second: null, stoppedBy: null,
              offers: {}, agreed: null, courtesy: {}, courtesyDone: false, any: false};
  const passed = [];
  for (const item of log) {
    if (item.topic !== "events" || !CHARLESTON_EVENTS.includes(item.body.type)) continue;
    const b = item.body, pub = b.public || {};
    ch.any = true;
    if (b.type === "CharlestonPassOffered") {
      ch.passing = ch.passing || {direction: pub.stage, seats: {}};
      ch.passing.seats[b.seat] = pub.blind || 0;
    } else if (b.type === "CharlestonPassed") {
      passed.push({direction: pub.direction, blind: pub.blind || {}});
      ch.passing = null;
    } else if (b.type === "CharlestonVote") ch.votes[b.seat] = pub.stop;
    else if (b.type === "SecondCharlestonStarted") ch.second = true;
    else if (b.type === "SecondCharlestonStopped") { ch.second = false; ch.stoppedBy = b.seat; }
    else if (b.type === "CourtesyOffered") ch.offers[b.seat] = pub.count;
    else if (b.type === "CourtesyAgreed") ch.agreed = pub;
    else if (b.type === "CourtesyPassOffered") ch.courtesy[b.seat] = pub.count;
    else if (b.type === "CourtesyPassed") ch.courtesyDone = true;
  }
  // the courtesy pass begun with no vote: this table plays no second Charleston
  if (ch.second === null && (Object.keys(ch.offers).length || ch.agreed)) ch.second = false;
  const plan = [...FIRST.map(d => ["first", d]), ...SECOND.map(d => ["second", d])];
  plan.forEach(([round, direction], i) => {
    const done = passed[i];
    let state = done ? "done" : (ch.passing && i === passed.length ? "now" : "due");
    if (round === "second" && ch.second === false) state = "skipped";
    ch.steps.push({round, direction, state, blind: done ? done.blind : (state === "now" ? ch.passing.seats : {})});
  });
  return ch;
}

// -- the drawing ------------------------------------------------------------------------------
const SVG_NS = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}
function passArrows(step) {
  // one arrow from each passer to the seat it passes to; a dashed one while it is owed
  const svg = svgEl("svg", {viewBox: "0 0 200 200", class: "ch-arrows", role: "img",
    "aria-label": step ? `pass ${step.direction}` : "no pass"});
  const defs = svgEl("defs", {});
  const marker = svgEl("marker", {id: "ch-head", viewBox: "0 0 10 10", refX: 9, refY: 5,
    markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse"});
  marker.appendChild(svgEl("path", {d: "M0,0 L10,5 L0,10 z", fill: "currentColor"}));
  defs.appendChild(marker);
  svg.appendChild(defs);
  for (const seat of SEATS) {
    const [x, y] = SPOT[seat];
    svg.appendChild(svgEl("circle", {cx: x, cy: y, r: 17, class: "ch-seat"}));
    svg.appendChild(svgEl("text", {x, y: y + 6, "text-anchor": "middle", class: "ch-wind"}, seat));
  }
  if (!step) return svg;
  for (const seat of SEATS) {
    const to = SEATS[(SEATS.indexOf(seat) + PASS_TO[step.direction]) % 4];
    const [x1, y1] = SPOT[seat], [x2, y2] = SPOT[to];
    const bend = step.direction === "across" ? 0 : 0.25;
    const mx = (x1 + x2) / 2 + (y2 - y1) * bend, my = (y1 + y2) / 2 - (x2 - x1) * bend;
    const shrink = (ax, ay, bx, by) => { const d = Math.hypot(bx - ax, by - ay); return [ax + (bx - ax) * 22 / d, ay + (by - ay) * 22 / d]; };
    const [sx, sy] = shrink(x1, y1, mx, my), [ex, ey] = shrink(x2, y2, mx, my);
    const passedIt = step.state === "done" || seat in step.blind;
    const offset = step.direction === "across" ? (seat === "E" || seat === "S" ? 6 : -6) : 0;
    svg.appendChild(svgEl("path", {
      d: `M${sx + offset},${sy + offset} Q${mx + offset},${my + offset} ${ex + offset},${ey + offset}`,
      class: "ch-arrow" + (passedIt ? " passed" : " owed"), "marker-end": "url(#ch-head)",
      "data-from": seat, "data-to": to}));
  }
  return svg;
}
function stepItem(step) {
  const li = el("li", "ch-step " + step.state);
  li.dataset.step = `${step.round}-${step.direction}`;
  li.dataset.state = step.state;
  const blind = Object.entries(step.blind || {}).filter(([, n]) => n > 0)
    .map(([s, n]) => `${who(s)} ${n} blind`);
  const passers = step.state === "now" ? ` (passed: ${Object.keys(step.blind).map(who).join(", ") || "none yet"})` : "";
  const mark = {done: "✓", now: "…", due: "", skipped: "—"}[step.state];
  li.textContent = `${ARROW[step.direction]} three ${step.direction} ${mark}${passers}`;
  if (blind.length) li.appendChild(el("span", "rule", blind.join(", ") + " (CH-3)"));
  return li;
}
function courtesyItem(ch) {
  const li = el("li", "ch-step courtesy");
  li.dataset.step = "courtesy";
  if (ch.agreed) {
    const pairs = [["E", "W"], ["S", "N"]].map(([a, b]) => `${who(a)} ↔ ${who(b)}: ${ch.agreed[a] ?? 0}`);
    li.dataset.state = ch.courtesyDone ? "done" : (Object.values(ch.agreed).some(n => n) ? "now" : "done");
    li.textContent = `↔ courtesy pass across, ${pairs.join("; ")} ${li.dataset.state === "done" ? "✓" : "…"}`;
  } else {
    const said = Object.keys(ch.offers);
    li.dataset.state = said.length ? "now" : "due";
    li.textContent = "↔ courtesy pass across, 0 to 3 tiles" + (said.length ? ` (said: ${said.map(who).join(", ")})` : "");
  }
  li.appendChild(el("span", "rule", "the player who wants fewer sets the number (CH-5)"));
  return li;
}
function secondHeading(ch) {
  if (ch.second === true) return "Second Charleston (all agreed, CH-4)";
  if (ch.second === false && ch.stoppedBy) return `Second Charleston stopped by ${who(ch.stoppedBy)} (CH-4)`;
  if (ch.second === false) return "Second Charleston not played (CH-4: optional)";
  const voted = Object.keys(ch.votes);
  return "Second Charleston: optional, any player may stop it (CH-4)" +
    (voted.length ? ` · answered: ${voted.map(who).join(", ")}` : "");
}
function renderCharleston(v) {
  if (v !== "/" && v !== "/console") return;
  const side = document.querySelector("#table-view .side");
  if (!side) return;
  let box = document.getElementById("charleston");
  const ch = charlestonOf(face.log);
  if (!ch.any) { if (box) box.remove(); return; }
  if (!box) { box = el("div", "charleston"); box.id = "charleston"; side.prepend(box); }
  const now = ch.steps.find(s => s.state === "now") || [...ch.steps].reverse().find(s => s.state === "done");
  box.dataset.direction = now ? now.direction : "";
  // once play has begun the passes are history: the list stays, the drawing folds away
  box.classList.toggle("over", face.log.some(i => i.topic === "events" && i.body.type === "Discarded"));
  const lists = [["First Charleston (CH-2)", ch.steps.slice(0, 3)], [secondHeading(ch), ch.steps.slice(3)]];
  const parts = [el("h2", "", "The Charleston"), passArrows(now)];
  for (const [title, steps] of lists) {
    parts.push(el("h3", "", title));
    const ol = el("ol", "ch-steps");
    steps.forEach(s => ol.appendChild(stepItem(s)));
    parts.push(ol);
  }
  parts.push(el("h3", "", "Courtesy pass (CH-5)"));
  const courtesy = el("ol", "ch-steps");
  courtesy.appendChild(courtesyItem(ch));
  parts.push(courtesy);
  box.replaceChildren(...parts);
}
(window.faceParts = window.faceParts || []).push(renderCharleston);
