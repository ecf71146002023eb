// The explorer's parts beyond paper 000 (issue 39): each part is a section the page builds from
// its module function's JSON (explorer/src/parts.hpp): one snapshot a step, animated with Step /
// Play / Reset. Each part registers itself in PARTS with its selftest (the ?selftest run checks
// every step of a preset for the family's invariants; tests/compare.js compares the presets with
// `alloclab trace` or with hand-worked values).
"use strict";
const PARTS = {};
const esc = s => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

// A section with controls (html), Step / Play / Reset, a line saying where the animation is,
// and a drawing area. load() returns the run's JSON (re-run on every control change); draw(run, i)
// draws snapshot i.
function makePart(name, title, intro, controlsHtml, load, draw) {
  const root = document.createElement("section");
  root.id = `part-${name}`;
  root.innerHTML = `<h2>${title}</h2><p class="note">${intro}</p><div class="controls">${controlsHtml}</div>
    <div><button id="${name}-step">Step</button> <button id="${name}-play">Play</button>
    <button id="${name}-reset">Reset</button> <span id="${name}-info"></span></div>
    <div id="${name}-view"></div>`;
  document.getElementById("parts").appendChild(root);
  const part = { name, run: null, shown: 0, timer: null };
  part.stop = () => { if (part.timer) { clearInterval(part.timer); part.timer = null; } };
  part.show = i => {
    part.shown = i;
    const info = document.getElementById(`${name}-info`);
    if (!part.run || part.run.error) {
      info.textContent = part.run ? `error: ${part.run.error}` : "";
      document.getElementById(`${name}-view`).innerHTML = "";
      return;
    }
    info.textContent = `step ${i} of ${part.run.steps.length - 1}: ${part.run.steps[i].what}`;
    document.getElementById(`${name}-view`).innerHTML = draw(part.run, i);
  };
  part.reload = () => { part.stop(); part.run = load(); part.show(0); };
  part.step = () => {
    if (part.run && !part.run.error && part.shown < part.run.steps.length - 1) part.show(part.shown + 1);
    else part.stop();
  };
  document.getElementById(`${name}-step`).onclick = part.step;
  document.getElementById(`${name}-play`).onclick = () => { if (!part.timer) part.timer = setInterval(part.step, 500); };
  document.getElementById(`${name}-reset`).onclick = () => { part.stop(); part.show(0); };
  // Controls marked data-own are the part's own business (it reloads when it has read them).
  root.querySelectorAll("input:not([data-own]), select:not([data-own])").forEach(el => {
    el.addEventListener("change", part.reload);
    if (el.type === "range") el.addEventListener("input", part.reload);
  });
  PARTS[name] = part;
  return part;
}
const val = id => document.getElementById(id).value;
const num = id => Number(document.getElementById(id).value);
const setVal = (id, v) => { document.getElementById(id).value = v; };
const slider = (id, label, min, max, v, own) =>
  `<label for="${id}">${label}</label> <input type="range" id="${id}" min="${min}" max="${max}" value="${v}"${own ? " data-own" : ""}
   oninput="document.getElementById('${id}-v').textContent=this.value"> <span id="${id}-v">${v}</span> `;
const syncSlider = id => { document.getElementById(`${id}-v`).textContent = val(id); };
const table = (head, rows) => `<table><tr>${head.map(h => `<th>${h}</th>`).join("")}</tr>${
  rows.map(r => `<tr>${r.map(c => `<td>${c}</td>`).join("")}</tr>`).join("")}</table>`;
const cellBox = (cls, text, title) =>
  `<span class="cell ${cls}" title="${esc(title || "")}">${text === undefined ? "" : text}</span>`;
// Bits of a 64-bit word given as 16 hex digits: bit i of the word at index i.
function wordBits(hex) {
  const v = BigInt("0x" + hex), out = [];
  for (let i = 0n; i < 64n; ++i) out.push(Number((v >> i) & 1n));
  return out;
}
