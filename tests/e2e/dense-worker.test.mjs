// The catalogue's Mistral vectors live in the page's Web Worker (issue 14): the page's thread
// never holds them; the worker reads, checks and keeps them, and answers every dense top. These
// tests speak to the real worker module in Chromium: a question superseded while the worker is
// busy is never searched, a refused file and an unknown set come back as French replies, and a
// worker that cannot start is said in French while keyword search goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPage, suite, serveDist, pickExample, ranked, asMistralEmbed, launchWithProfile, openPageIn } from './harness.mjs';

let browser;
let server;
suite((s) => ({ browser, server } = s));

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The exercise's fiches and 40 questions embedded by the terminal with seed 001's fake embedder
 *  (1024 values, free), the file's header renamed `mistral-embed` (the page takes no other model),
 *  its vectors unchanged. Returns the file and what the worker checks it against. */
async function fakeVectors() {
  const out = join(await mkdtemp(join(tmpdir(), 'rag-fiches-')), 'fake.safetensors');
  await promisify(execFile)(join(ROOT, 'target/release/vecteurs'), ['--embedder', 'fake', '--out', out], { cwd: ROOT });
  const { bytes, header } = asMistralEmbed(await readFile(out));
  const ids = (await readFile(join(ROOT, 'data/fiches.jsonl'), 'utf8'))
    .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).id);
  return { bytes, ids, fingerprint: header.__metadata__.fingerprint, path: out };
}

const vectors = await fakeVectors();

/** The test build shipping those vectors with the page. */
const serveShipped = () => serveDist({
  dir: 'dist-test',
  overrides: {
    'data/manifeste.json': JSON.stringify({ vecteurs: 'vecteurs.safetensors' }),
    'data/vecteurs.safetensors': vectors.bytes,
  },
});

