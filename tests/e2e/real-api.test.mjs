// What a learner with a real key meets, against the faithful mock (tests/e2e/mock-mistral.mjs: real
// error bodies, real limits, no readable Retry-After): the exercise measured with no key when the
// question vectors ship, slow answers waited for and never sent twice, a fiche over the per-input
// limit, every real error body in French, a cut answer, « Vérifier ma clé », and the terminal's
// `vecteurs`, which can read Retry-After, honouring it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, openPage, MOCK_PORT, enterKey, settings, pickExample, serveWithVectors } from './harness.mjs';
import { startMock, tokens, LIMITS } from './mock-mistral.mjs';

const KEY = 'cle-api-reelle-42';
const ROOT = new URL('../../', import.meta.url);
const VECTEURS = new URL('target/release/vecteurs', ROOT).pathname;
let mock;
let browser;
let plain;      // the test build, no vectors
let withQuestions; // with fiche and question vectors made by `vecteurs` through the mock

const run = (args, env = {}) => promisify(execFile)(VECTEURS, args,
  { cwd: ROOT.pathname, env: { ...process.env, MISTRAL_API_KEY: KEY, RAG_FICHES_API_BASE: mock.origin, ...env } });

before(async () => {
  mock = await startMock(MOCK_PORT);
  browser = await launch();
  plain = await serveDist({ dir: 'dist-test' });
  ({ server: withQuestions } = await serveWithVectors(KEY, { questions: true }));
});
after(async () => {
  await browser?.close();
  await plain?.close();
  await withQuestions?.close();
  await mock?.close();
});

/** Waits for the countdown, clicks «\sRéessayer maintenant\s» and waits for the request it sends. */
async function retryNow(page) {
  await page.waitForSelector('#attente:not([hidden])', { timeout: 20000 });
  const before = (await mock.log()).length;
  await page.click('#reessayer');
  while ((await mock.log()).length === before) await new Promise((ok) => setTimeout(ok, 50));
}

const posts = async (path) => (await mock.log()).filter((r) => r.method === 'POST' && (!path || r.path === path));

