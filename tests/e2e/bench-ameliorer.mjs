// Browser benchmark (prints figures; asserts nothing): how long one change in « Améliorer » takes
// in the page — its event handler (the message, the first step of the re-measurement, the render),
// then until every question is measured (the steps that follow, a turn of the event loop between
// two) — on the page's clock, and the main-thread tasks over 50 ms (`longtask`) of each change.
// 0 stands for the bundled catalogue (200 fiches, 40 questions); a number for a synthetic
// catalogue of that many fiches (`catalogue`, 40 questions) loaded through « Vos données ».
// Run after `trunk build --release` and `cargo build --release --bins`:
//   node tests/e2e/bench-ameliorer.mjs [fiches, default 0]
import { mkdtemp } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch } from './harness.mjs';

const ROOT = new URL('../../', import.meta.url);
const n = Number(process.argv[2] ?? 0);
const server = await serveDist({ dir: process.env.DIST ?? 'dist' });
const browser = await launch();
const context = await browser.newContext();
await context.addInitScript(() => {
  window.longTasks = [];
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.longTasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask' });
  // Resolves once « Améliorer »'s work under way is done (its progress line hidden): the work
  // goes on in steps, a turn of the event loop between two.
  window.ameliorerDone = () => new Promise((ok) => {
    const look = () => (document.getElementById('ameliorer-calcul').hidden
      ? ok(performance.now()) : setTimeout(look, 0));
    look();
  });
});
const page = await context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
await page.goto(server.url);
await page.waitForSelector('body[data-ready="true"]');
if (n > 0) {
  const dir = await mkdtemp(join(tmpdir(), `bench-ameliorer-${n}-`));
  execFileSync(new URL('target/release/catalogue', ROOT).pathname, ['--fiches', String(n), '--questions', '40', '--out', dir]);
  await page.setInputFiles('#fichiers', ['fiches.jsonl', 'questions.csv'].map((f) => join(dir, f)));
  const count = new RegExp(`${n.toLocaleString('en').replace(/,/g, '.?')} fiches`);
  await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('#resume').textContent),
    count.source, { timeout: 300000, polling: 50 });
}
/** The long tasks (over 50 ms) since the last call, as durations in ms. */
const longTasks = () => page.evaluate(() => {
  const l = window.longTasks.map(([, d]) => d);
  window.longTasks = [];
  return l;
});
await page.evaluate(() => { window.longTasks = []; });
const opened = await page.evaluate(async () => {
  const t = performance.now();
  document.querySelector('#onglet-ameliorer').click();
  const first = performance.now() - t;
  const end = await window.ameliorerDone();
  return [first, end - t];
});
await page.waitForSelector('#ameliorer-chiffres');
const openLong = await longTasks();

/** Each value of `values` given to the slider `id` as one `input` event, one per frame (each in
 *  a task of its own, as a drag's events come): ms per event handler, then ms until the last
 *  value is measured. */
const drag = (id, values) => page.evaluate(async ({ id, values }) => {
  const el = document.getElementById(id);
  const times = [];
  let last = 0;
  for (const v of values) {
    await new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
    el.value = String(v);
    last = performance.now();
    el.dispatchEvent(new Event('input', { bubbles: true }));
    times.push(performance.now() - last);
  }
  const end = await window.ameliorerDone();
  return [times, end - last];
}, { id, values });
/** One `change` of the control `id` (a checkbox toggled, or a text set), or a click on the
 *  button `selector`: ms in its event handler, and until its work is done. */
const change = (id, text) => page.evaluate(async ({ id, text }) => {
  const el = document.getElementById(id) ?? document.querySelector(id);
  const t = performance.now();
  if (text === null) el.click();
  else {
    if (text === undefined) el.checked = !el.checked; else el.value = text;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }
  const first = performance.now() - t;
  const end = await window.ameliorerDone();
  return [first, end - t];
}, { id, text });

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)}, max ${s[s.length - 1].toFixed(1)} (${s.length} changes)`;
};
const said = (l) => `${l.length}${l.length ? ` (${l.map((d) => d.toFixed(0)).join(', ')} ms)` : ''}`;
const pair = ([first, all]) => `${first.toFixed(1)} ms in the event, ${all.toFixed(0)} ms until measured`;
const [b, bEnd] = await drag('ameliorer-b', Array.from({ length: 41 }, (_, i) => (i % 21) / 20));
const [k1, k1End] = await drag('ameliorer-k1', Array.from({ length: 31 }, (_, i) => i / 10));
const dragLong = await longTasks();
const stem = [await change('ameliorer-racine'), await change('ameliorer-racine')];
const stemLong = await longTasks();
const words = await page.inputValue('#ameliorer-mots-vides');
const stop = [await change('ameliorer-mots-vides', `${words} peut`), await change('ameliorer-mots-vides', words)];
const stopLong = await longTasks();
const sweep = await change('button[data-balayer="k1b"]', null);
const sweepLong = await longTasks();
console.log(`catalogue: ${n || 200} fiches, 40 questions (${n ? 'synthetic, « Vos données »' : 'the exercise'})`);
console.log(`« Améliorer » opened (mots measured, the view built): ${pair(opened)}; tasks over 50 ms: ${said(openLong)}`);
console.log(`b dragged: ${stats(b)} in the events, the last value measured ${bEnd.toFixed(0)} ms after its event`);
console.log(`k1 dragged: ${stats(k1)} in the events, the last value measured ${k1End.toFixed(0)} ms after its event`);
console.log(`tasks over 50 ms while dragging: ${said(dragLong)}`);
console.log(`stemming on, then off (the index rebuilt): ${stem.map(pair).join('; ')}; tasks over 50 ms: ${said(stemLong)}`);
console.log(`a stop word added, then removed (rebuilt): ${stop.map(pair).join('; ')}; tasks over 50 ms: ${said(stopLong)}`);
console.log(`sweep k1 × b (35 settings): ${pair(sweep)}; tasks over 50 ms: ${said(sweepLong)}`);
console.log(`console errors: ${errors.length}`);
await browser.close();
await server.close();
