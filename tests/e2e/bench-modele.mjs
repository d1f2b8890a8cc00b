// What a typed question costs a learner with the local model (src/encoder/blocks.rs): in a fresh
// Chromium profile, from ticking « sens local » to the first results of a typed question, the
// time and the bytes the server sent; then 20 typed questions (tests/questions-francaises.txt),
// each waited for until sens local lists the terminal's top 5, with the bytes each one added.
//
//   node tests/e2e/bench-modele.mjs          # localhost
//   node tests/e2e/bench-modele.mjs lent     # through a 1.6 Mbit/s link with 150 ms of latency
//   DIST=dist-avant node tests/e2e/bench-modele.mjs lent 0   # another build, no further question
//
// The link is the tests' server's (harness.mjs `link`): every response, the worker's included.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { launch, serveDist, openPage } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const slow = process.argv[2] === 'lent';
const further = Number(process.argv[3] ?? 20);
const link = slow ? { bytesPerSecond: 1.6e6 / 8, latencyMs: 150 } : null;
const FIRST = 'Quel mortier pour monter un mur en parpaings ?';
const control = (await readFile(join(ROOT, 'tests/questions-francaises.txt'), 'utf8'))
  .split('\n').map((l) => l.trim()).filter(Boolean).slice(0, further);

async function terminalTop(question) {
  const { stdout } = await promisify(execFile)(join(ROOT, 'target/release/mesurer'),
    ['sens-local', '--question', question], { cwd: ROOT });
  return [...stdout.matchAll(/^\s*\d+\.\s+(\S+)/gm)].map((m) => m[1]);
}

const server = await serveDist({ dir: process.env.DIST ?? 'dist', link });
const browser = await launch();
const { page, context, problems } = await openPage(browser, server.url);
await page.waitForSelector('body[data-ready="true"]', { timeout: 300000 });
// The shipped vectors measured: what the page loads before anyone asks for the model.
await page.waitForFunction(() => document.querySelector('#voir-sens-local'), null, { timeout: 300000 });
await page.waitForTimeout(2000);

async function ask(question, want) {
  const from = server.bytes.length;
  const start = Date.now();
  await page.fill('#question', question);
  await page.waitForFunction((w) => [...document.querySelectorAll('#colonne-sens-local li.resultat')]
    .map((li) => li.dataset.id).join() === w.join(), want, { timeout: 900000 });
  const sent = server.bytes.slice(from);
  return { ms: Date.now() - start, bytes: sent.reduce((a, b) => a + b.bytes, 0), files: sent.length };
}

const want = await terminalTop(FIRST);
const from = server.bytes.length;
const start = Date.now();
await page.check('#voir-sens-local');
const first = await ask(FIRST, want);
first.ms = Date.now() - start;
first.bytes = server.bytes.slice(from).reduce((a, b) => a + b.bytes, 0);
const label = `${process.env.DIST ?? 'dist'}, ${slow ? '1.6 Mbit/s + 150 ms' : 'localhost'}`;
console.log(`[modele] ${label}: first typed question ${(first.ms / 1000).toFixed(1)} s, ${first.bytes} bytes served`);
const rows = [];
for (const q of control) {
  rows.push(await ask(q, await terminalTop(q)));
}
if (rows.length) {
  const bytes = rows.map((r) => r.bytes).sort((a, b) => a - b);
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  const total = bytes.reduce((a, b) => a + b, 0);
  console.log(`[modele] ${label}: ${rows.length} further questions: ${total} bytes in all; per question median ${bytes[bytes.length >> 1]} bytes, max ${bytes.at(-1)}; time median ${ms[ms.length >> 1]} ms, max ${ms.at(-1)} ms`);
}
if (problems.length) console.log(`[modele] problems: ${problems.join(' | ')}`);
await context.close();
await browser.close();
await server.close();
