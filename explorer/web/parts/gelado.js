// Gelado & Garland (PPoPP'19): the bulk semaphore's Fig. 1 and free play against the counting
// semaphore, and TBuddy's splits and merges. Every step is the core's step machines in
// WebAssembly (semaphoreRun, tbuddyRun).
"use strict";
const GG_PRESETS = {
  // Fig. 1(a), §3.2's prose: T0 grows (S = -1), T1-T7 block; T0's batch arrives (signal(4),
  // S = 3); T1-T3 take; T4 grows after T0; its batch arrives; T5-T7 take.
  fig1a: { kind: "counting", threads: 8, n: 1, batch: 4,
           script: "t0,t0,t1,t2,t3,t4,t5,t6,t7,d0,t1,t1,t2,t2,t3,t3,t4,t4,t5,t6,t7,d4,t5,t5,t6,t6,t7,t7" },
  // Fig. 1(b), §3.3's prose: T0 grows (E = 3), T1-T3 reserve (R = 3), T4 grows while T0 still
  // grows (E = 6), T5-T7 reserve (R = 6), the batches arrive and all take.
  fig1b: { kind: "bulk", threads: 8, n: 1, batch: 4,
           script: "t0,t0,t1,t1,t1,t2,t2,t2,t3,t3,t3,t4,t4,t5,t5,t5,t6,t6,t6,t7,t7,t7,d0,t1,t1,t1,t2,t2,t2,t3,t3,t3,t5,d4,t5,t5,t5,t6,t6,t6,t7,t7,t7" },
};
let ggScript = GG_PRESETS.fig1b.script;

function semState(run, i) { return run.steps[i]; }
function semDraw(run, i) {
  const s = semState(run, i), bulk = run.kind === "bulk";
  const T = run.threads, n = run.n, B = run.batch;
  const colour = { ready: "free", read: "earlier", cas: "earlier", spin: "wait", release: "wait", blocked: "wait",
                   took: "taken", growing: "grow", grown: "taken", failed: "used" };
  let h = bulk
    ? `<p><b>C = ${s.C}</b> (units free) &nbsp; <b>E = ${s.E}</b> (promised by growers) &nbsp; <b>R = ${s.R}</b> (reserved)
       &nbsp; C + E - R = ${s.C + s.E - s.R}: below N = ${n} the next waiter grows.</p>`
    : `<p><b>S = ${s.S}</b>${s.S < 0 ? " (a grower at work: every other waiter blocks)" : ""}</p>`;
  h += `<div>${s.threads.map((t, k) => cellBox(colour[t.state] || "free", "T" + k,
        `T${k}: ${t.state}${t.holds ? ", holds " + n : ""}, ${t.memory_ops} memory operations`)).join("")}</div>`;
  h += `<p class="note">${s.threads.map((t, k) => `T${k} ${t.state}${t.holds ? " (holds)" : ""}`).join(" · ")}</p>`;
  const growers = s.threads.filter(t => ["growing", "grown"].includes(t.state)).length + s.failed;
  const ops = s.threads.reduce((a, t) => a + t.memory_ops, 0);
  h += table(["the model", "value"], [
    ["growers so far", growers],
    ["bulk: ceil(T N / B) growers (no growth fails)", Math.ceil(T * n / B)],
    ["batches delivered, failed", `${s.delivered}, ${s.failed}`],
    ["memory operations of all waits so far", ops]]);
  return h;
}
function semLoad() {
  const preset = val("gg-preset");
  if (preset !== "free") {
    const p = GG_PRESETS[preset];
    setVal("gg-kind", p.kind); setVal("gg-threads", p.threads); setVal("gg-n", p.n); setVal("gg-batch", p.batch);
    ["gg-threads", "gg-n", "gg-batch"].forEach(syncSlider);
    ggScript = p.script;
  }
  document.getElementById("gg-script").value = ggScript;
  return JSON.parse(M.semaphoreRun(val("gg-kind"), num("gg-threads"), num("gg-n"), num("gg-batch"), ggScript));
}
// Free play: one more action, or a round (every unfinished thread one step, every grower's batch
// delivered), appended to the script; the view jumps to the end.
function semAppend(tokens) {
  setVal("gg-preset", "free");
  ggScript = ggScript ? ggScript + "," + tokens.join(",") : tokens.join(",");
  const part = PARTS.semaphore;
  part.stop(); part.run = semLoad(); part.show(part.run.error ? 0 : part.run.steps.length - 1);
}
function semRound() {
  const run = PARTS.semaphore.run;
  if (!run || run.error) return;
  const last = run.steps[run.steps.length - 1], tokens = [];
  last.threads.forEach((t, k) => {
    if (t.state === "growing") tokens.push("d" + k);
    else if (!["took", "grown", "failed"].includes(t.state)) tokens.push("t" + k);
  });
  if (tokens.length) semAppend(tokens);
}