test('question vectors shipped: a fresh page with no key measures sens, hybride and hybride+; a typed question asks for the key', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, withQuestions.url);
  await page.click('#onglet-mesurer');
  for (const m of ['sens', 'hybride', 'hybride+']) {
    await page.waitForSelector(`section.methode[data-methode="${m}"] table`, { state: 'attached' });
  }
  assert.match(await page.textContent('#mesure-sens-etat'), /Vecteurs des questions fournis avec la page \(40\)\s: aucune clé nécessaire pour mesurer/);
  // The grid: one row per answerable question (35), a column per method, the dense ones included.
  assert.equal(await page.locator('table.grille tbody tr').count(), 35);
  const head = await page.textContent('table.grille thead');
  for (const m of ['sens', 'hybride', 'hybride+']) assert.ok(head.includes(m), `${m} in ${head}`);
  // An exercise question has its vector: sens answers in « Chercher » without a key.
  await page.click('#onglet-chercher');
  await pickExample(page, 'Joint époxy');
  await page.waitForSelector('#colonne-sens li.resultat');
  // A question the learner types has none: the key is asked for.
  await page.fill('#question', 'une colle qui tient sous l\'eau');
  await page.waitForFunction(() => /^sens, hybride\s: il faut votre clé Mistral/.test(document.querySelector('#indisponibles').textContent));
  assert.deepEqual(await posts(), [], 'not one request to the API');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a slow answer (25 s, over the old 20 s timeout) is waited for and never sent twice', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, plain.url);
  await enterKey(page, KEY);
  await page.fill('#question', 'Joint époxy');
  await page.selectOption('#reponse-methode', 'mots+');
  await mock.faults([{ delayMs: 25000 }]);
  await page.click('#rediger');
  await page.waitForSelector('#reponse-resultat .reponse-rendue', { timeout: 60000 });
  assert.equal((await posts('/v1/chat/completions')).length, 1, 'one request, waited for');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an embedding slower than its timeout (15 s) is abandoned, then sent again with a countdown', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, withQuestions.url, { expectHttpErrors: true });
  await enterKey(page, KEY);
  await mock.faults([{ delayMs: 17000 }]);
  await page.fill('#question', 'bâche de chantier');
  await page.waitForSelector('#attente:not([hidden])', { timeout: 25000 });
  assert.match(await page.textContent('#attente-texte'), /L'API n'a pas répondu à temps\s: nouvel essai dans 1 s/);
  await page.waitForSelector('#colonne-sens li.resultat', { timeout: 15000 });
  assert.equal((await posts('/v1/embeddings')).length, 2);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a fiche over the per-input limit is cut, not a failed run; the vectors are all computed', async () => {
  await mock.reset();
  const long = 'Brique monomur de 37,5 cm, isolation répartie, pose à joints minces. '.repeat(600);
  const fiches = [
    { id: 'B-1', famille: 'Gros œuvre', nom: 'Brique monomur', texte: long },
    { id: 'B-2', famille: 'Gros œuvre', nom: 'Parpaing creux', texte: 'Parpaing creux de 20 cm, pour murs porteurs.' },
    { id: 'B-3', famille: 'Gros œuvre', nom: 'Mortier de pose', texte: 'Mortier de montage pour blocs et briques.' },
  ];
  assert.ok(tokens(long) > LIMITS.tokensPerInput, `the long fiche is ${tokens(long)} tokens for the mock`);
  const jsonl = fiches.map((f) => JSON.stringify(f)).join('\n') + '\n';
  const csv = 'type;question;fiche_attendue\nexacte;Parpaing creux de 20 cm;B-2\ncourante;monter un mur isolant;B-1\n';
  const file = (name, content) => ({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(content) });
  const { page, context, problems } = await openPage(browser, plain.url);
  await settings(page);
  await page.setInputFiles('#fichiers', [file('briques.jsonl', jsonl), file('briques.csv', csv)]);
  await page.waitForFunction(() => /vos données/.test(document.querySelector('#resume').textContent));
  await enterKey(page, KEY);
  await page.click('#calculer');
  await page.waitForFunction(() => /Vecteurs calculés/.test(document.querySelector('#vecteurs-message').textContent));
  assert.match(await page.textContent('#vecteurs-message'), /1 fiche trop longue pour l'API \(plus de 8 192 tokens\)\s: seuls ses 8\u202f000 premiers octets ont été plongés/);
  const sent = (await posts('/v1/embeddings')).flatMap((r) => JSON.parse(r.body).input);
  assert.equal(sent.length, 3);
  assert.ok(sent.every((t) => tokens(t) <= LIMITS.tokensPerInput));
  assert.deepEqual(problems, []);
  await context.close();
});

