// Browser benchmark (prints figures; asserts nothing): how the page's thread holds up while the
// learner loads a large catalogue with its vectors through « Vos données » and the page measures
// it. A `longtask` observer lists every main-thread task over 50 ms; the Event Timing API gives
// each keystroke's input-to-echo time (from the key event to the next paint showing it, in 8 ms
// steps), while a key is typed in the question box every 100 ms throughout. Then « Mesurer » is
// opened (its first render) and reported apart. With `geantes` instead of a number: the hostile
// test's 20 MB catalogue of six giant fiches (no vectors), then the time to its first result.
// With `seules` after the number: the fiches alone (no questions, no vectors), then the time to
// a typed question's first result; with `questions`, the fiches and their questions (measured by
// the keyword methods), no vectors.
// Run after `trunk build --release` and `cargo build --release --bins` (INCOGNITO=1: no profile):
//   node tests/e2e/bench-responsiveness.mjs [fiches, default 50000 | geantes] [seules]
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, launchWithProfile, giantCatalogue, GIANT_QUESTION, asMistralEmbed } from './harness.mjs';

const ROOT = new URL('../../', import.meta.url);
const giant = process.argv[2] === 'geantes';
const n = giant ? 6 : Number(process.argv[2] ?? 50000);
const noVectors = process.argv[3] === 'seules' || process.argv[3] === 'questions';
const withQuestions = process.argv[3] === 'questions';
const dir = await mkdtemp(join(tmpdir(), `bench-resp-${n}-`));
const bin = (name) => new URL(`target/release/${name}`, ROOT).pathname;
if (giant) {
  // The hostile test's catalogue (harness.mjs).
  const { fiches, questions } = giantCatalogue();
  await writeFile(join(dir, 'fiches.jsonl'), fiches);
  await writeFile(join(dir, 'questions.csv'), questions);
} else {
  execFileSync(bin('catalogue'), ['--fiches', String(n), '--questions', '40', '--out', dir]);
}
if (!giant && !noVectors) {
  execFileSync(bin('vecteurs'), ['--embedder', 'fake', '--fiches', join(dir, 'fiches.jsonl'),
    '--questions', join(dir, 'questions.csv'), '--out', join(dir, 'fake.safetensors')], { stdio: 'ignore' });
  // The page takes only mistral-embed's vectors: the header renamed (harness.mjs).
  const { bytes } = asMistralEmbed(await readFile(join(dir, 'fake.safetensors')));
  await writeFile(join(dir, 'v.safetensors'), bytes);
}