// The invariants after every step: C, E, R >= 0; units conserved (B x batches delivered = N x
// (takers + growers served) - N x those who gave back + C); E = (B - N) x growers at work;
// R = N x reservers waiting. The counting semaphore: S = -1 exactly while one grower works (one
// at a time), and the same conservation otherwise.
function semInvariants(run) {
  const bad = [], n = run.n, B = run.batch;
  run.steps.forEach((s, i) => {
    const cnt = f => s.threads.filter(f).length;
    const served = cnt(t => t.state === "took" || t.state === "grown"), back = cnt(t => t.gave_back);
    const growing = cnt(t => t.state === "growing");
    if (run.kind === "bulk") {
      if (s.C < 0 || s.E < 0 || s.R < 0) bad.push(`step ${i}: a negative counter`);
      if (s.C !== B * s.delivered - n * served + n * back) bad.push(`step ${i}: C = ${s.C} breaks conservation`);
      if (s.E !== (B - n) * growing) bad.push(`step ${i}: E = ${s.E}, ${growing} growers at work`);
      const reserving = cnt(t => t.state === "spin" || t.state === "release");
      if (s.R !== n * reserving) bad.push(`step ${i}: R = ${s.R}, ${reserving} reservers`);
    } else {
      if (growing > 1) bad.push(`step ${i}: ${growing} growers at once`);
      if (growing === 1 && s.S !== -1) bad.push(`step ${i}: S = ${s.S} while a grower works`);
      if (growing === 0 && s.S !== B * s.delivered - n * served + n * back)
        bad.push(`step ${i}: S = ${s.S} breaks conservation`);
    }
  });
  return bad;
}

// TBuddy: the tree after each operation (A Available, B Busy, P Partial), the semaphore per order.
function tbDraw(run, i) {
  const levels = run.steps[i].levels;
  const step = i === 0 ? null : run.steps[i];
  const H = run.height, width = 2 ** H * 26;
  let h = `<div style="width:${width}px">`;
  levels.forEach((row, d) => {
    const w = width / row.length;
    h += `<div style="display:flex">` + [...row].map((c, k) => {
      const node = 2 ** d + k;
      const mine = step && step.node === node;
      return `<span class="tb ${c}${mine ? " mine" : ""}" style="width:${w - 2}px" title="node ${node}, order ${H - d}">${c}</span>`;
    }).join("") + `</div>`;
  });
  h += `</div>`;
  const sems = step ? step.sem_counts : tbSems(levels, H);
  h += table(["order k (2^k pages)"].concat(sems.map((_, k) => k)), [["sem[k]: Available blocks"].concat(sems)]);
  if (step) h += `<p>${esc(step.what)}: ${step.node < 0 ? "out of memory" : `pages ${step.first_page}..${step.first_page + step.pages - 1}`}, ${step.splits} splits, ${step.merges} merges</p>`;
  return h;
}
function tbSems(levels, H) {
  const c = new Array(H + 1).fill(0);
  levels.forEach((row, d) => { for (const ch of row) if (ch === "A") ++c[H - d]; });
  return c;
}
function tbLoad() {
  const r = JSON.parse(M.tbuddyRun(num("tb-height"), val("tb-requests")));
  if (!r.error) r.steps = [{ what: "before: one free block", levels: r.levels_before }].concat(r.steps);
  return r;
}
// Invariants after every operation: the held blocks never overlap and lie in the pool; the free
// (Available) blocks and the held ones tile the pool (conservation of pages); sem[k] equals the
// Available nodes of order k; no Available node below an Available one, no two Available buddies.
function tbInvariants(run) {
  const bad = [], H = run.height, total = 2 ** H, held = new Map();
  run.steps.forEach((s, i) => {
    if (i === 0) return;
    if (s.what.startsWith("alloc") && s.node >= 0) held.set(s.node, [s.first_page, s.pages]);
    if (s.what.startsWith("free")) held.delete(s.node);
    const owner = new Array(total).fill(0);
    for (const [f, p] of held.values()) for (let q = f; q < f + p; ++q) { if (q >= total) bad.push(`step ${i}: page ${q} outside the pool`); owner[q]++; }
    s.levels.forEach((row, d) => [...row].forEach((c, k) => {
      if (c !== "A") return;
      const size = 2 ** (H - d);
      for (let q = k * size; q < (k + 1) * size; ++q) owner[q]++;
      if (k % 2 === 0 && row[k + 1] === "A" && d > 0) bad.push(`step ${i}: Available buddies at depth ${d}`);
      for (let dd = d + 1; dd <= H; ++dd) for (let kk = k * 2 ** (dd - d); kk < (k + 1) * 2 ** (dd - d); ++kk)
        if (s.levels[dd][kk] === "A") bad.push(`step ${i}: Available below Available`);
    }));
    if (owner.some(o => o !== 1)) bad.push(`step ${i}: the held and free blocks do not tile the pool (${owner.join("")})`);
    if (JSON.stringify(tbSems(s.levels, H)) !== JSON.stringify(s.sem_counts)) bad.push(`step ${i}: semaphores ${s.sem_counts} against the tree`);
  });
  return bad;
}