test('every real error body reaches « Vérifier ma clé » as French that says what to do', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, plain.url, { expectHttpErrors: true });
  await enterKey(page, KEY);
  const check = async (faults, expected, { skip = 0 } = {}) => {
    await mock.faults(faults);
    await page.click('#verifier-cle');
    for (let i = 0; i < skip; i += 1) await retryNow(page);
    await page.waitForFunction(() => !/^(|Vérification…)$/.test(document.querySelector('#verification').textContent), null, { timeout: 30000 });
    assert.match(await page.textContent('#verification'), expected);
    const refused = !/acceptée/.test(await page.textContent('#verification'));
    assert.equal(await page.locator('#verification').getAttribute('class'), refused ? 'etat refus' : 'etat');
    await page.fill('#cle', `${KEY}-`); // a key edit clears the verdict
    await page.fill('#cle', KEY);
  };
  await check([{}], /^Clé acceptée\s: mistral-embed a répondu \(1 token\)\.$/);
  await check([{ status: 401 }], /^Clé refusée \(HTTP 401\)\s: vérifiez-la sur console\.mistral\.ai/);
  await check([{ status: 401, body: { message: 'Unauthorized', request_id: 'r-1' } }], /^Clé refusée \(HTTP 401\)/);
  // A 401 without CORS headers (unconfirmed for the real API): the browser cannot read it.
  await check(Array(4).fill({ status: 401, nocors: true }), /^Pas de réponse de l'API.*Une clé refusée peut aussi se montrer ainsi/);
  await check([{ status: 429, body: { message: 'Requests rate limit exceeded' } }, {}], /^Clé acceptée/, { skip: 1 });
  await check(Array(4).fill({ status: 429 }), /^Trop de requêtes \(HTTP 429\), même après avoir attendu/, { skip: 3 });
  await check([{
    status: 422,
    body: { object: 'error', message: { detail: [{ type: 'extra_forbidden', loc: ['body', 'dimensions'], msg: 'Extra inputs are not permitted', input: 3 }] }, type: 'invalid_request_error', param: null, code: null },
  }], /^La requête a été refusée \(HTTP 422\)\s: Extra inputs are not permitted \(dimensions\)\.$/);
  await check([{
    status: 400,
    body: { object: 'error', message: 'Too many tokens overall, split into more batches.', type: 'invalid_request_message_error', param: null, code: '3210' },
  }], /^La requête a été refusée \(HTTP 400\)\s: Too many tokens overall, split into more batches\.$/);
  // A gateway's HTML 502 or 504 carries no CORS header: for the page, no answer, retried.
  await check([{ status: 502, html: true }, { status: 504, html: true }, {}], /^Clé acceptée/);
  await check([{ status: 503 }, { status: 500 }, { status: 503 }, { status: 500 }], /^Le service de Mistral est en panne \(HTTP 500\)/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a cut answer says « réponse coupée »; a thinking chunk and a null content are read', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, plain.url);
  await enterKey(page, KEY);
  const ask = async (question, fault) => {
    await mock.faults([fault]);
    await page.fill('#question', question);
    await page.selectOption('#reponse-methode', 'mots+');
    await page.click('#rediger');
    await page.waitForSelector('#reponse-resultat .reponse-rendue');
  };
  await ask('Joint époxy', { finish: 'length' });
  assert.match(await page.textContent('#reponse-resultat .coupee'), /^Réponse coupée \(limite de longueur\)/);
  assert.equal(await page.locator('#reponse-resultat .drapeau').filter({ hasText: 'sans citation' }).count(), 0);
  await ask('Colle carrelage', { thinking: true });
  assert.equal(await page.locator('#reponse-resultat .coupee').count(), 0);
  assert.match(await page.textContent('#reponse-resultat .texte-reponse'), /^D'après la fiche \[AR-\d{4}\]/);
  assert.doesNotMatch(await page.textContent('#reponse-resultat'), /Je lis les fiches/);
  await ask('Mortier rapide', { nullContent: true });
  assert.match(await page.textContent('#reponse-resultat .coupee'), /^Réponse coupée/);
  // Each cost is the chosen model's, from the price table.
  assert.match(await page.textContent('.cout-reponse'), /tarif de mistral-small-latest relevé en 2026-08/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the terminal honours a readable Retry-After (2 s, not its 10 s backoff); --verifier reports', async () => {
  await mock.reset();
  await mock.faults([{ status: 429, retryAfter: '2' }]);
  const dir = await mkdtemp(join(tmpdir(), 'rag-fiches-ra-'));
  const started = Date.now();
  const { stderr } = await run(['--embedder', 'mistral', '--questions', 'none', '--out', join(dir, 'v.safetensors')]);
  const took = Date.now() - started;
  assert.match(stderr, /the API answered HTTP 429 \(Retry-After: 2\); trying again in 2000 ms/);
  assert.ok(took >= 2000 && took < 9000, `${took} ms`);
  const { stdout } = await run(['--verifier']);
  assert.match(stdout, /POST http:\/\/127\.0\.0\.1:8788\/v1\/embeddings: HTTP 200/);
  assert.match(stdout, /access-control-allow-origin: \*/);
  assert.match(stdout, /a browser page can read Retry-After: no/);
  assert.match(stdout, /key accepted; tokens counted: 1/);
  assert.match(stdout, /GET http:\/\/127\.0\.0\.1:8788\/v1\/models: 3 models\n {2}mistral-embed {2}\(\$0\.1 in/);
  await assert.rejects(run(['--verifier'], { MISTRAL_API_KEY: 'refusee' }), (e) => {
    assert.equal(e.code, 1);
    assert.match(e.stdout, /HTTP 401/);
    assert.match(e.stdout, /refused: Unauthorized/);
    assert.doesNotMatch(e.stdout + e.stderr, /refusee/);
    return true;
  });
});
