// The learner's path in the three engines a learner's browser runs on (engines.mjs): Chromium,
// Firefox ESR and WebKit (WebKitGTK, Safari's engine family). Each engine gets the same steps and
// must give the same fiche ids and « Mesurer » figures, with nothing going wrong in the page (the
// recorder's log, plus the engine's own console where it can be read). Then what only WebKit
// showed (../shared/reports/cross-browser-2026-12-04.md): no `navigator.storage`, a private
// window that refuses to store a Blob, JavaScriptCore with relaxed SIMD on and without SIMD.
//
// WebKit's WebDriver sessions keep their data in an ephemeral store, as a private window does;
// MiniBrowser's window is at least 447 px wide, so its « phone » is 447 px. Every engine's
// version and the tests it ran are printed at the end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDist, LOCAL_MODEL, localModelPresent, asMistralEmbed, forgedBlock } from './harness.mjs';
import { ENGINES, missing, startEngine, RECORDER, withRecorder, SAFARI_STORAGE } from './engines.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The build under test (RAG_FICHES_DIST=dist-old runs these tests on an older build). */
const DIST = process.env.RAG_FICHES_DIST ?? 'dist';
const ran = Object.fromEntries(ENGINES.map((e) => [e, []]));
let server;
// What the server answers instead of the build, and the faults it injects: set by a test,
// cleared by it (the engines run one after the other).
const overrides = {};
const faults = {};
const engines = {};
/** Each engine's version, as its first page reported it. */
const versions = {};

before(async () => {
  const html = withRecorder(await readFile(join(ROOT, DIST, 'index.html'), 'utf8'));
  Object.assign(overrides, { 'index.html': html, '__enregistreur.js': RECORDER });
  server = await serveDist({ dir: DIST, overrides, faults });
});

after(async () => {
  for (const e of Object.values(engines)) await e.close();
  await server?.close();
  for (const engine of ENGINES) {
    const version = engines[engine]?.version ?? versions[engine] ?? missing(engine) ?? 'not started';
    console.log(`[browsers] ${engine} (${version}): ${ran[engine].length} tests: ${ran[engine].join(' | ')}`);
  }
});

/** Declares `name` in every engine of `only` (all by default); skipped loudly where the engine is
 *  missing, a failure under CI=true. */
function inEngines(name, body, { only = ENGINES, options = {} } = {}) {
  for (const engine of only) {
    const why = missing(engine);
    if (why && process.env.CI === 'true') {
      test(`${engine}: ${name}`, () => assert.fail(`${engine}: ${why}`));
      continue;
    }
    test(`${engine}: ${name}`, { skip: why ? `*** SKIPPED: ${why} ***` : false, ...options }, async () => {
      engines[engine] ??= await startEngine(engine);
      try {
        await body(engines[engine], engine);
        ran[engine].push(name);
      } finally {
        // A failed test's pages are closed: the next test gets its own (WebKit holds one).
        await engines[engine].closeAll();
      }
    });
  }
}

/** Only the requests of the page made since `from` (an index into the server's log). */
const since = (from) => server.requests.slice(from);
const count = (list, path) => list.filter((p) => p === path).length;
const ids = (tab, method) => tab.until((m) => {
  const col = document.querySelector(`.colonne[data-methode="${m}"]`);
  if (!col || col.getAttribute('aria-busy')) return null;
  const list = [...col.querySelectorAll('li.resultat')].map((li) => li.dataset.id);
  return list.length ? list.join(' ') : null;
}, { args: [method], timeout: 120000, what: `${method}'s results` });

async function openReady(engine, options) {
  const tab = await engine.open(options);
  await tab.goto(server.url);
  await tab.ready();
  return tab;
}

const FIGURE = (method, kind, col) => `.methode[data-methode="${method}"] tr[data-type="${kind}"] .${col}`;

