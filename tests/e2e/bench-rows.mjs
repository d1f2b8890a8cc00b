// Where a catalogue's exact f16 rows could live outside the module's memory (prints figures;
// asserts nothing). Issue 14 asks for 50,000 × 1,024 vectors in at most 60 MB: the int8 copy
// alone is 51 MB, so the exact rows that re-score each question's 200 candidates (102 MB in f16)
// would have to be read from elsewhere, 200 rows of 2 kB per question. This bench reads random
// rows of a file of that size, in a dedicated worker, from:
//   - the learner's `File` with `FileReaderSync` (one `slice` per row),
//   - the same `File` with `Blob.arrayBuffer()`, every row asked for at once,
//   - a copy in the origin-private file system (OPFS) read with `FileSystemSyncAccessHandle`,
//   - an `ArrayBuffer` in the worker's memory (the baseline: what the module does today).
// Twice: in a fresh incognito-like context (how the tests run) and in a browser profile on disk
// (how a learner's browser runs). Needs no build:  node tests/e2e/bench-rows.mjs
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from './harness.mjs';

const ROWS = 50_000;
const ROW = 2_048; // 1,024 f16 values
const dir = await mkdtemp(join(tmpdir(), 'rag-fiches-rows-'));
const file = join(dir, 'vecteurs.bin');
// Random bytes: the reads, not the values, are measured.
const chunk = randomBytes(ROW * 1000);
await writeFile(file, Buffer.concat(Array.from({ length: ROWS / 1000 }, () => chunk)));

const PAGE = `<!doctype html><meta charset="utf-8"><input type="file" id="f"><script src="page.js"></script>`;
const PAGE_JS = `document.getElementById('f').addEventListener('change', (e) => {
  const w = new Worker('worker.js');
  w.onmessage = (m) => { window.result = m.data; };
  w.postMessage(e.target.files[0]);
});`;
const WORKER_JS = `
const ROW = ${ROW};
const picks = (rows, n) => Array.from({ length: n }, () => Math.floor(Math.random() * rows)).sort((a, b) => a - b);
const time = (f) => { const t = performance.now(); f(); return performance.now() - t; };
onmessage = async (e) => {
  const file = e.data;
  const rows = Math.floor(file.size / ROW);
  const out = [];
  const sync = new FileReaderSync();
  for (let i = 0; i < 3; i++) {
    out.push(['FileReaderSync, 200 rows', time(() => {
      for (const r of picks(rows, 200)) sync.readAsArrayBuffer(file.slice(r * ROW, (r + 1) * ROW));
    })]);
  }
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await Promise.all(picks(rows, 200).map((r) => file.slice(r * ROW, (r + 1) * ROW).arrayBuffer()));
    out.push(['Blob.arrayBuffer(), 200 rows at once', performance.now() - t]);
  }
  try {
    const root = await navigator.storage.getDirectory();
    const handle = await (await root.getFileHandle('rows.bin', { create: true })).createSyncAccessHandle();
    out.push(['OPFS: copy of the file, 4 MB at a time', time(() => {
      handle.truncate(0);
      for (let at = 0; at < file.size; at += 4 << 20) {
        handle.write(new Uint8Array(sync.readAsArrayBuffer(file.slice(at, at + (4 << 20)))), { at });
      }
      handle.flush();
    })]);
    const buf = new Uint8Array(ROW);
    for (let i = 0; i < 5; i++) {
      out.push(['OPFS sync access handle, 200 rows', time(() => {
        for (const r of picks(rows, 200)) handle.read(buf, { at: r * ROW });
      })]);
    }
    out.push(['OPFS sync access handle, 1,000 rows', time(() => {
      for (const r of picks(rows, 1000)) handle.read(buf, { at: r * ROW });
    })]);
    handle.close();
    await root.removeEntry('rows.bin');
  } catch (err) {
    out.push(['OPFS: ' + err, NaN]);
  }
  const whole = new Uint8Array(sync.readAsArrayBuffer(file));
  const buf = new Uint8Array(ROW);
  for (let i = 0; i < 3; i++) {
    out.push(['ArrayBuffer in memory, 200 rows', time(() => {
      for (const r of picks(rows, 200)) buf.set(whole.subarray(r * ROW, (r + 1) * ROW));
    })]);
  }
  postMessage(out);
};`;

const server = createServer((req, res) => {
  const body = { '/': PAGE, '/page.js': PAGE_JS, '/worker.js': WORKER_JS }[req.url];
  if (body === undefined) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': req.url === '/' ? 'text/html' : 'text/javascript' });
  res.end(body);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/`;

async function run(label, page) {
  await page.goto(url);
  await page.setInputFiles('#f', file);
  await page.waitForFunction(() => window.result, null, { timeout: 300_000 });
  const result = await page.evaluate(() => window.result);
  console.log(`\n${label} (${ROWS.toLocaleString('en')} rows of ${ROW} bytes, ${(ROWS * ROW / 1e6).toFixed(1)} MB):`);
  for (const [what, ms] of result) console.log(`  ${what}: ${ms.toFixed(2)} ms`);
}

const browser = await launch();
await run('incognito-like context (the tests\' harness)', await (await browser.newContext()).newPage());
await browser.close();
const profile = await mkdtemp(join(tmpdir(), 'rag-fiches-profile-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
});
await run('a browser profile on disk', await context.newPage());
await context.close();
server.close();
await rm(dir, { recursive: true, force: true });
await rm(profile, { recursive: true, force: true });
