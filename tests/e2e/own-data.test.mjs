// « Vos données »: a learner loads a catalogue that is not the bundled one, and everything works on
// it; bad files are refused with messages that name the line; hostile text stays text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, openPageIn, suite, settings, enterKey, pickExample, ranked, npy } from './harness.mjs';
import { fakeEmbed } from './mock-mistral.mjs';

const ROOT = new URL('../../', import.meta.url);
const HOSTILE = '<img src=x onerror=alert(1)> Vis inox </mark><script>alert(2)</script> &amp; co';

/** A small hardware catalogue, generated: 24 fiches, 10 questions, nothing from the exercise. */
function catalogue() {
  const kinds = [['Vis à bois', 'vis pour assembler le bois'], ['Cheville nylon', 'cheville pour fixer dans la brique'],
    ['Clou galvanisé', 'clou pour la charpente extérieure'], ['Boulon acier', 'boulon pour serrer deux pièces métalliques']];
  const fiches = [];
  let n = 0;
  for (const [nom, usage] of kinds) {
    for (const size of ['4 x 30 mm', '5 x 50 mm', '6 x 60 mm', '8 x 80 mm', '10 x 100 mm', '12 x 120 mm']) {
      n += 1;
      const id = `P-${String(n).padStart(3, '0')}`;
      const texte = n === 7 ? `${HOSTILE}. Usage : ${usage}.` : `${nom}, ${size}. Usage : ${usage}. Boîte de 100.`;
      fiches.push({ id, famille: 'Quincaillerie', nom: n === 7 ? HOSTILE : `${nom}, ${size}`, texte });
    }
  }
  const questions = [
    ['exacte', 'Vis à bois 5 x 50 mm', 'P-002'], ['exacte', 'Cheville nylon 8 x 80 mm', 'P-010'],
    ['exacte', 'Boulon acier 12 x 120 mm', 'P-024'], ['exacte', 'Clou galvanisé 4 x 30 mm', 'P-013'],
    ['courante', 'Fixer quelque chose dans un mur en brique', 'P-009'], ['courante', 'Assembler deux planches', 'P-001'],
    ['courante', 'Serrer deux pièces de métal', 'P-019'], ['courante', 'Une pointe pour la charpente dehors', 'P-013'],
    ['absente', 'Vendez-vous des perceuses ?', ''], ['absente', 'Un marteau, vous en avez ?', ''],
  ];
  const jsonl = fiches.map((f) => JSON.stringify(f)).join('\n') + '\n';
  const csv = '\ufefftype;question;fiche_attendue\n' + questions.map((q) => q.join(';')).join('\n') + '\n';
  return { fiches, jsonl, csv };
}

const file = (name, content) => ({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(content) });

/** A safetensors file whose header names another model (the page takes mistral-embed's only). */
function renamed(bytes, model) {
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  header.__metadata__.model = model;
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([len, Buffer.from(json), bytes.subarray(8 + n)]);
}

let mock;
let browser;
let server;
suite((s) => ({ mock, browser, server } = s), { dir: 'dist-test', mock: true });