test('the worker serves a question ahead of a measurement, a newer question supersedes an older one not yet searched, and refusals come back in French', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  const replies = await page.evaluate(async ({ bytes, ids, fingerprint }) => {
    const worker = new Worker('encodeur-demarrage.js');
    const replies = [];
    let started;
    const ready = new Promise((ok) => { started = ok; });
    const done = new Promise((ok) => {
      worker.onmessage = (e) => {
        // Numbers travel beside a message, in typed arrays (src/encoder/wire.rs): vectors as one
        // Float32Array of `dim` values per row, kept here as rows, and their length said; dense
        // tops as their fiches, scores and lengths, put back together here.
        const { flat, docs, scores, lens, ...reply } = e.data;
        if (flat) Object.assign(reply, { rows: Array.from({ length: flat.length / e.data.dim }, (_, i) => Array.from(flat.subarray(i * e.data.dim, (i + 1) * e.data.dim))), flatLength: flat.length });
        if (lens) {
          let at = 0;
          reply.insideTops = reply.tops.length;
          reply.tops = Array.from(lens, (l) => Array.from({ length: l }, () => { at += 1; return [docs[at - 1], scores[at - 1]]; }));
        }
        replies.push(reply);
        if (e.data.kind === 'Started') started();
        if (replies.filter((r) => ['Dense', 'Superseded', 'DenseFailed'].includes(r.kind)).length === 5) ok();
      };
    });
    await ready;
    const blob = new Blob([new Uint8Array(bytes)]);
    const loaded = new Promise((ok) => {
      const prev = worker.onmessage;
      worker.onmessage = (e) => { prev(e); if (/^Vectors/.test(e.data.kind)) ok(); };
    });
    worker.postMessage({ request: { kind: 'Vectors', set: 1, ids_json: JSON.stringify(ids), fingerprint, npy: false }, blob });
    await loaded;
    // The same file said to be for other fiches: refused, in French, and set 1 is still there.
    const refused = new Promise((ok) => {
      const prev = worker.onmessage;
      worker.onmessage = (e) => { prev(e); if (e.data.kind === 'VectorsRefused') { worker.onmessage = prev; ok(); } };
    });
    worker.postMessage({ request: { kind: 'Vectors', set: 2, ids_json: JSON.stringify(ids), fingerprint: 'sha256:00', npy: false }, blob });
    await refused;
    const loadedReply = replies.find((r) => r.kind === 'Vectors');
    const measured = loadedReply.rows;
    const q = (i) => measured[i];
    // All in one task: the measurement (40 vectors) starts, then two questions arrive while the
    // worker searches its first vector; then a search of a set it does not hold. The
    // measurement's vectors go beside the request, as the page sends them; the questions' inside
    // it, as nested arrays: the worker takes both.
    const flat = new Float32Array(measured.flat());
    worker.postMessage({ request: { kind: 'Dense', set: 1, ticket: 10, vectors: [], question: false }, flat, dim: loadedReply.dim });
    worker.postMessage({ request: { kind: 'Dense', set: 1, ticket: 11, vectors: [q(0)], question: true } });
    worker.postMessage({ request: { kind: 'Dense', set: 1, ticket: 12, vectors: [q(1)], question: true } });
    worker.postMessage({ request: { kind: 'Dense', set: 9, ticket: 13, vectors: [q(2)], question: false } });
    worker.postMessage({ request: { kind: 'Dense', set: 1, ticket: 14, vectors: [], question: false } });
    await done;
    worker.terminate();
    return replies;
  }, { bytes: [...vectors.bytes], ids: vectors.ids, fingerprint: vectors.fingerprint });
  const kinds = replies.map((r) => `${r.kind}${r.ticket ?? r.set ?? ''}`);
  assert.equal(kinds[0], 'Started');
  const loaded = replies.find((r) => r.kind === 'Vectors');
  // The tests' contexts are incognito-like: the origin's private files are kept in memory and
  // read slowly, so the worker keeps the exact f16 rows in its memory beside the int8 codes.
  assert.deepEqual(loaded.info, { model: 'mistral-embed', dim: 1024, count: 200, memory_bytes: 200 * 1024 + 200 * 4 + 200 * 1024 * 2, stored_bytes: 0 });
  assert.equal(loaded.questions.length, 40);
  // The question vectors came beside the reply, not inside it.
  assert.deepEqual(loaded.questions[0][1], []);
  assert.equal(loaded.dim, 1024);
  assert.equal(loaded.flatLength, 40 * 1024);
  assert.ok(loaded.rows.every((row) => row.length === 1024 && row.some((x) => x !== 0)));
  const refused = replies.find((r) => r.kind === 'VectorsRefused');
  assert.equal(refused.set, 2);
  assert.match(refused.reason, /^l'empreinte des textes ne correspond pas/);
  const after = kinds.slice(kinds.indexOf('VectorsRefused2') + 1);
  // 11 is superseded by 12 before it is searched; the empty request is answered at once; 12 is
  // searched before the measurement goes on, and the unknown set fails in French.
  assert.deepEqual(after, ['Superseded11', 'Dense14', 'Dense12', 'Dense10', 'DenseFailed13'], kinds.join(' '));
  const failed = replies.find((r) => r.kind === 'DenseFailed');
  assert.equal(failed.reason, 'ces vecteurs ne sont plus chargés');
  const measuredReply = replies.find((r) => r.kind === 'Dense' && r.ticket === 10);
  assert.equal(measuredReply.insideTops, 0, 'the tops came beside the reply');
  assert.equal(measuredReply.tops.length, 40);
  for (const top of measuredReply.tops) {
    assert.equal(top.length, 100, "the worker's dense depth: the deepest fusion « Améliorer » reads");
    for (let i = 1; i < top.length; i++) assert.ok(top[i - 1][1] >= top[i][1], 'best first');
  }
  // The question searched alone gets exactly the top the measurement got for it.
  assert.deepEqual(replies.find((r) => r.kind === 'Dense' && r.ticket === 12).tops[0], measuredReply.tops[1]);
  assert.deepEqual(problems, []);
  await context.close();
});

