// Shared by the end-to-end tests: a static server for dist/ under a sub-path, as GitHub Pages
// serves it, and a Chromium page that records every console error, page error, failed request
// and request outside the sub-path, so that each test can assert there were none.
import { createServer } from 'node:http';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { startMock } from './mock-mistral.mjs';

export const BASE = '/rag-fiches/';
/** The port the test build of the page (dist-test/) sends its API calls to: the mock's. */
export const MOCK_PORT = 8788;
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.json': 'application/json',
  // The web app manifest and its icons, typed as GitHub Pages types them (an icon served as
  // bytes is refused by the browser, with a warning).
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serves a build (dist/ by default) at BASE on 127.0.0.1 (a free port); records requests outside
 *  BASE. `overrides` maps paths under BASE (e.g. 'data/manifeste.json') to contents served instead. */
export async function serveDist({ dir = 'dist', overrides = {}, slow = {}, faults = {}, link = null, port = 0 } = {}) {
  const ROOT = resolve(fileURLToPath(new URL(`../../${dir}`, import.meta.url)));
  const outside = [];
  // Each response of `slow` (path → { body, chunk, every, stallAfter }): `chunk` bytes every
  // `every` ms, nothing more after `stallAfter` bytes, with its Content-Length; logged as the
  // server saw it (bytes sent, the connection closed before the end).
  const served = [];
  // Every request's path under BASE, in order, as the server saw it.
  const requests = [];
  // Every file response's path and the bytes of its body the server wrote.
  const bytes = [];
  // `faults`: path → { kind, times, prefix }: the next `times` requests of `path` (of every path
  // it starts, with `prefix`) fail as `kind` says
  // ('404'; 'cut': headers and half the body, then the connection is destroyed; 'short': half
  // the body with a Content-Length saying so, a complete-looking response; 'hang': no answer at
  // all, the connection held open until the server closes).
  // `link`: { bytesPerSecond, latencyMs }: every file response waits `latencyMs`, then its body
  // goes out in 16 kB chunks through one shared link of `bytesPerSecond` (the benchmarks' slow
  // network, on the server's side, so that the worker's requests are slowed too).
  let linkFree = 0;
  // The responses held by 'hang', closed by `release()` (a browser that keeps a held connection
  // after aborting its request would otherwise queue the next requests behind it).
  const hung = [];
  const release = () => hung.splice(0).forEach((res) => res.destroy());
  const send = async (res, body) => {
    if (!link) {
      res.end(body);
      return;
    }
    await new Promise((ok) => setTimeout(ok, link.latencyMs));
    for (let at = 0; at < body.length; at += 16384) {
      const chunk = body.subarray(at, Math.min(body.length, at + 16384));
      const start = Math.max(Date.now(), linkFree);
      linkFree = start + (chunk.length / link.bytesPerSecond) * 1000;
      await new Promise((ok) => setTimeout(ok, linkFree - Date.now()));
      res.write(chunk);
    }
    res.end();
  };
  const fault = (rel) => {
    const f = faults[rel] ?? Object.entries(faults).find(([k, v]) => v.prefix && rel.startsWith(k))?.[1];
    if (!f || !(f.times > 0)) return null;
    f.times -= 1;
    f.seen = (f.seen ?? 0) + 1;
    return f.kind;
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    requests.push(url.pathname.slice(BASE.length - 1));
    if (!url.pathname.startsWith(BASE)) {
      outside.push(url.pathname);
      res.writeHead(404).end();
      return;
    }
    let rel = decodeURIComponent(url.pathname.slice(BASE.length)) || 'index.html';
    if (rel in slow) {
      const { body, chunk = 64 * 1024, every = 100, stallAfter = Infinity } = slow[rel];
      const log = { path: rel, sent: 0, closedEarly: false, finished: false };
      served.push(log);
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
      const timer = setInterval(() => {
        if (log.sent >= body.length) {
          clearInterval(timer);
          log.finished = true;
          res.end();
        } else if (log.sent < stallAfter) {
          const next = Math.min(body.length, log.sent + chunk);
          res.write(body.subarray(log.sent, next));
          log.sent = next;
        }
      }, every);
      res.on('close', () => {
        clearInterval(timer);
        log.closedEarly = !log.finished;
      });
      return;
    }
    if (rel in overrides) {
      res.writeHead(200, { 'content-type': TYPES[extname(rel)] ?? 'application/octet-stream' });
      res.end(overrides[rel]);
      return;
    }
    const file = normalize(join(ROOT, rel));
    if (!file.startsWith(ROOT + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const info = await stat(file);
      const path = info.isDirectory() ? join(file, 'index.html') : file;
      const body = await readFile(path);
      const type = TYPES[extname(path)] ?? 'application/octet-stream';
      const kind = fault(rel);
      if (kind === '404') {
        res.writeHead(404).end();
        return;
      }
      if (kind === 'hang') {
        hung.push(res);
        return;
      }
      if (kind === 'cut') {
        res.writeHead(200, { 'content-type': type, 'content-length': body.length });
        res.write(body.subarray(0, body.length >> 1), () => res.destroy());
        bytes.push({ path: rel, bytes: body.length >> 1 });
        return;
      }
      if (kind === 'short') {
        res.writeHead(200, { 'content-type': type, 'content-length': body.length >> 1 });
        res.end(body.subarray(0, body.length >> 1));
        bytes.push({ path: rel, bytes: body.length >> 1 });
        return;
      }
      res.writeHead(200, { 'content-type': type, 'content-length': body.length });
      bytes.push({ path: rel, bytes: body.length });
      await send(res, body);
    } catch {
      res.writeHead(404).end();
    }
  });
  // `port`: a given one (a test that stops the server and serves again at the same origin).
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const close = () => new Promise((ok) => { server.closeAllConnections?.(); server.close(ok); });
  return { url: origin + BASE, origin, outside, served, requests, bytes, close, release };
}