test('a generated catalogue loads and is searched, measured (as the terminal measures it) and shared', async () => {
  const { fiches, jsonl, csv } = catalogue();
  const { page, context, problems } = await openPage(browser, server.url);
  let dialogs = 0;
  page.on('dialog', async (d) => { dialogs += 1; await d.dismiss(); });
  await settings(page);
  await page.setInputFiles('#fichiers', [file('mes-fiches.jsonl', jsonl), file('mes-questions.csv', csv)]);
  await page.waitForFunction(() => /vos données/.test(document.querySelector('#resume').textContent));
  assert.equal(await page.textContent('#resume'), '24 fiches, 10 questions\u00a0: vos données (mes-fiches.jsonl, mes-questions.csv).');
  assert.equal(await page.isVisible('#revenir'), true);
  await pickExample(page, 'Vis à bois 5 x 50 mm');
  assert.equal(await page.getAttribute('.colonne[data-methode="mots"] li.resultat >> nth=0', 'data-id'), 'P-002');
  // The hostile fiche is shown verbatim, as text.
  await page.fill('#question', 'vis inox');
  const hostile = page.locator('.colonne[data-methode="mots"] li.resultat[data-id="P-007"]');
  assert.equal(await hostile.locator('.nom').textContent(), HOSTILE);
  assert.equal(await page.locator('#app img, #app script').count(), 0);
  assert.equal(dialogs, 0);
  // « Mesurer » on the learner's questions gives what the terminal gives on the same files.
  const dir = await mkdtemp(join(tmpdir(), 'vos-donnees-'));
  await writeFile(join(dir, 'f.jsonl'), jsonl);
  await writeFile(join(dir, 'q.csv'), csv);
  const { stdout } = await promisify(execFile)(new URL('target/release/mesurer', ROOT).pathname,
    ['--all', '--json', '--fiches', join(dir, 'f.jsonl'), '--questions', join(dir, 'q.csv'), '--vectors', 'none']);
  const terminal = JSON.parse(stdout).methods;
  await page.click('#onglet-mesurer');
  for (const m of terminal) {
    for (const k of m.kinds) {
      const row = page.locator(`table.comparaison[data-type="${k.type}"] tr[data-methode="${m.method}"]`);
      assert.equal(await ranked(row.locator('.hit1')), `${k.hit1}/${k.questions}`);
      assert.equal(await ranked(row.locator('.hit5')), `${k.hit5}/${k.questions}`);
    }
  }
  assert.equal(await page.locator('table.grille tbody tr').count(), 8);
  // A link says « vos données » but carries none of them.
  await page.click('#copier-lien');
  const link = await page.inputValue('#lien');
  assert.match(link, /jeu=vos-donnees/);
  assert.ok(!link.includes('Quincaillerie') && !link.includes('P-0'));
  const other = await openPage(browser, link);
  // Said under the header, where the learner looks (not in the collapsed « Réglages »).
  await other.page.waitForSelector('#note-lien:not([hidden])');
  assert.match(await other.page.textContent('#note-lien'), /ne voyagent pas avec le lien/);
  assert.equal(await other.page.textContent('#resume'), '200 fiches, 40 questions dont on connaît la bonne fiche.');
  await other.context.close();
  // Back to the exercise in one click.
  await settings(page);
  await page.click('#revenir');
  await page.waitForFunction(() => /^200 fiches/.test(document.querySelector('#resume').textContent));
  assert.equal(await page.isVisible('#revenir'), false);
  assert.deepEqual(problems, []);
  assert.deepEqual(other.problems, []);
  await context.close();
});

