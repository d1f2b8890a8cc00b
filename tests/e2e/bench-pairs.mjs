// Browser benchmark (prints figures; asserts nothing): the pair compared in « Mesurer », changed
// twelve times (both selects each time) on the exercise's methods. A `longtask` observer lists
// every main-thread task over 50 ms; for each change, the time the first select's event took to
// handle, and the time until the pair's table of three measures shows the new pair.
// Run after `trunk build --release`:
//   node tests/e2e/bench-pairs.mjs
import { serveDist, openPage, launch } from './harness.mjs';
const server = await serveDist();
const browser = await launch();
const { page, context } = await openPage(browser, server.url + '#vue=mesurer');
await page.waitForSelector('table.paires[data-type="courante"] tr[data-paire]');
await page.evaluate(() => { window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' }); });
const names = ['mots', 'mots+', 'sens local', 'hybride local'];
const out = [];
for (let k = 0; k < 12; k++) {
  const a = names[k % 4], b = names[(k + 1 + (k >> 2)) % 4 === k % 4 ? (k + 2) % 4 : (k + 1 + (k >> 2)) % 4];
  const r = await page.evaluate(async ([a, b]) => {
    const t = performance.now();
    const sa = document.querySelector('#comparer-a'); sa.value = a; sa.dispatchEvent(new Event('change', { bubbles: true }));
    const sync1 = performance.now() - t;
    while (!document.querySelector('#comparer-b')) await new Promise((ok) => setTimeout(ok, 0));
    const sb = document.querySelector('#comparer-b'); sb.value = b; sb.dispatchEvent(new Event('change', { bubbles: true }));
    const want = `${a} − ${b}`;
    for (;;) {
      const c = document.querySelector('table.ecarts[data-type="courante"] caption')?.textContent ?? '';
      if (c.endsWith(want)) break;
      await new Promise((ok) => setTimeout(ok, 0));
    }
    return [sync1, performance.now() - t];
  }, [a, b]);
  out.push(r);
}
await new Promise((ok) => setTimeout(ok, 500));
console.log('first change sync (ms):', out.map((r) => r[0].toFixed(1)).join(' '));
console.log('both changes until the pair table shows (ms):', out.map((r) => r[1].toFixed(1)).join(' '));
console.log('long tasks (> 50 ms):', JSON.stringify(await page.evaluate(() => window.__long)));
await context.close(); await browser.close(); await server.close();
