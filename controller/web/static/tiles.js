// Tiles drawn as tiles: a large face and a small Latin label, so that no suit is told by
// its colour alone (Okabe-Ito colours, safe for colour-blind players).
"use strict";
const SUITS = {B: ["竹", "bam"], C: ["萬", "crak"], D: ["●", "dot"]};
const HONOURS = {
  EW: ["東", "E wind"], SW: ["南", "S wind"], WW: ["西", "W wind"], NW: ["北", "N wind"],
  RD: ["中", "red"], GD: ["發", "green"], WD: ["白", "white"], J: ["J", "joker"], F: ["✿", "flower"],
};
function tileFace(token) {
  token = String(token || "").toUpperCase();
  if (HONOURS[token]) return {glyph: HONOURS[token][0], label: HONOURS[token][1], kind: token};
  const m = /^([1-9])([BCD])$/.exec(token);
  if (m) return {glyph: m[1], sub: SUITS[m[2]][0], label: m[1] + " " + SUITS[m[2]][1], kind: m[2]};
  const b = /^([FS])([1-4])$/.exec(token);
  if (b) return {glyph: b[1] === "F" ? "✿" : "☀", sub: b[2],
                 label: (b[1] === "F" ? "flower " : "season ") + b[2], kind: "bonus"};
  return {glyph: "?", label: token || "?", kind: "unknown"};
}
function tileEl(token, extra) {
  const face = tileFace(token);
  const el = document.createElement("span");
  el.className = "tile t-" + face.kind + (extra ? " " + extra : "");
  el.dataset.tile = String(token).toUpperCase();
  el.title = face.label;
  const g = document.createElement("span");
  g.className = "glyph";
  g.textContent = face.glyph;
  el.appendChild(g);
  if (face.sub) {
    const s = document.createElement("span");
    s.className = "sub";
    s.textContent = face.sub;
    el.appendChild(s);
  }
  const l = document.createElement("span");
  l.className = "label";
  l.textContent = face.label;
  el.appendChild(l);
  return el;
}
const ALL_TILES = [].concat(
  ...["B", "C", "D"].map(s => [1, 2, 3, 4, 5, 6, 7, 8, 9].map(n => n + s)),
  ["EW", "SW", "WW", "NW", "RD", "GD", "WD", "F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4"]);
