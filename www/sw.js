// The page's service worker: this build kept for use offline after one visit (issue 64, R4).
//
// - Its cache is named by VERSION, the hash of every file of the build but the model's blocks
//   (scripts/service_worker.py writes it and SHELL at build time). A new deploy is a new worker,
//   which fills its own cache, then deletes every other build's: no file of an older build is
//   ever served by it.
// - Online, every request goes to the network first, and a good answer is kept: nothing stale is
//   served while the site answers. Offline, the kept answer is served.
// - At install, the files the page loads at start (SHELL) are kept from the browser's HTTP cache,
//   where the visit that registered this worker just put them ('only-if-cached': no second
//   download), or fetched if they are not there; the local encoder's worker files, the web app
//   manifest and the icons too when the visit already fetched them (IF_USED, from the HTTP cache
//   only: never a download the learner did not need).
// - Never handled: other origins (api.mistral.ai and the learner's key are never seen here),
//   other methods than GET, and the model's head and blocks (data/modele-local/), which the page
//   keeps itself (IndexedDB, and its worker's Cache Storage, each checked before use).
const VERSION = 'VERSION';
const SHELL = ['SHELL'];
const IF_USED = ['IF_USED'];
const PREFIX = 'rag-fiches-site-';
const CACHE = `${PREFIX}${VERSION}`;
const SCOPE = new URL('./', self.location).href;
const NOT_HANDLED = new URL('./data/modele-local/', self.location).href;

async function keepFromHttpCache(cache, path, required) {
  const url = new URL(path, SCOPE).href;
  try {
    const cached = await fetch(url, { cache: 'only-if-cached', mode: 'same-origin' });
    if (cached.ok) {
      await cache.put(url, cached);
      return;
    }
  } catch {
    // An engine without 'only-if-cached', or nothing in the HTTP cache.
  }
  if (!required) return;
  const fetched = await fetch(url, { cache: 'no-cache' });
  if (!fetched.ok) throw new Error(`${path}: ${fetched.status}`);
  await cache.put(url, fetched);
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(SHELL.map((p) => keepFromHttpCache(cache, p, true)));
    await Promise.all(IF_USED.map((p) => keepFromHttpCache(cache, p, false)));
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

/** The network's answer, kept; or, when the network fails, the kept one. */
async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  const url = new URL(request.url);
  url.hash = '';
  const key = request.mode === 'navigate' && url.href.startsWith(SCOPE) && url.search === ''
    && (url.href === SCOPE || url.href === `${SCOPE}index.html`) ? SCOPE : url.href;
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic' && !response.headers.has('content-range')) {
      await cache.put(key, response.clone());
    }
    return response;
  } catch (error) {
    const kept = await cache.match(key, { ignoreSearch: request.mode === 'navigate' });
    if (kept) return kept;
    throw error;
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || !request.url.startsWith(SCOPE) || request.url.startsWith(NOT_HANDLED)) return;
  event.respondWith(networkFirst(request));
});