const server = await serveDist({ dir: process.env.DIST ?? 'dist' });
// A profile on disk, as a learner's browser has (its origin-private files on disk); with
// INCOGNITO=1 a context without one, as the tests use and an incognito window is.
const incognito = process.env.INCOGNITO === '1';
const browser = incognito ? await launch() : null;
const context = incognito ? await browser.newContext() : await launchWithProfile();
console.log(incognito ? 'browser context: incognito-like (no profile on disk)' : 'browser context: a profile on disk');
await context.addInitScript(() => {
  // The page's module instance, to read the size of its memory at the end (a dedicated worker's
  // modules are instantiated in the worker's own scope, not here).
  window.instances = [];
  for (const name of ['instantiateStreaming', 'instantiate']) {
    const original = WebAssembly[name];
    WebAssembly[name] = async (...args) => {
      const result = await original.apply(WebAssembly, args);
      if (result.instance) window.instances.push(result.instance);
      return result;
    };
  }
  // Dense requests to the page's worker and their replies, timed on the page's clock.
  window.dense = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m, ...rest) {
    const r = m?.request;
    // The page sends a measurement's vectors beside the request, as one Float32Array.
    if (r?.kind === 'Dense') window.dense.push({ ticket: r.ticket, n: m.flat ? m.flat.length / m.dim : r.vectors.length, sent: performance.now() });
    return post.call(this, m, ...rest);
  };
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (e.data?.kind === 'Vectors') {
          window.vectorsInfo = e.data.info;
          window.workerBytes = e.data.module_bytes;
          window.rowsTiming = { rows: e.data.rows_ms, read: e.data.file_read_ms, feed: e.data.feed_ms, probe: e.data.probe_ms, bound: e.data.read_bound_ms, codesBound: e.data.codes_bound_ms };
          window.vectorsSet = e.data.set;
          // Beside the reply, one Float32Array of `dim` values per question (src/encoder/wire.rs).
          const { flat, dim } = e.data;
          window.questionVectors = flat
            ? e.data.questions.map((_, i) => Array.from(flat.subarray(i * dim, (i + 1) * dim)))
            : e.data.questions.map(([, v]) => v);
          window.pageWorker = this;
        }
        // The benchmark's own requests: how many tops came back, read before the page's handler
        // takes them from beside the reply (this listener was added first).
        if (e.data?.ticket >= 1e9) window.counted = { ticket: e.data.ticket, count: e.data.lens?.length ?? e.data.tops?.length };
        const d = window.dense.find((x) => x.ticket === e.data?.ticket);
        if (d && !d.back) { d.back = performance.now(); d.searchMs = e.data.search_ms; }
      });
    }
  };
  window.longTasks = [];
  window.keyEvents = [];
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.longTasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask' });
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) if (e.name === 'keydown') window.keyEvents.push([e.startTime, e.duration]);
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
});
const page = await context.newPage();
// Which of the worker's modules the browser fetched (from 12-03, late: encodeur-rapide where it
// compiles relaxed SIMD, encodeur elsewhere).
const workerModules = [];
page.on('request', (r) => { const m = r.url().match(/\/(encodeur[^/]*)_bg\.wasm$/); if (m) workerModules.push(m[1]); });
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
await page.goto(server.url);
await page.waitForSelector('body[data-ready="true"]');
await page.focus('#question');
const now = () => page.evaluate(() => performance.now());
let typing = true;
let typed = 0;
const typer = (async () => {
  while (typing) {
    await page.keyboard.type('a');
    typed += 1;
    await new Promise((ok) => setTimeout(ok, 100));
  }
})();
const t0 = await now();
const files = giant ? ['fiches.jsonl', 'questions.csv'] : noVectors ? ['fiches.jsonl', ...(withQuestions ? ['questions.csv'] : [])] : ['fiches.jsonl', 'questions.csv', 'v.safetensors'];
const fichesBytes = (await readFile(join(dir, 'fiches.jsonl'))).length;
await page.setInputFiles('#fichiers', files.map((f) => join(dir, f)));
const count = new RegExp(`${n.toLocaleString('en').replace(/,/g, '.?')} fiches`);
await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('#resume').textContent),
  count.source, { timeout: 300000, polling: 50 });