test('with a profile on disk the exact rows live in one file of the origin-private file system per set, and a closed worker\'s file is removed by the next one', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPageIn(await launchWithProfile(), server.url);
  const seen = await page.evaluate(async ({ bytes, ids, fingerprint }) => {
    const files = async () => {
      const root = await navigator.storage.getDirectory();
      const dir = await root.getDirectoryHandle('rag-fiches-vecteurs', { create: true });
      const out = [];
      for await (const [name, handle] of dir.entries()) out.push([name, (await handle.getFile()).size]);
      return out.sort((a, b) => a[0].split('-')[1].localeCompare(b[0].split('-')[1]));
    };
    const load = async (set) => {
      const worker = new Worker('encodeur-demarrage.js');
      const reply = await new Promise((ok) => {
        worker.onmessage = (e) => {
          if (e.data.kind === 'Started') {
            worker.postMessage({ request: { kind: 'Vectors', set, ids_json: JSON.stringify(ids), fingerprint, npy: false }, blob: new Blob([new Uint8Array(bytes)]) });
          }
          if (/^Vectors/.test(e.data.kind)) ok(e.data);
        };
      });
      return { worker, reply };
    };
    const first = await load(1);
    const whileFirst = await files();
    const second = await load(2);
    const whileBoth = await files();
    first.worker.terminate();
    second.worker.terminate();
    const third = await load(3);
    const afterwards = await files();
    third.worker.terminate();
    return { kinds: [first.reply.kind, second.reply.kind, third.reply.kind], info: first.reply.info, whileFirst, whileBoth, afterwards };
  }, { bytes: [...vectors.bytes], ids: vectors.ids, fingerprint: vectors.fingerprint });
  assert.deepEqual(seen.kinds, ['Vectors', 'Vectors', 'Vectors']);
  const rows = 200 * 1024 * 2;
  // Only the int8 codes and their scales in the worker's memory.
  assert.deepEqual(seen.info, { model: 'mistral-embed', dim: 1024, count: 200, memory_bytes: 200 * 1024 + 200 * 4, stored_bytes: rows });
  assert.equal(seen.whileFirst.length, 1);
  assert.match(seen.whileFirst[0][0], /^[0-9a-f]{16}-1\.bin$/);
  assert.equal(seen.whileFirst[0][1], rows);
  // A live worker's file is locked: the second worker leaves it alone.
  assert.deepEqual(seen.whileBoth.map(([n, s]) => [n.split('-')[1], s]), [['1.bin', rows], ['2.bin', rows]]);
  // Both terminated: the third worker removes their files and keeps its own.
  assert.deepEqual(seen.afterwards.map(([n, s]) => [n.split('-')[1], s]), [['3.bin', rows]]);
  // The rows read back from the file score exactly as the rows kept in memory (incognito).
  const args = { bytes: [...vectors.bytes], ids: vectors.ids, fingerprint: vectors.fingerprint };
  const fromFile = await page.evaluate(searchInWorker, args);
  const memory = await openPage(browser, server.url);
  const fromMemory = await memory.page.evaluate(searchInWorker, args);
  assert.equal(fromFile.stored, rows);
  assert.equal(fromMemory.stored, 0);
  assert.equal(fromFile.tops.length, 8);
  assert.deepEqual(fromFile.tops, fromMemory.tops);
  assert.deepEqual(problems, []);
  assert.deepEqual(memory.problems, []);
  await memory.context.close();
  await context.close();
});

/** In the page: a worker (started by `starter`) loads the vectors (`bytes`, or fetched from
 *  `url`), searches `count` fixed directions, and is terminated. Returns its dense tops (ids and
 *  scores) and the bytes it stored outside its memory. */