test('a catalogue alone, without questions, is searched with every keyless method; measuring says what it needs', async () => {
  const { jsonl } = catalogue();
  const { page, context, problems } = await openPage(browser, server.url);
  await settings(page);
  await page.setInputFiles('#fichiers', [file('mes-fiches.jsonl', jsonl)]);
  await page.waitForFunction(() => /vos données/.test(document.querySelector('#resume').textContent));
  assert.equal(await page.textContent('#resume'), '24 fiches, sans questions\u00a0: vos données (mes-fiches.jsonl).');
  assert.equal(await page.isVisible('#exemples'), false);
  await page.fill('#question', 'fixer dans la brique');
  await page.waitForSelector('.colonne[data-methode="mots+"] li.resultat');
  // A wall plug first (P-007 to P-012: « cheville pour fixer dans la brique »).
  assert.match(await page.getAttribute('.colonne[data-methode="mots+"] li.resultat >> nth=0', 'data-id'), /^P-0(0[7-9]|1[0-2])$/);
  await page.click('#onglet-mesurer');
  await page.waitForSelector('#partie-sans-questions');
  assert.match(await page.textContent('#partie-sans-questions'), /^Rien à mesurer\s: ce catalogue n'a pas de questions.*type;question;fiche_attendue/);
  assert.equal(await page.isVisible('#mesures-reponses'), false);
  assert.equal(await page.isVisible('#journal'), true);
  await page.click('#onglet-ameliorer');
  assert.match(await page.textContent('#ameliorer-reglages'), /ce catalogue n'en a pas/);
  assert.equal(await page.isVisible('#ameliorer-effet'), false);
  // Questions loaded with the fiches: measured as any catalogue.
  const { csv } = catalogue();
  await page.setInputFiles('#fichiers', [file('mes-fiches.jsonl', jsonl), file('mes-questions.csv', csv)]);
  await page.waitForFunction(() => /10 questions/.test(document.querySelector('#resume').textContent));
  await page.click('#onglet-mesurer');
  await page.waitForSelector('table.comparaison');
  assert.equal(await page.locator('#partie-sans-questions').count(), 0);
  assert.equal(await page.isVisible('#mesures-reponses'), true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a long fiche whose words match far in shows an excerpt around the first match, and says which characters', async () => {
  const { fiches, csv } = catalogue();
  // 6,000 characters about something else, then the word asked for.
  const filler = 'Boîte de vis et de chevilles pour la quincaillerie courante. '.repeat(100);
  const long = { id: 'P-100', famille: 'Quincaillerie', nom: 'Sac de matériaux divers', texte: `${filler}Pouzzolane en vrac pour le jardin. ${filler}` };
  const jsonl = [...fiches, long].map((f) => JSON.stringify(f)).join('\n') + '\n';
  const { page, context, problems } = await openPage(browser, server.url);
  await settings(page);
  await page.setInputFiles('#fichiers', [file('f.jsonl', jsonl), file('q.csv', csv)]);
  await page.waitForFunction(() => /^25 fiches/.test(document.querySelector('#resume').textContent));
  await page.fill('#question', 'pouzzolane');
  for (const column of ['mots', 'mots+']) {
    const result = page.locator(`.colonne[data-methode="${column}"] li.resultat[data-id="P-100"]`);
    await result.waitFor();
    // The excerpt holds the match, highlighted, with the sentence before it.
    assert.deepEqual(await result.locator('mark').allTextContents(), ['Pouzzolane'], column);
    const shown = await result.locator('p:not(.nom):not(.famille):not(.coupe)').first().textContent();
    assert.ok(shown.length <= 1000 && shown.includes('quincaillerie courante. Pouzzolane'), `${column}: ${shown.slice(0, 80)}`);
    const before = filler.length;
    assert.match(await result.locator('.coupe').textContent(),
      /^… \(les caractères (\d[\d\s]*) à (\d[\d\s]*), autour du premier mot trouvé, d'une fiche qui en compte 12\s\d{3}\)$/);
    const [, from] = (await result.locator('.coupe').textContent()).match(/caractères (\d[\d\s]*) à/);
    const start = Number(from.replace(/\s/g, ''));
    assert.ok(start > before - 200 && start <= before, `${column}: starts at ${start}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('the seed\'s vecteurs.npy is accepted after a shape check, and sens runs on it', async () => {
  await mock.reset();
  const { fiches, jsonl, csv } = catalogue();
  const { page, context, problems } = await openPage(browser, server.url);
  const vectors = npy(fiches.map((f) => fakeEmbed(f.texte)));
  await page.setInputFiles('#fichiers', [file('f.jsonl', jsonl), file('q.csv', csv), file('vecteurs.npy', vectors)]);
  await page.waitForFunction(() => /vos données/.test(document.querySelector('#resume').textContent));
  assert.match(await page.textContent('#vecteurs-etat'), /24 × 1024 \(mistral-embed\), chargés depuis vecteurs\.npy \(un \.npy ne porte pas d'empreinte\s: seule sa forme a été vérifiée\)/);
  await enterKey(page, 'cle-vos-donnees');
  await page.fill('#question', 'Boulon acier 12 x 120 mm');
  await page.waitForSelector('#colonne-sens li.resultat');
  assert.match(await page.getAttribute('#colonne-sens li.resultat >> nth=0', 'data-id'), /^P-0\d\d$/);
  // A .npy of the wrong shape is refused, naming the counts.
  await page.setInputFiles('#fichiers', [file('f.jsonl', jsonl), file('q.csv', csv), file('v.npy', npy(fiches.slice(0, 20).map((f) => fakeEmbed(f.texte))))]);
  await page.waitForSelector('#donnees-erreurs li');
  assert.match(await page.textContent('#donnees-erreurs'), /v\.npy\s: 20 vecteurs pour 24 fiches/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a vectors file that carries the questions\' vectors measures sens and the fusions without a key', async () => {
  const { jsonl, csv } = catalogue();
  const dir = await mkdtemp(join(tmpdir(), 'vos-vecteurs-'));
  await writeFile(join(dir, 'f.jsonl'), jsonl);
  await writeFile(join(dir, 'q.csv'), csv);
  // The fake embedder's 1024 values per text, in a file that says mistral-embed.
  await promisify(execFile)(new URL('target/release/vecteurs', ROOT).pathname, ['--embedder', 'fake',
    '--fiches', join(dir, 'f.jsonl'), '--questions', join(dir, 'q.csv'), '--out', join(dir, 'v.safetensors')]);
  const vectors = renamed(await readFile(join(dir, 'v.safetensors')), 'mistral-embed');
  const { page, context, problems } = await openPage(browser, server.url);
  await page.setInputFiles('#fichiers', [file('f.jsonl', jsonl), file('q.csv', csv), file('v.safetensors', vectors)]);
  await page.waitForFunction(() => /vos données/.test(document.querySelector('#resume').textContent));
  await page.click('#onglet-mesurer');
  await page.waitForSelector('#mesures section.methode[data-methode="hybride+"]', { state: 'attached' });
  for (const m of ['sens', 'hybride', 'hybride+']) {
    for (const kind of ['exacte', 'courante']) {
      const row = page.locator(`table.comparaison[data-type="${kind}"] tr[data-methode="${m}"]`);
      assert.match(await ranked(row.locator('.hit5')), /^\d\/4$/);
    }
  }
  assert.match(await page.textContent('#mesure-sens-etat'), /fournis avec votre fichier de vecteurs \(10\)\s: aucune clé nécessaire/);
  assert.match(await page.textContent('#cle-etat'), /mesurés sur vos questions avec les vecteurs de votre fichier/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the local encoder\'s vectors the terminal makes for a catalogue give its local methods in the page, as the terminal measures them; a refused vectors file leaves the rest loaded', async () => {
  const { jsonl, csv } = catalogue();
  const dir = await mkdtemp(join(tmpdir(), 'vos-vecteurs-locaux-'));
  const [f, q, v] = ['f.jsonl', 'q.csv', 'v.safetensors'].map((n) => join(dir, n));
  await writeFile(f, jsonl);
  await writeFile(q, csv);
  const root = new URL('.', ROOT).pathname;
  await promisify(execFile)(new URL('target/release/vecteurs', ROOT).pathname,
    ['--embedder', 'local', '--fiches', f, '--questions', q, '--out', v], { cwd: root });
  const { stdout } = await promisify(execFile)(new URL('target/release/mesurer', ROOT).pathname,
    ['--all', '--json', '--fiches', f, '--questions', q, '--vectors', 'none', '--vecteurs-local', v], { cwd: root });
  const terminal = JSON.parse(stdout).methods.filter((m) => m.method.endsWith('local'));
  assert.deepEqual(terminal.map((m) => m.method), ['sens local', 'hybride local']);
  const { page, context, problems } = await openPage(browser, server.url);
  await settings(page);
  const bytes = await readFile(v);
  await page.setInputFiles('#fichiers', [file('f.jsonl', jsonl), file('q.csv', csv), file('v.safetensors', bytes)]);
  await page.waitForFunction(() => /vos données/.test(document.querySelector('#resume').textContent));
  assert.equal(await page.textContent('#donnees-erreurs'), '');
  await page.click('#onglet-mesurer');
  for (const m of terminal) {
    for (const k of m.kinds) {
      const row = page.locator(`table.comparaison[data-type="${k.type}"] tr[data-methode="${m.method}"]`);
      await row.waitFor();
      assert.equal(await ranked(row.locator('.hit1')), `${k.hit1}/${k.questions}`, m.method);
      assert.equal(await ranked(row.locator('.hit5')), `${k.hit5}/${k.questions}`, m.method);
    }
  }
  // Another model's file is refused alone: the fiches and the questions are loaded without it.
  await page.click('#onglet-chercher');
  await page.setInputFiles('#fichiers', [file('g.jsonl', jsonl), file('q.csv', csv), file('v.safetensors', renamed(bytes, 'autre-modele'))]);
  await page.waitForFunction(() => /g\.jsonl/.test(document.querySelector('#resume').textContent));
  assert.match(await page.textContent('#donnees-erreurs'), /^v\.safetensors\s: .*Vos fiches et vos questions sont chargées sans ce fichier\.$/);
  assert.deepEqual(problems, []);
  await context.close();
});

test("fiches beyond what the device's memory lets the page index are refused unread, and the limit is said", async () => {
  const { csv } = catalogue();
  // A device of 256 MiB as Chromium's navigator.deviceMemory says it (defined where the engine
  // has none): a quarter of it at 6 bytes of memory per byte of fiches, 10.7 MiB.
  const context = await browser.newContext({ serviceWorkers: 'block' });
  await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'deviceMemory', { get: () => 0.25, configurable: true }));
  const { page, problems } = await openPageIn(context, server.url);
  await settings(page);
  assert.equal(await page.textContent('#limite-fiches'), '11\u00a0Mo de fiches (selon la mémoire de cet appareil)');
  await page.setInputFiles('#fichiers', [file('f.jsonl', Buffer.alloc(12 * 1024 * 1024, 0x20)), file('q.csv', csv)]);
  await page.waitForSelector('#donnees-erreurs li');
  assert.match(await page.textContent('#donnees-erreurs'),
    /^f\.jsonl\s: 12,0\sMo de fiches, au-delà de ce que la mémoire de cet appareil permet à la page d'indexer \(11\sMo\)\s: il n'a pas été lu\./);
  assert.equal(await page.textContent('#resume'), '200 fiches, 40 questions dont on connaît la bonne fiche.');
  assert.deepEqual(problems, []);
  await context.close();
});

test('bad files are refused with the line and field, and the current catalogue stays', async () => {
  const { jsonl, csv } = catalogue();
  const { page, context, problems } = await openPage(browser, server.url);
  const lines = jsonl.trim().split('\n');
  const cases = [
    [[file('f.jsonl', [lines[0], lines[1], '{"id": "P-999", "famille": "f", "nom": "n"}'].join('\n')), file('q.csv', csv)],
      /^f\.jsonl, ligne 3\s: le champ «\stexte\s» manque/],
    [[file('f.jsonl', [lines[0], '{"id": "P-900", famille: "f"}'].join('\n')), file('q.csv', csv)],
      /^f\.jsonl, ligne 2, colonne \d+\s: ce n'est pas du JSON valide/],
    [[file('f.jsonl', [lines[0], lines[0]].join('\n')), file('q.csv', csv)], /ligne 2\s: l'identifiant «\sP-001\s» est déjà pris ligne 1/],
    // One id, « é » as one code point then as e + combining acute: the same id in NFC (compared
    // through the browser's String.prototype.normalize).
    [[file('f.jsonl', [lines[0], lines[0].replace('P-001', 'P-\u00e9'), lines[0].replace('P-001', 'P-e\u0301')].join('\n')), file('q.csv', csv)],
      /ligne 3\s: l'identifiant «\sP-e\u0301\s» est déjà pris ligne 2/],
    [[file('f.jsonl', jsonl), file('q.csv', csv.replaceAll(';', ','))], /^q\.csv, ligne 1\s: l'en-tête doit être «\stype;question;fiche_attendue\s»/],
    [[file('f.jsonl', jsonl), file('q.csv', csv.replace('P-002', 'P-404'))], /ligne 2\s: la fiche attendue «\sP-404\s» n'est pas dans vos fiches/],
    [[file('f.jsonl', Buffer.concat([Buffer.from(lines[0] + '\n' + lines[1] + '\n'), Buffer.from([0xff, 0xfe]), Buffer.from('\n')])), file('q.csv', csv)],
      /f\.jsonl, ligne 3\s: ce n'est pas du texte UTF-8 valide/],
    [[file('f.jsonl', jsonl), file('q.csv', csv), file('notes.txt', 'x')], /notes\.txt\s: fichier non reconnu/],
    [[file('q.csv', csv)], /Il faut au moins vos fiches \(\.jsonl\)\s: vos questions \(\.csv\) et vos vecteurs se chargent avec elles/],
    [[file('f.jsonl', jsonl), file('q.csv', 'type;question;fiche_attendue\nfacile;Q;P-001\n')], /le type «\sfacile\s» n'existe pas/],
    [[file('f.jsonl', '{"id": "A", "famille": "f", "nom": "n", "texte": "   "}'), file('q.csv', csv)], /ligne 1\s: le champ «\stexte\s» est vide/],
  ];
  await settings(page);
  for (const [files, message] of cases) {
    await page.evaluate(() => { document.querySelector('#donnees-erreurs').textContent = ''; });
    await page.setInputFiles('#fichiers', files);
    await page.waitForSelector('#donnees-erreurs li');
    assert.match(await page.textContent('#donnees-erreurs'), message);
    assert.equal(await page.textContent('#resume'), '200 fiches, 40 questions dont on connaît la bonne fiche.');
  }
  assert.deepEqual(problems, []);
  await context.close();
});