inEngines('the learner\'s path: keyword columns, the local methods, « Mesurer », a shared link', async (engine) => {
  const from = server.requests.length;
  const tab = await openReady(engine);
  // Each file the first result needs is fetched once (WebKit ignored the preloads: three times).
  // The page's own requests: up to its service worker's, whose install is the test below's.
  const all = since(from);
  const load = all.includes('/sw.js') ? all.slice(0, all.indexOf('/sw.js')) : all;
  for (const path of ['/data/fiches.jsonl', '/data/questions.csv', '/data/manifeste.json']) {
    assert.equal(count(load, path), 1, `${path} requested ${count(load, path)} times: ${load.join(' ')}`);
  }
  const wasm = load.filter((p) => /^\/premier-[0-9a-f]+_bg\.wasm$/.test(p));
  assert.equal(wasm.length, 1, `the first module's wasm requested ${wasm.length} times`);

  await tab.type('#question', 'Un isolant qui ne brûle pas', { enter: true });
  assert.equal(await ids(tab, 'mots'), 'AR-0072 AR-0071 AR-0070 AR-0069 AR-0068');
  assert.equal(await ids(tab, 'mots+'), 'AR-0064 AR-0063 AR-0062 AR-0061 AR-0072');
  await tab.click('#indisponibles #essayer-local');
  assert.equal(await ids(tab, 'sens local'), 'AR-0062 AR-0063 AR-0064 AR-0061 AR-0079');
  assert.equal(await ids(tab, 'hybride local'), 'AR-0064 AR-0062 AR-0063 AR-0061 AR-0072');

  await tab.click('#onglet-mesurer');
  const figure = (method, kind, col, page = tab) => page.until((sel) => document.querySelector(sel)?.firstChild?.textContent,
    { args: [FIGURE(method, kind, col)], timeout: 60000 });
  assert.equal(await figure('mots', 'exacte', 'hit1'), '15/15');
  assert.equal(await figure('mots', 'courante', 'hit1'), '8/20');
  assert.equal(await figure('mots', 'courante', 'hit5'), '15/20');
  assert.equal(await figure('mots+', 'courante', 'hit5'), '19/20');
  assert.equal(await figure('sens local', 'courante', 'hit1'), '11/20');
  assert.equal(await figure('sens local', 'exacte', 'hit1'), '14/15');
  // This deploy publishes no answers computed in advance: what they would show is said.
  const none = await tab.until(() => document.querySelector('#reponses-livrees [data-reponses-absentes]')?.textContent);
  assert.match(none, /^Ce site n'en publie pas\. .*aux 40 questions .*Mesurer les réponses/);

  // The link of this view, opened in a new page, opens the same view with the same methods.
  await tab.click('#copier-lien');
  const link = await tab.until(() => document.querySelector('#lien')?.value);
  assert.doesNotMatch(link, /cle|key/i);
  const said = await tab.until(() => document.querySelector('#lien-etat')?.textContent);
  assert.match(said, /^(Lien copié|Copiez ce lien)\u00a0: il garde la vue, la question et les méthodes, jamais la clé\.$/);
  assert.deepEqual(await tab.problems(), []);
  // One page at a time: WebKitWebDriver holds one session.
  await tab.close();
  const other = await engine.open();
  await other.goto(link);
  await other.ready();
  await other.until(() => document.querySelector('#onglet-mesurer')?.getAttribute('aria-selected') === 'true');
  assert.equal(await other.run(() => new URLSearchParams(location.hash.slice(1)).get('m')), 'mots,mots+,sens,hybride,sens local,hybride local');
  assert.equal(await figure('sens local', 'courante', 'hit1', other), '11/20');
  assert.deepEqual(await other.problems(), []);
  await other.close();
});

inEngines('rt4-r4 the page kept by its service worker: after one visit, offline, a reload opens it and mots+ answers; the visit downloads nothing more for it but, in WebKit, the page\'s own files again', async (engine, name) => {
  // A server of its own (another origin, so a first visit), without caching headers: offline, the
  // browser's HTTP cache cannot stand in for the service worker.
  const own = await serveDist({ dir: DIST, overrides });
  try {
    const tab = await engine.open();
    await tab.goto(own.url);
    await tab.ready();
    const kept = await tab.until(async () => {
      if (!navigator.serviceWorker?.controller) return null;
      const name = (await caches.keys()).find((k) => k.startsWith('rag-fiches-site-'));
      if (!name) return null;
      const scope = new URL('./', location.href).href;
      const keys = (await (await caches.open(name)).keys()).map((r) => `/${r.url.slice(scope.length)}`);
      return keys.includes('/rag-fiches_bg.wasm') && keys.includes('/') ? keys : null;
    }, { timeout: 30000, what: 'the service worker in control, the page kept' }).catch(async (e) => {
      const why = await tab.run(async () => JSON.stringify({ controlled: Boolean(navigator.serviceWorker?.controller), caches: await caches.keys() }));
      throw new Error(`${e.message}: ${why}; requests: ${own.requests.join(' ')}`);
    });
    const requested = own.requests.slice();
    assert.deepEqual(requested.filter((p) => p.startsWith('/encodeur')), [], `the local encoder's files were downloaded for a visit that did not use them: ${requested.join(' ')}`);
    const twice = [...new Set(requested)].filter((p) => count(requested, p) > 1);
    if (name === 'webkit') {
      // WebKit's service worker does not read the page's HTTP cache: its install downloads the
      // page's files once more (once per deploy).
      assert.ok(twice.every((p) => kept.includes(p)), `${twice.join(' ')}`);
    } else {
      assert.deepEqual(twice, [], `requested twice: ${requested.join(' ')}`);
    }
    assert.deepEqual(await tab.problems(), []);
    await own.close();
    await tab.reload();
    await tab.type('#question', 'Un isolant qui ne brûle pas');
    assert.match(await ids(tab, 'mots+'), /^AR-0064 /);
    // Offline, the tests' recorder (a script of their own, not the page's) cannot load, nor can
    // the service worker's update check: nothing else may fail (offline.test.mjs reads Chromium's
    // whole console there).
    const others = (await tab.problems()).filter((p) => p !== 'the recorder did not run' && !/Failed to load resource: net::ERR_CONNECTION_REFUSED/.test(p));
    assert.deepEqual(others, []);
  } finally {
    await own.close();
  }
});

inEngines('on a phone, the effect of each of the seed\'s three fixes is in sight without scrolling', async (engine) => {
  const tab = await engine.open({ width: 390, height: 844 });
  await tab.goto(`${server.url}#vue=ameliorer`);
  await tab.ready();
  const effect = () => document.querySelector('#ameliorer-effet:not([hidden])')?.textContent;
  let said = await tab.until(effect, { timeout: 60000 });
  // The summary's box inside the window, and its text changed by the change just made.
  const inSight = async (what) => {
    said = await tab.until((before) => {
      const now = document.querySelector('#ameliorer-effet:not([hidden])')?.textContent;
      return now && now !== before ? now : null;
    }, { args: [said], timeout: 60000, what });
    const box = await tab.run(() => {
      const r = document.querySelector('#ameliorer-effet').getBoundingClientRect();
      return [r.top, r.bottom, window.innerHeight];
    });
    assert.ok(box[0] >= 0 && box[1] <= box[2] + 0.5, `${what}: the summary is at ${box[0]}–${box[1]} in a window of ${box[2]}`);
    return said;
  };
  // The learner scrolls to the control, as on a phone, then uses it.
  const reach = (selector) => tab.run((s) => document.querySelector(s).scrollIntoView({ block: 'center' }), selector);
  // 1. Stems: « racine (Snowball) ».
  await reach('#ameliorer-racine');
  await tab.click('#ameliorer-racine');
  assert.match(await inSight('racine'), /question.? remontée/);
  // 2. The fiche enriched with the customers' words.
  await reach('#ameliorer-fiche');
  await tab.type('#ameliorer-fiche', 'AR-0063');
  await tab.type('#ameliorer-ajout', 'ne brûle pas');
  await tab.click('[data-ameliorer="enrichir"]');
  await inSight('enrichment');
  // 3. The fusion: starting from hybride local.
  await reach('#ameliorer-methode');
  await tab.run(() => {
    const select = document.querySelector('#ameliorer-methode');
    select.value = 'hybride local';
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
  assert.match(await inSight('fusion'), /^Courantes\u00a0: en tête \d+\/20 → \d+\/20/);
  assert.deepEqual(await tab.problems(), []);
});

inEngines('the first screen of a phone shows the question box, the guide folded; a laptop\'s shows the guide, which names « Améliorer »', async (engine) => {
  const phone = await openReady(engine, { width: 390, height: 844 });
  const first = await phone.run(() => {
    const box = document.querySelector('#question').getBoundingClientRect();
    return [document.querySelector('#commencer-guide').open, box.bottom, window.innerHeight];
  });
  assert.equal(first[0], false, 'the guide is folded on a phone');
  assert.ok(first[1] <= first[2], `the question box ends at ${first[1]} in a window of ${first[2]}`);
  assert.deepEqual(await phone.problems(), []);
  await phone.close();
  const laptop = await openReady(engine);
  const guide = await laptop.run(() => [document.querySelector('#commencer-guide').open, document.querySelector('#commencer ol').textContent]);
  assert.equal(guide[0], true);
  assert.match(guide[1], /l'étape de l'exercice, «\u202fAméliorer\u202f»/);
  assert.deepEqual(await laptop.problems(), []);
});

inEngines('a question typed once the page is ready leaves the results undimmed', async (engine) => {
  const tab = await openReady(engine);
  await tab.type('#question', 'isolant');
  assert.match(await ids(tab, 'mots'), /^AR-\d{4}/);
  await new Promise((ok) => setTimeout(ok, 500));
  assert.deepEqual(await tab.run(() => [document.querySelector('#resultats').getAttribute('aria-busy'), getComputedStyle(document.querySelector('#resultats')).opacity]), [null, '1']);
  assert.deepEqual(await tab.problems(), []);
});

inEngines('a typed question with the local model: downloaded once, kept, not fetched again after a reload', async (engine, name) => {
  if (!localModelPresent(`${name}: the local model's download and cache`)) return;
  const tab = await openReady(engine);
  const from = server.requests.length;
  await tab.click('#indisponibles #essayer-local');
  await tab.type('#question', 'Une colle pour la faïence de la cuisine', { enter: true });
  assert.equal(await ids(tab, 'sens local'), 'AR-0023 AR-0024 AR-0020 AR-0019 AR-0146');
  assert.equal(await ids(tab, 'hybride local'), 'AR-0024 AR-0023 AR-0019 AR-0032 AR-0020');
  // Kept: in WebKit's private store as its bytes, the Blob being refused there.
  const kept = await tab.until(() => new Promise((ok) => {
    const open = indexedDB.open('rag-fiches');
    open.onerror = () => ok(null);
    open.onsuccess = () => {
      const db = open.result;
      const stores = [...db.objectStoreNames].filter((s) => /mod/i.test(s));
      if (!stores.length) { ok(null); return; }
      const all = db.transaction(stores[0]).objectStore(stores[0]).getAll();
      all.onsuccess = () => ok(all.result.map((v) => (v instanceof Blob ? v.size : v.byteLength)).filter((n) => n > 1e6).join(',') || null);
      all.onerror = () => ok(null);
    };
  }), { timeout: 60000, what: 'the model in IndexedDB' });
  assert.equal(kept, String(statSync(join(ROOT, DIST, LOCAL_MODEL)).size), 'the model\'s head kept');
  await tab.reload();
  await tab.type('#question', 'Isoler les combles en soufflant', { enter: true });
  assert.match(await ids(tab, 'sens local'), /^AR-\d{4}( AR-\d{4}){4}$/);
  assert.equal(count(since(from), `/${LOCAL_MODEL}`), 1, `model requests: ${since(from).join(' ')}`);
  // Each block of rows fetched once: a reload reads those it has from Cache Storage.
  const blocks = since(from).filter((p) => p.includes('/modele-local/lignes/'));
  assert.ok(blocks.length > 0 && new Set(blocks).size === blocks.length, `blocks: ${blocks.join(' ')}`);
  // The worker's module and glue came gzipped (DecompressionStream), not as the plain files,
  // at both loads.
  const worker = since(from).filter((p) => /\/encodeur[^/]*\.(js|wasm)(\.gz)?$/.test(p) && !p.endsWith('-demarrage.js'));
  assert.ok(worker.length === 4 && worker.every((p) => p.endsWith('.gz')), `worker files: ${worker.join(' ')}`);
  assert.equal(await tab.run(() => document.querySelector('#resultats').textContent.includes('sans être gardé')), false);
  assert.deepEqual(await tab.problems(), []);
  await tab.close();
});

const BLOCKS = 'data/modele-local/lignes/';
/** The top 5 `mesurer sens-local --question` prints. */
async function terminalTop(question) {
  const { stdout } = await promisify(execFile)(join(ROOT, 'target/release/mesurer'),
    ['sens-local', '--question', question], { cwd: ROOT });
  return [...stdout.matchAll(/^\s*\d+\.\s+(\S+)/gm)].map((m) => m[1]).join(' ');
}
/** Deletes the blocks' caches an earlier test of this engine filled (where it has Cache Storage). */
const forgetBlocks = (tab) => tab.run(async () => {
  if (typeof caches === 'undefined') return;
  for (const key of await caches.keys()) if (key.startsWith('rag-fiches-lignes-')) await caches.delete(key);
});
/** Cache Storage's entries for block `name`, or null where the engine has no Cache Storage. */
const cachedAs = (tab, name) => tab.run(async (n) => {
  if (typeof caches === 'undefined') return null;
  const found = [];
  for (const key of await caches.keys()) {
    const cache = await caches.open(key);
    for (const r of await cache.keys()) if (r.url.endsWith(`/${n}`)) found.push(`${key} ${r.url}`);
  }
  return found;
}, name);
const saidUnavailable = (tab, pattern) => tab.until((p) => {
  const text = document.querySelector('#indisponibles')?.textContent ?? '';
  return new RegExp(p).test(text) ? text : null;
}, { args: [pattern.source], timeout: 90000, what: `#indisponibles saying ${pattern}` });
/** Waits for sens local's column to list `want` (space-separated ids). */
const expectTop = async (tab, want) => {
  try {
    await tab.until((w) => [...document.querySelectorAll('#colonne-sens-local li.resultat')]
      .map((li) => li.dataset.id).join(' ') === w, { args: [want], timeout: 120000, what: `sens local: ${want}` });
  } catch (e) {
    const got = await tab.run(() => [...document.querySelectorAll('#colonne-sens-local li.resultat')].map((li) => li.dataset.id).join(' '));
    assert.fail(`sens local lists ${got}, the terminal ${want} (${e.message})`);
  }
};
const Q1 = 'Quel mortier pour monter un mur en parpaings ?';
const Q2 = 'Un produit pour traiter une charpente contre les insectes';

inEngines('rt4-r3 a block forged with this table\'s header and a recomputed checksum is refused, said and never kept; a forged copy in the cache is refused and fetched again', async (engine, name) => {
  if (!localModelPresent(`${name}: rt4-r3`)) return;
  const FORGED = `${BLOCKS}00012.xz`;
  const tab = await openReady(engine);
  try {
    await forgetBlocks(tab);
    overrides[FORGED] = forgedBlock(12, DIST);
    await tab.click('#indisponibles #essayer-local');
    await tab.type('#question', Q2, { enter: true });
    const said = await saidUnavailable(tab, /le bloc 12 des lignes du modèle n'a pas pu être chargé/);
    assert.match(said, /différent de celui que nomme la tête du modèle/);
    assert.equal(await tab.run(() => document.querySelectorAll('#colonne-sens-local li.resultat').length), 0);
    const kept = await cachedAs(tab, '00012.xz');
    assert.ok(kept === null || kept.length === 0, `the forged block kept: ${kept}`);
    delete overrides[FORGED];
    const want2 = await terminalTop(Q2);
    await tab.type('#question', Q1, { enter: true });
    await expectTop(tab, await terminalTop(Q1));
    await tab.type('#question', Q2, { enter: true });
    await expectTop(tab, want2);
    const [entry] = (await cachedAs(tab, '00012.xz')) ?? [];
    if (entry) {
      // A forged copy in the cache (as the red team's build kept it): refused on reading.
      const [cache, url] = entry.split(' ');
      await tab.run(async (c, u, bytes) => {
        await (await caches.open(c)).put(u, new Response(new Uint8Array(bytes)));
      }, cache, url, [...forgedBlock(12, DIST)]);
      await tab.reload();
      const from = server.requests.length;
      await tab.run(() => document.querySelector('#indisponibles #essayer-local')?.click());
      await tab.type('#question', Q2, { enter: true });
      await expectTop(tab, want2);
      assert.ok(since(from).some((p) => p.endsWith('/lignes/00012.xz')), 'block 12 fetched again');
    }
    assert.deepEqual(await tab.problems(), []);
  } finally {
    delete overrides[FORGED];
    await tab.close();
  }
}, { only: ['firefox', 'webkit'] });

inEngines('rt4-r5 blocks that hang: the waiting column says so inside itself and drops the previous results; the next question after the site heals is right', async (engine, name) => {
  if (!localModelPresent(`${name}: rt4-r5`)) return;
  const tab = await openReady(engine);
  try {
    await forgetBlocks(tab);
    await tab.click('#indisponibles #essayer-local');
    await tab.type('#question', Q1, { enter: true });
    await expectTop(tab, await terminalTop(Q1));
    faults[BLOCKS] = { prefix: true, kind: 'hang', times: 1000 };
    await tab.type('#question', Q2, { enter: true });
    await tab.until(() => {
      const col = document.querySelector('#colonne-sens-local');
      const line = col?.querySelector('.attente-lignes');
      const list = col?.querySelector('ol.resultats');
      const shown = (el) => Boolean(el) && getComputedStyle(el).visibility === 'visible'
        && el.getBoundingClientRect().height > 0;
      return shown(line) && /Chargement des lignes du modèle local pour cette question/.test(line.textContent)
        && !shown(list);
    }, { timeout: 20000, what: 'the waiting line in place of the previous results' });
    faults[BLOCKS].times = 0;
    server.release();
    const want2 = await terminalTop(Q2);
    await tab.type('#question', Q1, { enter: true });
    await tab.type('#question', Q2, { enter: true });
    await expectTop(tab, want2);
    const others = (await tab.problems()).filter((p) => !p.includes(BLOCKS));
    assert.deepEqual(others, []);
  } finally {
    delete faults[BLOCKS];
    await tab.close();
  }
}, { only: ['firefox', 'webkit'] });

/** The exercise's catalogue with a vectors file of the fake embedder (1024 values, its header saying
 *  mistral-embed), fiches' and questions' vectors: what « Vos données » takes from a developer. */
async function ownFiles() {
  const dir = await mkdtemp(join(tmpdir(), 'rag-fiches-vos-'));
  const out = join(dir, 'v.safetensors');
  await promisify(execFile)(join(ROOT, 'target/release/vecteurs'), ['--embedder', 'fake', '--out', out], { cwd: ROOT });
  const { bytes } = asMistralEmbed(await readFile(out));
  await writeFile(out, bytes);
  return [
    { name: 'mes-fiches.jsonl', bytes: await readFile(join(ROOT, 'data/fiches.jsonl')) },
    { name: 'mes-questions.csv', bytes: await readFile(join(ROOT, 'data/questions.csv')) },
    { name: 'mes-vecteurs.safetensors', bytes },
  ];
}

async function ownData(engine) {
  const tab = await openReady(engine);
  await tab.run(() => { document.querySelector('#reglages').open = true; });
  await tab.files('#fichiers', await ownFiles());
  await tab.until(() => /vos données/.test(document.querySelector('#resume').textContent)
    || document.querySelector('#donnees-erreurs')?.textContent, { timeout: 60000 });
  assert.equal(await tab.run(() => document.querySelector('#donnees-erreurs').textContent), '');
  assert.match(await tab.run(() => document.querySelector('#vecteurs-etat').textContent),
    /200 × 1024 \(mistral-embed\), chargés depuis mes-vecteurs\.safetensors/);
  await tab.click('#onglet-mesurer');
  const hit5 = await tab.until((sel) => document.querySelector(sel)?.firstChild?.textContent,
    { args: [FIGURE('sens', 'courante', 'hit5')], timeout: 60000 });
  assert.match(hit5, /^\d+\/20$/);
  assert.deepEqual(await tab.problems(), []);
  await tab.close();
}

inEngines('« Vos données » with a vectors file: kept by the worker, measured without a key', ownData);

/** Declares `name` in a WebKit of its own, started with `setup` (JavaScriptCore's flags in `env`,
 *  MiniBrowser's `features`): what only some Safari versions or settings show. */
function inWebKit(name, setup, body) {
  test(`webkit ${name}`, { skip: missing('webkit') ?? false }, async () => {
    const engine = await startEngine('webkit', setup);
    try {
      await body(engine);
      ran.webkit.push(name);
      versions.webkit ??= engine.version;
    } finally {
      await engine.close();
    }
  });
}

// WebKitGTK's defaults have no `navigator.storage` (the worker died there); with Safari's storage
// features on, the API exists and fails in an ephemeral session (the fallback ran already).
inWebKit('with Safari\'s storage features: « Vos données » with a vectors file', { features: SAFARI_STORAGE }, ownData);

// JavaScriptCore with relaxed SIMD on (off in Safari by default) validated the older probe's
// instruction and refused the fast worker's: the local columns disappeared.
inWebKit('with relaxed SIMD on: the local columns work', { env: { JSC_useWasmRelaxedSIMD: 'true' } }, async (engine) => {
  if (!localModelPresent('webkit with relaxed SIMD on')) return;
  const tab = await openReady(engine);
  // A typed question: the worker (and its model) embeds it.
  await tab.click('#indisponibles #essayer-local');
  await tab.type('#question', 'Une colle pour la faïence de la cuisine', { enter: true });
  assert.equal(await ids(tab, 'sens local'), 'AR-0023 AR-0024 AR-0020 AR-0019 AR-0146');
  assert.deepEqual(await tab.problems(), []);
  await tab.close();
});

// Without wasm SIMD (Safari before 16.4) no module compiles: the page says so, in French.
inWebKit('without wasm SIMD: the page says which browsers work', { env: { JSC_useWasmSIMD: 'false' } }, async (engine) => {
  const tab = await engine.open();
  await tab.goto(server.url);
  const said = await tab.until(() => {
    const alert = document.querySelector('#erreur');
    return alert && !alert.hidden && alert.textContent;
  }, { timeout: 15000, what: 'the message of #erreur' });
  assert.match(said, /il lui manque WebAssembly SIMD\. Il faut Safari 16\.4 ou plus récent/);
  assert.equal(await tab.run(() => document.body.dataset.incompatible), 'simd');
  assert.equal(await tab.run(() => document.querySelector('#resume').textContent), 'Navigateur trop ancien pour ce laboratoire.');
  // What goes wrong is the modules' refusal, and only that.
  const problems = await tab.problems();
  assert.ok(problems.every((p) => /CompileError|simd/i.test(p)), problems.join('\n'));
  await tab.close();
});

/** The texts that come from data (fiches, questions): shown as they are, not the page's French. */
async function dataTexts() {
  const fiches = (await readFile(join(ROOT, 'data/fiches.jsonl'), 'utf8')).split('\n').filter((l) => l.trim())
    .map((l) => JSON.parse(l)).flatMap((f) => [f.texte, f.nom, f.famille]);
  const questions = (await readFile(join(ROOT, 'data/questions.csv'), 'utf8')).split('\n').slice(1)
    .map((l) => l.split(';')[1]).filter(Boolean);
  return [...fiches, ...questions].sort((a, b) => b.length - a.length);
}

/** What breaks French typography in the page's text (data texts taken out first): a breaking
 *  space before « : ; ? ! » or inside « », as excerpts. Verbatim texts (`pre`: the seed's report
 *  format, byte for byte, and the exact request sent to Mistral) are shown as they are. */
function typographyFaults(data) {
  const app = document.querySelector('#app').cloneNode(true);
  app.querySelectorAll('pre').forEach((p) => p.remove());
  let text = app.textContent;
  for (const d of data) text = text.split(d).join('§');
  text = text.replace(/[ \t\n\r]+/g, ' ');
  const faults = [];
  for (const m of text.matchAll(/ [:;?!»]|« /g)) faults.push(text.slice(Math.max(0, m.index - 30), m.index + 10));
  return faults;
}

inEngines('the page\'s own French keeps its no-break spaces, and « Copier le lien » and the legend fit a phone', async (engine) => {
  const data = await dataTexts();
  const tab = await engine.open({ width: 390, height: 844 });
  await tab.goto(`${server.url}#q=${encodeURIComponent('Un isolant qui ne brûle pas')}&m=mots,mots%2B,sens%20local,hybride%20local`);
  await tab.ready();
  await ids(tab, 'sens local');
  await tab.run(() => document.querySelectorAll('details.pourquoi').forEach((d) => { d.open = true; }));
  const faults = [];
  faults.push(...await tab.run(typographyFaults, data));
  // « Copier le lien » on one line (a range over its text has one box per line).
  const lines = await tab.run(() => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector('#copier-lien'));
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });
  assert.equal(lines, 1, '« Copier le lien » wraps');
  await tab.click('#onglet-mesurer');
  await tab.until(() => Boolean(document.querySelector('.legende-barres')), { timeout: 60000 });
  faults.push(...await tab.run(typographyFaults, data));
  // Each swatch of the chart's legend on the line of its words.
  const split = await tab.run(() => [...document.querySelectorAll('.legende-barres .entree')].filter((e) => {
    const swatch = e.querySelector('.cle').getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(e.lastChild);
    const words = range.getBoundingClientRect();
    const middle = (swatch.top + swatch.bottom) / 2;
    return middle < words.top || middle > words.bottom;
  }).length);
  assert.equal(split, 0, 'a legend swatch is split from its words');
  await tab.click('#onglet-ameliorer');
  await tab.until(() => Boolean(document.querySelector('#vue-ameliorer table')), { timeout: 60000 });
  faults.push(...await tab.run(typographyFaults, data));
  assert.deepEqual([...new Set(faults)], []);
  assert.deepEqual(await tab.problems(), []);
  await tab.close();
});

inEngines('« Mesurer » shows the graded figures the terminal prints, and on a phone their table needs no sideways scroll', async (engine, name) => {
  for (const [width, height] of [[1366, 900], [390, 844]]) {
    const tab = await engine.open({ width, height });
    await tab.goto(`${server.url}#vue=mesurer`);
    await tab.ready();
    const rows = await tab.until(() => {
      const table = document.querySelector('table.graduee');
      if (!table) return null;
      return [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent));
    }, { timeout: 60000, what: 'the graded table' });
    // `mesurer --all --qrels data/qrels-graduees.txt`: mots 0.853 0.914 0.214, mots+ 0.962 1.000 0.234.
    assert.deepEqual(rows.find((r) => r[0] === 'mots'), ['mots', '0,85', '0,91', '0,21']);
    assert.deepEqual(rows.find((r) => r[0] === 'mots+'), ['mots+', '0,96', '1,00', '0,23']);
    const caption = await tab.run(() => document.querySelector('table.graduee caption').textContent);
    assert.equal(caption, 'Mesures graduées sur les 10 premières (35)');
    // The table inside its box, and the box inside the page: nothing to scroll sideways.
    const widths = await tab.run(() => {
      const table = document.querySelector('table.graduee');
      const box = table.parentElement;
      return [table.getBoundingClientRect().width, box.clientWidth, box.scrollWidth,
        document.documentElement.scrollWidth, window.innerWidth];
    });
    assert.ok(widths[0] <= widths[1] + 1 && widths[2] <= widths[1] + 1,
      `${width} px: the graded table is ${widths[0]} px wide in a box of ${widths[1]} (scroll ${widths[2]})`);
    assert.ok(widths[3] <= widths[4] + 1, `${width} px: the page scrolls sideways (${widths[3]} in ${widths[4]})`);
    await tab.run(() => document.querySelector('.graduees').scrollIntoView());
    await tab.screenshot(join(tmpdir(), `graduees-${name}-${width}.png`));
    assert.deepEqual(await tab.problems(), []);
    await tab.close();
  }
});

/** « L'épreuve »'s table after « racine » from `mots`: `mesurer mots` and `mesurer --reglages`
 *  (mots with stems) on the 40 questions and with `--questions data/epreuve.csv`, their
 *  courantes in the top 5 and MRR@10 (0.5675 → 0.7583 and 0.6957 → 0.8113). */
const EPREUVE_ROWS = [
  ['les 40 questions\u00a0: dans les 5 premières', '15/20', '19/20', '+4'],
  ['les 40 questions\u00a0: MRR@10', '0,568', '0,758', '+0,191'],
  ['l\'épreuve\u00a0: dans les 5 premières', '32/40', '37/40', '+5'],
  ['l\'épreuve\u00a0: MRR@10', '0,696', '0,811', '+0,116'],
];

inEngines('« L\'épreuve » is passed on request: the settings measured on questions never seen, as the terminal measures them; it, the history and the sweep readable on a phone', async (engine, name) => {
  for (const [width, height] of [[1366, 900], [390, 844]]) {
    const tab = await engine.open({ width, height });
    await tab.goto(`${server.url}#vue=ameliorer`);
    await tab.ready();
    await tab.until(() => document.querySelector('#ameliorer-effet:not([hidden])')?.textContent, { timeout: 60000, what: 'the first measurement' });
    // Kept apart: no figure of it before the learner asks.
    assert.equal(await tab.run(() => document.querySelector('#ameliorer-epreuve-chiffres')), null);
    const before = await tab.run(() => document.querySelector('#ameliorer-effet').textContent);
    await tab.run(() => document.querySelector('#ameliorer-racine').scrollIntoView({ block: 'center' }));
    await tab.click('#ameliorer-racine');
    await tab.until((was) => {
      const now = document.querySelector('#ameliorer-effet:not([hidden])')?.textContent;
      return now && now !== was ? now : null;
    }, { args: [before], timeout: 60000, what: 'racine measured' });
    await tab.run(() => document.querySelector('[data-ameliorer="epreuve"]').scrollIntoView({ block: 'center' }));
    await tab.click('[data-ameliorer="epreuve"]');
    const rows = await tab.until(() => {
      const table = document.querySelector('#ameliorer-epreuve-chiffres');
      if (!table) return null;
      return [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent));
    }, { timeout: 60000, what: 'the épreuve\'s table' });
    // `mesurer mots --questions data/epreuve.csv` (start) and the same with stems
    // (`--reglages`, the settings the page exports): the courantes in the top 5 and MRR@10.
    assert.deepEqual(rows, EPREUVE_ROWS);
    const verdict = await tab.run(() => document.querySelector('#ameliorer-epreuve-verdict').textContent);
    assert.match(verdict, /^Sur l'épreuve\u00a0: /);
    // The gap with its interval and the questions it would take (measure::stats).
    const gap = await tab.run(() => document.querySelector('#ameliorer-epreuve-ecart').textContent);
    assert.match(gap, /^Écart de MRR@10\u00a0: \+0,11\d, intervalle à 95\u00a0% \[[+−]0,\d{3}\u202f; \+0,\d{3}\]\u00a0: (l'écart est sûr à 95\u00a0%|on ne peut pas conclure) \(t apparié p = /);
    const widths = await tab.run(() => {
      const table = document.querySelector('#ameliorer-epreuve-chiffres');
      const box = table.parentElement;
      return [table.getBoundingClientRect().width, box.clientWidth, box.scrollWidth,
        document.documentElement.scrollWidth, window.innerWidth];
    });
    assert.ok(widths[0] <= widths[1] + 1 && widths[2] <= widths[1] + 1,
      `${width} px: the épreuve's table is ${widths[0]} px wide in a box of ${widths[1]} (scroll ${widths[2]})`);
    assert.ok(widths[3] <= widths[4] + 1, `${width} px: the page scrolls sideways (${widths[3]} in ${widths[4]})`);
    // The history and the sweep: every column in the width, stacked on a phone.
    await tab.run(() => document.querySelector('[data-balayer="k1b"]').scrollIntoView({ block: 'center' }));
    await tab.click('[data-balayer="k1b"]');
    await tab.until(() => document.querySelector('#ameliorer-balayage-verdict')?.textContent, { timeout: 60000, what: 'the sweep' });
    for (const selector of ['#ameliorer-historique', '#ameliorer-balayage table']) {
      const fit = await tab.run((sel) => {
        const table = document.querySelector(sel);
        const box = table.parentElement;
        const cells = [...table.querySelectorAll('tbody td, tbody th')].map((c) => c.getBoundingClientRect());
        return [table.getBoundingClientRect().width, box.clientWidth, box.scrollWidth,
          Math.max(...cells.map((r) => r.right)), box.getBoundingClientRect().right];
      }, selector);
      assert.ok(fit[0] <= fit[1] + 1 && fit[2] <= fit[1] + 1 && fit[3] <= fit[4] + 1,
        `${width} px: ${selector} is ${fit[0]} px wide in a box of ${fit[1]} (scroll ${fit[2]}, last cell ends at ${fit[3]} of ${fit[4]})`);
    }
    assert.ok(await tab.run(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${width} px: the page scrolls sideways`);
    await tab.run(() => document.querySelector('#ameliorer-epreuve').scrollIntoView());
    await tab.screenshot(join(tmpdir(), `epreuve-${name}-${width}.png`));
    await tab.run(() => document.querySelector('#ameliorer-historique').scrollIntoView());
    await tab.screenshot(join(tmpdir(), `historique-${name}-${width}.png`));
    assert.deepEqual(await tab.problems(), []);
    await tab.close();
  }
});

inEngines('on a phone, a learner without a key judges the pool by hand: one tap per judgment, the progress shown, resumed after a reload', async (engine, name) => {
  const tab = await engine.open({ width: 390, height: 844 });
  await tab.goto(`${server.url}#vue=questions`);
  await tab.ready();
  const pair = () => tab.until(() => {
    const p = document.querySelector('#juger-paire:not([hidden])');
    return p && [p.dataset.question, p.dataset.fiche, document.querySelector('#juger-progres').getAttribute('value'),
      document.querySelector('#juger-etat').textContent];
  }, { what: 'a pair to judge' });
  const first = await pair();
  assert.equal(first[2], '0');
  assert.match(first[3], /^0 jugées sur \d+ \(0\u202f%\)\u202f; encore \d+ fiches\.$/);
  // The four grades inside the window's width, each a thumb's size, nothing to scroll sideways.
  const boxes = await tab.run(() => [...document.querySelectorAll('#juger-paire [data-note]')].map((b) => {
    const r = b.getBoundingClientRect();
    return [r.left, r.right, r.height];
  }).concat([[document.documentElement.scrollWidth, window.innerWidth, 0]]));
  const [page, width] = boxes.pop();
  assert.ok(page <= width + 1, `the page scrolls sideways: ${page} in ${width}`);
  for (const [left, right, height] of boxes) {
    assert.ok(left >= 0 && right <= width + 1 && height >= 40, `a grade button at ${left}–${right}, ${height} px tall`);
  }
  // One tap per judgment: each shows the next pair.
  let last = first;
  for (const note of ['3', '0', '1']) {
    await tab.click(`#juger-paire [data-note="${note}"]`);
    const now = await tab.until((before) => {
      const p = document.querySelector('#juger-paire');
      const value = document.querySelector('#juger-progres').getAttribute('value');
      return value !== before[2] && [p.dataset.question, p.dataset.fiche, value];
    }, { args: [last], what: `the pair after ${note}` });
    assert.notDeepEqual(now.slice(0, 2), last.slice(0, 2));
    last = now;
  }
  // A key on the focused grade judges too.
  await tab.run(() => {
    const b = document.querySelector('#juger-paire [data-note="2"]');
    b.focus();
    b.dispatchEvent(new KeyboardEvent('keydown', { key: '2', bubbles: true }));
  });
  await tab.until(() => document.querySelector('#juger-progres').getAttribute('value') === '4', { what: 'the key judged' });
  await tab.click('#juger-annuler');
  await tab.until(() => document.querySelector('#juger-progres').getAttribute('value') === '3', { what: 'undone' });
  const before = await pair();
  await tab.screenshot(join(tmpdir(), `juger-${name}-390.png`));
  await tab.reload();
  const after = await pair();
  assert.deepEqual(after, before, 'resumed where it was');
  assert.deepEqual(await tab.problems(), []);
});
