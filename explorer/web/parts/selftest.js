// ?selftest for the parts: each part's presets set through its controls, every step of each drawn
// (the animation the user sees) and checked for the family's invariants; the runs go into the
// self-test's JSON, which tests/compare.js compares with `alloclab trace` or hand-worked values.
"use strict";
function partsSelftest() {
  const out = {};
  // Every step drawn (a drawing that throws fails the page), every step checked.
  const walk = (name, check) => {
    const part = PARTS[name];
    part.reload();
    if (!part.run || part.run.error) return { error: part.run ? part.run.error : "no run", bad: ["no run"], steps: 0 };
    for (let i = 0; i < part.run.steps.length; ++i) part.show(i);
    return { run: part.run, bad: check(part.run), steps: part.run.steps.length };
  };
  const set = (id, v) => { const el = document.getElementById(id); if (el.type === "checkbox") el.checked = v; else el.value = v; };

  out.semaphore = {};
  for (const preset of ["fig1a", "fig1b"]) {
    set("gg-preset", preset);
    out.semaphore[preset] = walk("semaphore", semInvariants);
  }
  // Free play: rounds until every wait ends, bulk and counting, N = 2, B = 5, 7 threads.
  for (const kind of ["bulk", "counting"]) {
    set("gg-preset", "free"); set("gg-kind", kind); set("gg-threads", 7); set("gg-n", 2); set("gg-batch", 5);
    ggScript = "";
    PARTS.semaphore.reload();
    for (let r = 0; r < 20; ++r) semRound();
    out.semaphore["free_" + kind] = walk("semaphore", semInvariants);
  }
  set("gg-preset", "fig1b");

  set("tb-height", 4); set("tb-requests", "1,2,1,4");
  out.tbuddy = walk("tbuddy", tbInvariants);
  set("tb-height", 3); set("tb-requests", "1,1,1,1,1,1,1,1,2");
  out.tbuddy_full = walk("tbuddy", tbInvariants);
  set("tb-height", 4); set("tb-requests", "1,2,1,4");

  set("ua-height", 7); set("ua-requests", "8,8,100,1000,-0,8,1024,1024,1024,1024,-7");
  out.ualloc = walk("ualloc", uaInvariants);

  set("ou-slots", 4); set("ou-ops", "e,e,e,d,d,e,e,e,d,d,d,e"); set("ou-printed", false);
  out.queue = walk("queue", ouInvariants);
  set("ou-ops", "e,e,e,e,e,d"); set("ou-printed", true);
  out.queue_printed = walk("queue", ouInvariants);
  set("ou-ops", "e,e,e,d,d,e,e,e,d,d,d,e"); set("ou-printed", false);
  out.walk = JSON.parse(M.ouroWalk(32, 8, 2));
  set("oq-chunks", 3); set("oq-requests", "2048,2048,2048,2048,2048,4096,-0,-1,2048,2048,-2,-3,-4,-5");
  out.ouroqueues = walk("ouroqueues", oqInvariants);

  set("ga-segments", 4); set("ga-requests", "16x4,16x8,100,16x8,-0,4096,-3,-1");
  out.gallatin = walk("gallatin", gaInvariants);
  set("ga-segments", 2); set("ga-requests", "4096x8,4096x8,4096,-0,4096");
  out.gallatin_full = walk("gallatin", gaInvariants);
  set("ga-segments", 4); set("ga-requests", "16x4,16x8,100,16x8,-0,4096,-3,-1");

  set("ds-bits", 4096); set("ds-rotate", true); set("ds-seed", 0); set("ds-ops", "a,a,a,a,f65,a");
  out.dynasoar_rotate = walk("dynasoar", dsInvariants);
  set("ds-rotate", false); set("ds-ops", new Array(64).fill("a").concat(["f5", "a"]).join(","));
  out.dynasoar_ffs = walk("dynasoar", dsInvariants);
  set("ds-bits", 8192); set("ds-rotate", true); set("ds-ops", "a,a,f0,a,a");
  out.dynasoar_3 = walk("dynasoar", dsInvariants);
  set("ds-bits", 4096); set("ds-ops", "a,a,a,a,f65,a");
  for (const co of [true, false]) {
    set("dh-blocks", 4); set("dh-coalesce", co); set("dh-rotate", true); set("dh-warps", "1x8,2x8,1x32,1x32");
    out["heap_" + (co ? "coalesced" : "alone")] = walk("dynasoarheap", dhInvariants);
  }
  set("dh-coalesce", true);
  for (const part of Object.values(PARTS)) part.reload();
  return out;
}
