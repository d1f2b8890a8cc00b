// Starts the page's Web Worker (src/worker/): its module is built by Trunk beside the page twice,
// as encodeur.js + encodeur_bg.wasm and, with its dense scan in relaxed SIMD, as
// encodeur-rapide.js + encodeur-rapide_bg.wasm (src/bin/encodeur_rapide.rs). An engine without
// relaxed SIMD refuses that second module as a whole. So it is tried only where the instruction it
// uses validates (a function returning i32x4.relaxed_dot_i8x16_i7x16_add_s of three splats:
// engines may ship relaxed SIMD's instructions one by one), and even then compiled first: if the
// engine still refuses it, the plain module starts instead. A module that fails to load is
// rethrown as the worker's error, which the page reports in French (src/web/worker_client.rs).
// The page waits for the worker's « Ready » before sending anything: starting late loses nothing.
const relaxedDot = WebAssembly.validate(new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 19, 1, 17, 0, 65, 1, 253, 15,
  65, 2, 253, 15, 65, 3, 253, 17, 253, 147, 2, 11,
]));

// Each module is also served gzipped (`<name>_bg.wasm.gz`, written by Trunk.toml's last hook):
// a static host need not compress wasm, and DecompressionStream inflates it here. An engine without DecompressionStream (Firefox before 113) fetches the plain file.
async function compiled(name) {
  if (typeof DecompressionStream === 'function') {
    try {
      const response = await fetch(`./${name}_bg.wasm.gz`);
      if (response.ok) {
        // Read whole first: a body that does not inflate fails here, not the request.
        const gz = await response.arrayBuffer();
        const inflated = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));
        return await WebAssembly.compile(await new Response(inflated).arrayBuffer());
      }
    } catch {
      // Not served, or not inflated: the plain file below.
    }
  }
  const response = await fetch(`./${name}_bg.wasm`);
  if (!response.ok) throw new Error(`${name}_bg.wasm: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}

async function start() {
  if (relaxedDot) {
    let module = null;
    try {
      module = await compiled('encodeur-rapide');
    } catch {
      // Refused by this engine: the plain module below.
    }
    if (module) {
      importScripts('./encodeur-rapide.js');
      return wasm_bindgen({ module_or_path: module });
    }
  }
  const module = await compiled('encodeur');
  importScripts('./encodeur.js');
  return wasm_bindgen({ module_or_path: module });
}

start().catch((e) => setTimeout(() => { throw e; }));