async function searchInWorker({ bytes, url, ids, fingerprint, starter = 'encodeur-demarrage.js', count = 8 }) {
  const blob = url ? await (await fetch(url)).blob() : new Blob([new Uint8Array(bytes)]);
  const worker = new Worker(starter);
  const info = await new Promise((ok) => {
    worker.onmessage = (e) => {
      if (e.data.kind === 'Started') {
        worker.postMessage({ request: { kind: 'Vectors', set: 9, ids_json: JSON.stringify(ids), fingerprint, npy: false }, blob });
      }
      if (/^Vectors/.test(e.data.kind)) ok(e.data.info);
    };
  });
  let seed = 7;
  const next = () => { seed = (seed * 1103515245 + 12345) >>> 0; return seed / 2 ** 32 - 0.5; };
  const vectors = Array.from({ length: count }, () => Array.from({ length: 1024 }, next));
  const reply = await new Promise((ok) => {
    worker.onmessage = (e) => { if (e.data.ticket === 1) ok(e.data); };
    worker.postMessage({ request: { kind: 'Dense', set: 9, ticket: 1, vectors, question: false } });
  });
  worker.terminate();
  // The tops travel beside the reply: their fiches, scores and lengths (src/encoder/wire.rs).
  let at = 0;
  const tops = Array.from(reply.lens, (l) => Array.from({ length: l }, () => { at += 1; return [reply.docs[at - 1], reply.scores[at - 1]]; }));
  return { stored: info?.stored_bytes, tops };
}

test('where the engine compiles relaxed SIMD the worker scans with it, and both of its modules give the same dense tops where the first pass cuts (3,000 fiches)', { timeout: 120000 }, async () => {
  // More rows than the first pass keeps (8 × 200): the high planes' scan decides what is read next.
  const dir = await mkdtemp(join(tmpdir(), 'rag-fiches-'));
  const run = (bin, args) => promisify(execFile)(join(ROOT, 'target/release', bin), args, { cwd: ROOT });
  await run('catalogue', ['--fiches', '3000', '--questions', '40', '--out', dir]);
  await run('vecteurs', ['--embedder', 'fake', '--fiches', join(dir, 'fiches.jsonl'), '--questions', join(dir, 'questions.csv'), '--out', join(dir, 'fake.safetensors')]);
  const { bytes, header } = asMistralEmbed(await readFile(join(dir, 'fake.safetensors')));
  const ids = (await readFile(join(dir, 'fiches.jsonl'), 'utf8')).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).id);
  const { page, context, problems } = await openPage(browser, server.url);
  const modules = [];
  page.on('request', (r) => { const m = r.url().match(/\/(encodeur[^/]*)_bg\.wasm(\.gz)?$/); if (m) modules.push(m[1]); });
  // An engine without relaxed SIMD, as the starter sees it: its check says no.
  await page.route('**/encodeur-demarrage.js?sans-relaxed', async (route) => {
    const real = await route.fetch();
    const body = (await real.text()).replace('WebAssembly.validate(', '(() => false)(');
    assert.match(body, /\(\(\) => false\)\(/);
    await route.fulfill({ response: real, body });
  });
  // The file (6 MB) served to the page rather than passed through `evaluate`, which copies each
  // byte as a JSON number.
  await page.route('**/essai-3000.safetensors', (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: bytes }));
  const args = { url: 'essai-3000.safetensors', ids, fingerprint: header.__metadata__.fingerprint, count: 40 };
  const relaxed = await page.evaluate(searchInWorker, args);
  const baseline = await page.evaluate(searchInWorker, { ...args, starter: 'encodeur-demarrage.js?sans-relaxed' });
  // Chromium compiles relaxed SIMD: its worker is the second module; the other gets the first.
  assert.deepEqual(modules, ['encodeur-rapide', 'encodeur']);
  assert.equal(relaxed.tops.length, 40);
  assert.ok(relaxed.tops.every((top) => top.length === 100), "the worker's dense depth");
  assert.deepEqual(relaxed.tops, baseline.tops);
  assert.deepEqual(problems, []);
  await context.close();
});