const t1 = await now();
// The dense measurement (40 questions, sens, hybride and hybride+) runs after the catalogue is
// installed; typing goes on meanwhile. Its end shows in « Mesurer », opened afterwards.
await page.waitForTimeout(3000);
typing = false;
await typer;
const t2 = await now();
let firstResult = 0;
if (giant || noVectors) {
  // The exercise's question (the giant fiches), or the catalogue's first question, typed at once;
  // timed to its first result (Playwright's round trips included).
  const question = giant ? GIANT_QUESTION : (await readFile(join(dir, 'questions.csv'), 'utf8')).split('\n')[1].split(';')[1];
  await page.fill('#question', '');
  const asked = await now();
  await page.fill('#question', question);
  await page.locator('#colonne-mots li.resultat').first().waitFor({ timeout: 120000 });
  firstResult = (await now()) - asked;
} else {
  await page.click('#onglet-mesurer');
  await page.waitForSelector('#mesures section.methode[data-methode="hybride+"]', { state: 'attached', timeout: 60000 });
}
await page.waitForTimeout(300);
const t3 = await now();
const { longTasks, keyEvents } = await page.evaluate(() => ({ longTasks: window.longTasks, keyEvents: window.keyEvents }));
const within = (a, b) => ([s]) => s >= a && s < b;
const at = (s) => Math.round(s - t0);
const fmt = (xs) => (xs.length ? xs.map(([s, d]) => `${Math.round(d)} (at ${at(s)})`).join(', ') : 'none');
const keys = keyEvents.filter(within(t0, t2)).sort((a, b) => a[1] - b[1]);
const what = giant ? '6 giant fiches (20 MB, no vectors)' : noVectors ? `${n} fiches ${withQuestions ? 'and their questions' : 'alone'} (${(fichesBytes / 1e6).toFixed(1)} MB, ${withQuestions ? '' : 'no questions, '}no vectors)` : `${n} fiches with vectors`;
console.log(`${what} through « Vos données »: loaded after ${at(t1)} ms (times below in ms, « at » from the files' choice)`);
console.log(`long tasks over 50 ms while loading and measuring (${Math.round(t2 - t0)} ms): ${fmt(longTasks.filter(within(t0, t2)))}`);
console.log(`keystrokes typed meanwhile: ${typed}; input-to-echo over 16 ms: ${keys.length}, the slowest ${fmt(keys.slice(-5))} ms`);
const after = giant || noVectors ? `their question typed afterwards: first result after ${Math.round(firstResult)} ms;` : 'opening « Mesurer » afterwards:';
console.log(`${after} long tasks ${fmt(longTasks.filter(within(t2, t3)))}`);
const dense = await page.evaluate(() => window.dense);
for (const d of dense) {
  const ms = d.back - d.sent;
  console.log(`dense tops from the worker: ${d.n} question vector(s) in ${Math.round(ms)} ms (${(ms / d.n).toFixed(1)} ms per vector, round trip included; ${d.searchMs === undefined ? 'this build does not report its search time' : `${(d.searchMs / d.n).toFixed(1)} ms per vector searching in the worker`})`);
}
// Once the page is idle: the worker's dense top of one question at a time, asked 40 times in a
// row as the page asks for the question in the box (tickets the page does not wait for: their
// replies are dropped by the page).
const alone = await page.evaluate(async () => {
  // Without vectors (the giant fiches) there is nothing to ask the worker.
  if (!window.pageWorker || !window.questionVectors) return { times: [], inWorker: [], rowsRead: [] };
  const times = [];
  const inWorker = [];
  const rowsRead = [];
  for (let i = 0; i < window.questionVectors.length; i++) {
    const ticket = 1e9 + i;
    const t = performance.now();
    await new Promise((ok) => {
      const on = (e) => { if (e.data?.ticket === ticket) { window.pageWorker.removeEventListener('message', on); if (typeof e.data.search_ms === 'number') inWorker.push(e.data.search_ms); if (typeof e.data.rows_read_ms === 'number') rowsRead.push(e.data.rows_read_ms); ok(); } };
      window.pageWorker.addEventListener('message', on);
      window.pageWorker.postMessage({ request: { kind: 'Dense', set: window.vectorsSet, ticket, vectors: [window.questionVectors[i]], question: true } });
    });
    times.push(performance.now() - t);
  }
  return { times: times.sort((a, b) => a - b), inWorker: inWorker.sort((a, b) => a - b), rowsRead: rowsRead.sort((a, b) => a - b) };
});
const spread = (xs) => {
  const q = (p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(1);
  return `median ${q(0.5)} ms (min ${q(0)}, max ${q(1)}) over ${xs.length}`;
};
if (alone.times.length) {
  console.log(`one question's dense top from the idle worker, round trip: ${spread(alone.times)}`);
  if (alone.inWorker.length) console.log(`  of which searching in the worker (a scan of the int8 codes' high 4 bits, the best 1,600 completed to int8, their best 200 re-read and scored exactly, for a top 50): ${spread(alone.inWorker)}`);
  // Builds from 12-03, late, on: the part of it spent reading the 200 exact rows back from the
  // origin-private file (none in a context without one: the rows are then in memory).
  if (alone.rowsRead.length) console.log(`  of which reading the exact rows from the origin-private file: ${spread(alone.rowsRead)}`);
  // The worker times the fastest of three plain reads of what its scan reads (kernels::read_probe)
  // once they are loaded: the least a scan over them can take there. Builds from 12-03 on also
  // time both planes (every int8 code: what the scan read before).
  const timing = await page.evaluate(() => window.rowsTiming);
  if (typeof timing?.bound === 'number' && alone.inWorker.length) {
    const median = alone.inWorker[Math.floor(alone.inWorker.length / 2)];
    const what = typeof timing.codesBound === 'number' ? "the scan's read bound in the worker (fastest of three plain reads of the codes' high 4 bits)" : "the int8 codes' read bound in the worker (fastest of three plain reads of every code)";
    console.log(`  ${what}: ${timing.bound.toFixed(2)} ms; the median search is ${(median / timing.bound).toFixed(2)}× it`);
    if (typeof timing.codesBound === 'number') console.log(`  every int8 code read (both planes): ${timing.codesBound.toFixed(2)} ms; the median search is ${(median / timing.codesBound).toFixed(2)}× it`);
  }
}
// 1,000 random directions in one request, as « Mesurer » sends its 40: the worker's time per query.
const random = await page.evaluate(async () => {
  if (!window.pageWorker || !window.questionVectors) return null;
  const dim = window.questionVectors[0].length;
  let seed = 42;
  const next = () => { seed = (seed * 1103515245 + 12345) >>> 0; return seed / 2 ** 32 - 0.5; };
  const vectors = Array.from({ length: 1000 }, () => Array.from({ length: dim }, next));
  const ticket = 2e9;
  const t = performance.now();
  const reply = await new Promise((ok) => {
    const on = (e) => { if (e.data?.ticket === ticket) { window.pageWorker.removeEventListener('message', on); ok({ ...e.data, count: window.counted?.count }); } };
    window.pageWorker.addEventListener('message', on);
    window.pageWorker.postMessage({ request: { kind: 'Dense', set: window.vectorsSet, ticket, vectors, question: false } });
  });
  // The tops travel beside the reply (their lengths in `lens`), or inside it (builds before 12-03):
  return { roundTrip: performance.now() - t, searchMs: reply.search_ms, rowsMs: reply.rows_read_ms, kind: reply.kind, tops: reply.count };
});
if (random) {
  console.log(`1,000 random queries in one request: ${random.kind} with ${random.tops} tops; ${random.searchMs === undefined ? '' : `searching ${(random.searchMs / 1000).toFixed(2)} ms per query in the worker (${Math.round(random.searchMs)} ms in all${random.rowsMs === undefined ? '' : `, ${(random.rowsMs / 1000).toFixed(2)} ms per query reading exact rows`}), `}round trip ${Math.round(random.roundTrip)} ms`);
}
const info = await page.evaluate(() => window.vectorsInfo);
if (info) {
  console.log(`the worker keeps ${info.count} × ${info.dim} vectors in ${(info.memory_bytes / 1e6).toFixed(1)} MB of memory, ${info.stored_bytes ? `their exact rows in ${(info.stored_bytes / 1e6).toFixed(1)} MB of origin-private files` : 'exact rows included (no origin-private files here)'}`);
  const workerBytes = await page.evaluate(() => window.workerBytes);
  if (typeof workerBytes === 'number') console.log(`the worker's whole wasm memory once they are read: ${(workerBytes / 1e6).toFixed(1)} MB`);
  console.log(`the worker's module: ${workerModules.join(', ') || 'not seen'}`);
  const rows = await page.evaluate(() => window.rowsTiming);
  if (typeof rows?.rows === 'number') {
    console.log(`reading the vectors' rows in the worker: ${Math.round(rows.rows)} ms, of which reading the file ${Math.round(rows.read)} ms, checking, quantising and storing rows ${Math.round(rows.feed)} ms; the probe's reads of the origin-private file ${rows.probe.toFixed(3)} ms each`);
  }
}
const memory = await page.evaluate(() => window.instances.map((i) => i.exports.memory?.buffer.byteLength ?? 0));
console.log(`the page's wasm memory at the end: ${memory.map((b) => `${(b / 1e6).toFixed(1)} MB (${(b / fichesBytes).toFixed(2)} bytes per byte of fiches)`).join(', ')}`);
if (errors.length) console.log(`page errors: ${errors.join(' | ')}`);
await context.close();
if (browser) await browser.close();
await server.close();