function ggSetup() {
  makePart("semaphore", "Gelado &amp; Garland: the bulk semaphore (Fig. 1)",
    `Gelado &amp; Garland, "Throughput-oriented GPU memory allocation", PPoPP'19 (doi:10.1145/3293883.3295727),
     §3.2-3.3: T threads wait for N units each from an empty semaphore that grows by batches of B.
     The bulk semaphore's word holds C (free), E (expected: promised by growers) and R (reserved);
     the counting semaphore's one value S is -1 while its one grower works. The presets follow the
     paper's prose of Fig. 1(a) and 1(b); "free play" appends your own steps. Grey: reading or CAS,
     orange: waiting, purple: growing, green: holds its units.`,
    `<label for="gg-preset">preset</label> <select id="gg-preset"><option value="fig1a">Fig. 1(a): counting semaphore</option>
     <option value="fig1b" selected>Fig. 1(b): bulk semaphore</option><option value="free">free play</option></select>
     <label for="gg-kind">semaphore</label> <select id="gg-kind" data-own><option value="bulk">bulk</option><option value="counting">counting</option></select><br>
     ${slider("gg-threads", "T threads", 1, 16, 8, true)}${slider("gg-n", "N units a wait", 1, 4, 1, true)}${slider("gg-batch", "B batch", 1, 16, 4, true)}<br>
     <label for="gg-script">script</label> <input id="gg-script" data-own size="90" title="tN: a step of thread N; dN: grower N's batch arrives; xN: it fails; gN: holder N frees">
     <button id="gg-round">a round (every thread a step)</button> <button id="gg-clear">clear</button>`,
    semLoad, semDraw);
  document.getElementById("gg-round").onclick = semRound;
  document.getElementById("gg-clear").onclick = () => { ggScript = ""; semAppend([]); };
  document.getElementById("gg-script").addEventListener("change", () => { ggScript = val("gg-script"); semAppend([]); });
  // A parameter changed: free play from an empty semaphore with the new parameters.
  ["gg-kind", "gg-threads", "gg-n", "gg-batch"].forEach(id => document.getElementById(id).addEventListener("change",
    () => { setVal("gg-preset", "free"); ggScript = ""; PARTS.semaphore.reload(); }));
  makePart("tbuddy", "Gelado &amp; Garland: TBuddy's tree",
    `TBuddy (§4.1): a buddy tree whose every order has a bulk semaphore of its Available blocks. The
     requests (pages each) are allocated in order, then freed in reverse: the same run as
     <code>alloclab trace --allocator gg-tbuddy</code>. A Available (free), P Partial (a free block
     below), B Busy; the outlined node is the block the operation took or freed.`,
    `${slider("tb-height", "pool: 2^h pages, h", 1, 6, 4)} <label for="tb-requests">requests</label> <input id="tb-requests" value="1,2,1,4" size="30">`,
    tbLoad, tbDraw);
}
