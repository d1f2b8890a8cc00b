// The local encoder in the page (prints figures; asserts nothing): the model fetched and
// prepared, the longest main-thread task meanwhile, and a typed question's time from input to its
// sens local results, once the model is ready. Run after `trunk build --release` with the model
// in dist/ (bash scripts/modele.sh):  node tests/e2e/bench-local.mjs
import { serveDist, launch } from './harness.mjs';

const server = await serveDist();
const browser = await launch();
const context = await browser.newContext();
const page = await context.newPage();
await page.goto(server.url);
await page.waitForSelector('body[data-ready="true"]');
await page.evaluate(() => {
  window.longTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration); })
    .observe({ type: 'longtask', buffered: false });
});
await page.check('#voir-sens-local');
const t0 = Date.now();
await page.fill('#question', 'Une plaque de plâtre pour une pièce humide');
await page.locator('#colonne-sens-local li.resultat').first().waitFor({ timeout: 120000 });
const ready = Date.now() - t0;
const long = await page.evaluate(() => window.longTasks);
console.log(`model fetched (localhost), stored and prepared, first question ranked: ${ready} ms; longest main-thread task ${Math.round(Math.max(0, ...long))} ms (${long.length} over 50 ms)`);
const questions = ['Isoler les combles en soufflant', 'Une colle pour la faïence de la cuisine',
  'Cloison contre le bruit', 'Quel gravier pour une allée', 'Fixer une étagère lourde',
  'Un enduit pour un vieux mur', 'Des dalles pour la piscine', 'Reboucher une marche en béton',
  'Protéger une poutre', 'Mortier pour monter des parpaings', 'Peinture pour la salle de bains'];
const times = [];
for (const q of questions) {
  const t = await page.evaluate(async (q) => {
    const box = document.querySelector('#question');
    const start = performance.now();
    box.value = q;
    box.dispatchEvent(new Event('input', { bubbles: true }));
    // Until the column shows this question's results.
    for (;;) {
      await new Promise((r) => setTimeout(r, 0));
      const col = document.querySelector('#colonne-sens-local');
      if (col && col.querySelector('li.resultat') && !col.querySelector('p[role="status"]') && window.lastQ !== q) {
        window.lastQ = q;
        return performance.now() - start;
      }
      if (performance.now() - start > 10000) return NaN;
    }
  }, q);
  times.push(t);
}
times.sort((a, b) => a - b);
console.log(`a typed question, input to sens local results (model ready): median ${times[5].toFixed(1)} ms, min ${times[0].toFixed(1)}, max ${times[10].toFixed(1)} (11 questions)`);
await browser.close();
await server.close?.();
process.exit(0);
