// The page's service worker: this build kept for use offline after one visit.
//
// - Its cache is named by VERSION, the hash of every file of the build but the model's blocks
//   (scripts/service_worker.py writes it, SHELL and IF_USED at build time). A new deploy is a new
//   worker, which fills its own cache, then deletes every other build's: no file of an older
//   build is ever served by it.
// - It handles only the page itself and the files it keeps (SHELL and IF_USED, by exact URL):
//   online, the network answers first and its good answer is kept, so nothing stale is served
//   while the site answers; offline, the kept answer is served. Every other request is left to
//   the browser: other origins (api.mistral.ai and the learner's key are never seen here), other
//   methods than GET, and the model's head and blocks (data/modele-local/), which the page keeps
//   itself, each checked before use. Where the engine has static routing (Chromium), the model's
//   files never even reach this worker: the browser fetches them as if it were not there.
// - At install, the files the page loads at start (SHELL) are kept, read from the browser's HTTP
//   cache where the visit that registered this worker just put them ('force-cache': no second
//   download where the engine lets a service worker read that cache; WebKit's does not). The
//   local encoder's worker files, the web app manifest, the icons and the data fetched on demand
//   (IF_USED) are kept when the page fetches them under this worker: never a download the learner
//   did not need.
const VERSION = 'VERSION';
const SHELL = ['SHELL'];
const IF_USED = ['IF_USED'];
const PREFIX = 'rag-fiches-site-';
const CACHE = `${PREFIX}${VERSION}`;
const SCOPE = new URL('./', self.location).href;
const KEPT = new Set([...SHELL, ...IF_USED].map((p) => new URL(p, SCOPE).href));

async function keep(cache, path) {
  const url = new URL(path, SCOPE).href;
  const response = await fetch(url, { cache: 'force-cache' });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  await cache.put(url, response);
}

self.addEventListener('install', (event) => {
  if (event.addRoutes && self.URLPattern) {
    try {
      event.addRoutes([{
        condition: { urlPattern: new URLPattern({ pathname: `${new URL('./data/modele-local/', SCOPE).pathname}*` }) },
        source: 'network',
      }]).catch(() => {});
    } catch {
      // An engine whose routes take another form: every request reaches the fetch handler.
    }
  }
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(SHELL.map((p) => keep(cache, p)));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

/** The key a request is kept under: the page's own address for a visit of it, else its URL. */
function keyOf(request) {
  const url = new URL(request.url);
  url.hash = '';
  if (request.mode === 'navigate') {
    url.search = '';
    if (url.href === `${SCOPE}index.html`) return SCOPE;
  }
  return url.href;
}

/** The network's answer, kept in the background; or, when the network fails, the kept one. */
async function networkFirst(event, key) {
  try {
    const response = await fetch(event.request);
    if (response.ok && response.type === 'basic' && !response.headers.has('content-range')) {
      const copy = response.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)).catch(() => {}));
    }
    return response;
  } catch (error) {
    const kept = await (await caches.open(CACHE)).match(key);
    if (kept) return kept;
    throw error;
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const key = keyOf(request);
  const page = request.mode === 'navigate' && key === SCOPE;
  if (!page && !KEPT.has(key)) return;
  event.respondWith(networkFirst(event, key));
});
