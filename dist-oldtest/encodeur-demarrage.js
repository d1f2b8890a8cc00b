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

// Each module and its glue are also served gzipped (`<name>_bg.wasm.gz`, `<name>.js.gz`, written
// by Trunk.toml's last hook): a static host need not compress wasm, and DecompressionStream
// inflates them here. An engine without DecompressionStream (Firefox before 113), or a gzipped
// file that is not served or does not inflate, gets the plain file.
async function inflated(path) {
  if (typeof DecompressionStream !== 'function') return null;
  try {
    const response = await fetch(`${path}.gz`);
    if (!response.ok) return null;
    // Read whole first: a body that does not inflate fails here, not the request.
    const gz = await response.arrayBuffer();
    const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));
    return await new Response(stream).arrayBuffer();
  } catch {
    return null;
  }
}

async function compiled(name) {
  const bytes = await inflated(`./${name}_bg.wasm`);
  if (bytes) return WebAssembly.compile(bytes);
  const response = await fetch(`./${name}_bg.wasm`);
  if (!response.ok) throw new Error(`${name}_bg.wasm: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}

/** Runs the module's glue (wasm-bindgen's `no-modules` script, which defines `wasm_bindgen`). */
async function glue(name) {
  const bytes = await inflated(`./${name}.js`);
  if (bytes) {
    const url = URL.createObjectURL(new Blob([bytes], { type: 'text/javascript' }));
    try {
      importScripts(url);
      return;
    } catch {
      // Refused (a policy against blob: scripts): the plain file below.
    } finally {
      URL.revokeObjectURL(url);
    }
  }
  importScripts(`./${name}.js`);
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
      await glue('encodeur-rapide');
      return wasm_bindgen({ module_or_path: module });
    }
  }
  const module = await compiled('encodeur');
  await glue('encodeur');
  return wasm_bindgen({ module_or_path: module });
}

start().catch((e) => setTimeout(() => { throw e; }));