test('shipped vectors held by the worker: sens and hybride measured without a key, the same figures as the terminal, and the typed question answered from the measured tops', { timeout: 60000 }, async () => {
  const shipped = await serveShipped();
  const { page, context, problems } = await openPage(browser, null);
  await page.addInitScript(() => {
    window.sent = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (m, ...rest) {
      // A measurement's vectors go beside the request, one Float32Array of `dim` values per row.
      window.sent.push({ kind: m?.request?.kind, question: m?.request?.question, n: m?.flat ? m.flat.length / m.dim : m?.request?.vectors?.length, inside: m?.request?.vectors?.length });
      return post.call(this, m, ...rest);
    };
  });
  await page.goto(shipped.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => /livrés avec la page \(vecteurs\.safetensors\)/.test(document.querySelector('#vecteurs-etat').textContent));
  assert.match(await page.textContent('#vecteurs-etat'), /^Vecteurs des fiches\s: 200 × 1024 \(mistral-embed\), livrés avec la page/);
  // Every question's vector came with the file: the page measures the dense methods at once.
  await page.click('#onglet-mesurer');
  await page.waitForSelector('table.comparaison tr[data-methode="hybride+"]');
  const exactes = page.locator('table.comparaison[data-type="exacte"]');
  const courantes = page.locator('table.comparaison[data-type="courante"]');
  // The terminal, on the same fiche and question vectors (seed 001's embedder, its own name).
  const { stdout } = await promisify(execFile)(join(ROOT, 'target/release/mesurer'),
    ['sens', '--embedder', 'fake', '--vectors', vectors.path], { cwd: ROOT });
  const [, e1, e5] = stdout.match(/exactes\s: 15\s; bonne fiche en tête\s: (\d+)\s; dans les 5 premières\s: (\d+)/);
  const [, c1, c5] = stdout.match(/courantes\s: 20\s; bonne fiche en tête\s: (\d+)\s; dans les 5 premières\s: (\d+)/);
  assert.equal(await ranked(exactes.locator('tr[data-methode="sens"] .hit1')), `${e1}/15`);
  assert.equal(await ranked(exactes.locator('tr[data-methode="sens"] .hit5')), `${e5}/15`);
  assert.equal(await ranked(courantes.locator('tr[data-methode="sens"] .hit1')), `${c1}/20`);
  assert.equal(await ranked(courantes.locator('tr[data-methode="sens"] .hit5')), `${c5}/20`);
  // An exercise question in « Chercher »: its top was measured, so no new request.
  await page.click('#onglet-chercher');
  await pickExample(page, 'Un isolant qui ne brûle pas');
  await page.waitForFunction(() => document.querySelectorAll('#colonne-sens li.resultat').length === 5
    && document.querySelectorAll('#colonne-hybride li.resultat').length === 5);
  const sent = await page.evaluate(() => window.sent);
  assert.deepEqual(sent.map((m) => [m.kind, m.question, m.n, m.inside]), [['Vectors', undefined, undefined, undefined], ['Dense', false, 40, 0]]);
  assert.deepEqual(problems, []);
  await context.close();
  await shipped.close();
});

test('a worker that cannot start loses the vectors in French; keyword search goes on', { timeout: 60000 }, async () => {
  const shipped = await serveShipped();
  const { page, context, problems } = await openPage(browser, null);
  await page.route('**/encodeur*_bg.wasm*', (route) => route.fulfill({ status: 200, contentType: 'application/wasm', body: 'pas du wasm' }));
  await page.goto(shipped.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => /Vecteurs perdus|arrêté/.test(document.querySelector('#vecteurs-etat').textContent));
  assert.match(await page.textContent('#vecteurs-etat'), /arrière-plan s'est arrêté/);
  await pickExample(page, 'Un isolant qui ne brûle pas');
  await page.waitForFunction(() => document.querySelectorAll('#colonne-mots li.resultat').length === 5);
  assert.deepEqual(problems, []);
  await context.close();
  await shipped.close();
});
