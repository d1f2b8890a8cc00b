// Browser benchmark (prints figures; asserts nothing): how long one change in « Améliorer » takes
// in the page — the message, the re-measurement of every question and the render, all in the one
// event handler (the page's dispatch is synchronous) — timed around `dispatchEvent` on the page's
// clock, and the main-thread tasks over 50 ms (`longtask`) while a slider is dragged.
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
const opened = await page.evaluate(() => {
  const t = performance.now();
  document.querySelector('#onglet-ameliorer').click();
  return performance.now() - t;
});
await page.waitForSelector('#ameliorer-chiffres');

/** Each value of `values` given to the slider `id` as one `input` event, one per frame (each in
 *  a task of its own, as a drag's events come): ms per change. */
const drag = (id, values) => page.evaluate(async ({ id, values }) => {
  const el = document.getElementById(id);
  const times = [];
  for (const v of values) {
    await new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
    el.value = String(v);
    const t = performance.now();
    el.dispatchEvent(new Event('input', { bubbles: true }));
    times.push(performance.now() - t);
  }
  await new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
  return times;
}, { id, values });
/** One `change` of the control `id` (a checkbox toggled, or a text set). */
const change = (id, text) => page.evaluate(({ id, text }) => {
  const el = document.getElementById(id);
  if (text === undefined) el.checked = !el.checked; else el.value = text;
  const t = performance.now();
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return performance.now() - t;
}, { id, text });

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)}, max ${s[s.length - 1].toFixed(1)} (${s.length} changes)`;
};
await page.evaluate(() => { window.longTasks = []; });
const b = await drag('ameliorer-b', Array.from({ length: 41 }, (_, i) => (i % 21) / 20));
const k1 = await drag('ameliorer-k1', Array.from({ length: 31 }, (_, i) => i / 10));
const long = await page.evaluate(() => window.longTasks);
const stem = [await change('ameliorer-racine'), await change('ameliorer-racine')];
const words = await page.inputValue('#ameliorer-mots-vides');
const stop = [await change('ameliorer-mots-vides', `${words} peut`), await change('ameliorer-mots-vides', words)];
const sweep = await page.evaluate(() => {
  const t = performance.now();
  document.querySelector('button[data-balayer="k1b"]').click();
  return performance.now() - t;
});
console.log(`catalogue: ${n || 200} fiches, 40 questions (${n ? 'synthetic, « Vos données »' : 'the exercise'})`);
console.log(`« Améliorer » opened (mots measured, the view built): ${opened.toFixed(1)} ms`);
console.log(`b dragged: ${stats(b)}`);
console.log(`k1 dragged: ${stats(k1)}`);
console.log(`tasks over 50 ms while dragging: ${long.length}${long.length ? ` (${long.map(([, d]) => d.toFixed(0)).join(', ')} ms)` : ''}`);
console.log(`stemming on, then off (the index rebuilt): ${stem.map((x) => x.toFixed(1)).join(', ')} ms`);
console.log(`a stop word added, then removed (rebuilt): ${stop.map((x) => x.toFixed(1)).join(', ')} ms`);
console.log(`sweep k1 × b (35 settings, one task): ${sweep.toFixed(1)} ms`);
console.log(`console errors: ${errors.length}`);
await browser.close();
await server.close();