/** The test build served with a vectors file made by the terminal (`vecteurs --embedder mistral`)
 *  through the running mock with `key`: the fiches' vectors, and with `questions` the exercise's 40
 *  question vectors too. Returns the server and the file's bytes. */
export async function serveWithVectors(key, { questions = false } = {}) {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const out = join(await mkdtemp(join(tmpdir(), 'rag-fiches-')), 'vecteurs.safetensors');
  await promisify(execFile)(join(root, 'target/release/vecteurs'),
    ['--embedder', 'mistral', ...(questions ? [] : ['--questions', 'none']), '--out', out],
    { cwd: root, env: { ...process.env, MISTRAL_API_KEY: key, RAG_FICHES_API_BASE: `http://127.0.0.1:${MOCK_PORT}` } });
  const vectors = await readFile(out);
  const server = await serveDist({
    dir: 'dist-test',
    overrides: {
      'data/manifeste.json': JSON.stringify({ vecteurs: 'vecteurs.safetensors' }),
      'data/vecteurs.safetensors': vectors,
    },
  });
  return { server, vectors };
}

/** A vectors file of seed 001's fake embedder (1024 values, like mistral-embed's) whose header
 *  names `mistral-embed`, the only model the page takes: its vectors unchanged. Returns the bytes
 *  and the header. */
export function asMistralEmbed(fake) {
  const headerLen = Number(fake.readBigUInt64LE(0));
  const header = JSON.parse(fake.subarray(8, 8 + headerLen).toString('utf8'));
  header.__metadata__.model = 'mistral-embed';
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return { bytes: Buffer.concat([len, Buffer.from(json), fake.subarray(8 + headerLen)]), header };
}

const LAUNCH = {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

export async function launch() {
  return chromium.launch(LAUNCH);
}

/** A browser with a profile on disk (in a new temporary directory), as a learner's own browser
 *  has: its origin-private file system is on disk, where `launch()`'s contexts keep it in memory
 *  as an incognito window does. Returns the context; closing it closes the browser. */
export async function launchWithProfile() {
  const dir = await mkdtemp(join(tmpdir(), 'rag-fiches-profile-'));
  const context = await chromium.launchPersistentContext(dir, LAUNCH);
  const close = context.close.bind(context);
  context.close = async () => { await close(); await rm(dir, { recursive: true, force: true }); };
  return context;
}

/** A new page whose problems are collected in `problems` (console errors, page errors,
 *  failed requests). Every test ends with `assert.deepEqual(problems, [])`.
 *  The page's service worker is blocked unless `serviceWorkers: 'allow'`: once it controls the
 *  page, the requests it answers are not seen by Playwright's routes, and the tests that route,
 *  fault or count requests would test the worker's copies instead (offline.test.mjs tests it). */
export async function openPage(browser, url, options = {}) {
  const context = await browser.newContext({ serviceWorkers: options.serviceWorkers ?? 'block' });
  return openPageIn(context, url, options);
}

/** `openPage` in a given context (e.g. `launchWithProfile()`'s). */
export async function openPageIn(context, url, { expectHttpErrors = false } = {}) {
  // Every Content-Security-Policy violation becomes a console error, which fails the test.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`securitypolicyviolation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const page = await context.newPage();
  const problems = [];
  const messages = [];
  page.on('console', (msg) => {
    messages.push(msg.text());
    // In fault tests the mock's 4xx/5xx answers are the point: Chromium logs each, expected.
    const mockOrigin = `http://127.0.0.1:${MOCK_PORT}`;
    const fromMock = (msg.location()?.url ?? '').startsWith(`${mockOrigin}/`) || msg.text().includes(`${mockOrigin}/`);
    const expected = expectHttpErrors && fromMock && /Failed to load resource|blocked by CORS policy/.test(msg.text());
    if (msg.type() === 'error' && !expected) {
      problems.push(`console.error: ${msg.text()}`);
    }
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => {
    // A newer question aborts the older request, and the local model's download stops when the
    // model can no longer be used or is no longer wanted: cancellation by design, not a failure.
    const toMock = req.url().startsWith(`http://127.0.0.1:${MOCK_PORT}/`);
    const model = req.url().endsWith(`/${LOCAL_MODEL}`);
    const cancelled = req.failure()?.errorText === 'net::ERR_ABORTED' && (toMock || model);
    if (!cancelled && !(expectHttpErrors && toMock)) problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`);
  });
  page.on('response', (resp) => {
    const fromMock = resp.url().startsWith(`http://127.0.0.1:${MOCK_PORT}/`);
    if (resp.status() >= 400 && !(expectHttpErrors && fromMock)) problems.push(`HTTP ${resp.status()}: ${resp.url()}`);
  });
  if (url) {
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  }
  return { page, context, problems, messages };
}

/** Opens « Réglages » (the key, the vectors, your data), collapsed until used. */
export async function settings(page) {
  await page.evaluate(() => { document.querySelector('#reglages').open = true; });
}

/** Picks the exercise question whose text holds `text` in the examples list. */
export async function pickExample(page, text) {
  const value = await page.locator('#exemples option', { hasText: text }).getAttribute('value');
  await page.selectOption('#exemples', value);
}

/** Types `key` in « Réglages » (opened first). */
export async function enterKey(page, key) {
  await settings(page);
  await page.fill('#cle', key);
}

/** A page opened at `url` in a window of `width` × `height` (a phone: 390 × 844). */
export async function openAt(browser, url, width, height) {
  const opened = await openPage(browser, null);
  await opened.page.setViewportSize({ width, height });
  await opened.page.goto(url);
  await opened.page.waitForSelector('body[data-ready="true"]');
  return opened;
}

/** The usual set-up of a test file: Chromium, a build served under BASE and, with `mock`, the mock
 *  API; `use` receives them once started; all are stopped after the file's tests. */
export function suite(use, { dir = 'dist', mock = false } = {}) {
  const made = {};
  before(async () => {
    if (mock) made.mock = await startMock(MOCK_PORT);
    made.browser = await launch();
    made.server = await serveDist({ dir });
    use(made);
  });
  after(async () => {
    await made.browser?.close();
    await made.server?.close();
    await made.mock?.close();
  });
}

/** A figure cell's value as ranked (its first text), without the pessimistic one beside it. */
export const ranked = (cell) => cell.evaluate((td) => td.firstChild.textContent);

/** The hostile catalogue: six fiches of 3.3 MB of French words (a 20 MB `fiches.jsonl`) and one
 *  question on them, as file contents. */
export const GIANT_QUESTION = 'plaque de plâtre pour pièce humide';
export function giantCatalogue() {
  const words = ['plâtre', 'colle', 'carrelage', 'mortier', 'béton', 'isolant', 'laine', 'plaque', 'humide', 'pièce', 'enduit', 'mur'];
  const lines = [];
  for (let i = 0; i < 6; i += 1) {
    const parts = [];
    let k = i;
    for (let n = 0; n < 470_000; n += 1) { parts.push(words[k % words.length]); k = (k * 7 + 3) % 1000; }
    lines.push(JSON.stringify({ id: `G-${i}`, nom: `Géante ${i}`, famille: 'essai', texte: parts.join(' ') }));
  }
  return {
    fiches: Buffer.from(`${lines.join('\n')}\n`),
    questions: Buffer.from(`type;question;fiche_attendue\ncourante;${GIANT_QUESTION};G-1\n`),
  };
}

/** The local encoder's model file, under the served page. */
export const LOCAL_MODEL = 'data/modele-local/tete.safetensors.xz';

/** Whether dist/ holds the local encoder's model (`bash scripts/modele.sh`, then build). Without
 *  it the tests that need it are skipped, loudly; with `CI=true` its absence fails the run. */
export function localModelPresent(what) {
  const present = existsSync(new URL(`../../dist/${LOCAL_MODEL}`, import.meta.url));
  if (!present) {
    if (process.env.CI === 'true') throw new Error(`${LOCAL_MODEL} is missing from dist/ (CI=true requires it: bash scripts/modele.sh)`);
    console.log(`*** SKIPPED ${what}: no dist/${LOCAL_MODEL} (bash scripts/modele.sh, then build) ***`);
  }
  return present;
}

/** np.save of a float64 matrix. */
export function npy(rows) {
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': (${rows.length}, ${rows[0].length}), }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const head = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(head, 0);
  head[6] = 1; head[7] = 0; head.writeUInt16LE(header.length, 8);
  const data = Buffer.alloc(rows.length * rows[0].length * 8);
  rows.flat().forEach((x, i) => data.writeDoubleLE(x, i * 8));
  return Buffer.concat([head, Buffer.from(header, 'latin1'), data]);
}

/** Block `block` of the built page's rows forged as the fourth red team did (R3), by Python's
 *  standard library (xz): this table's header, every row zeroed, the checksum recomputed (the
 *  first 8 bytes of the SHA-256 of what precedes it, src/encoder/blocks.rs), then the genuine
 *  block's proof, compressed again. Well formed; not the block the head's root pins. */
export function forgedBlock(block, dir = 'dist') {
  const path = fileURLToPath(new URL(`../../${dir}/data/modele-local/lignes/${String(block).padStart(5, '0')}.xz`, import.meta.url));
  const script = `
import hashlib, lzma, sys
file = lzma.decompress(open(sys.argv[1], 'rb').read())
rows = int.from_bytes(file[8:12], 'little')
body_len = 20 + rows * 512 + 8
body = file[:20] + bytes(rows * 512)
forged = body + hashlib.sha256(body).digest()[:8] + file[body_len:]
assert len(forged) == len(file) and forged != file
sys.stdout.buffer.write(lzma.compress(forged, format=lzma.FORMAT_XZ, check=lzma.CHECK_NONE))
`;
  return execFileSync('python3', ['-c', script, path]);
}
