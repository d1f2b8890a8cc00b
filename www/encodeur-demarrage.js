// Starts the page's Web Worker (src/worker.rs): its module is built by Trunk beside the page twice,
// as encodeur.js + encodeur_bg.wasm and, with its dense scan in relaxed SIMD, as
// encodeur-rapide.js + encodeur-rapide_bg.wasm (src/bin/encodeur_rapide.rs). An engine without
// relaxed SIMD refuses that second module as a whole, so it is started only where this smallest
// module using relaxed SIMD validates (a function returning i8x16.relaxed_swizzle of two splats,
// as the wasm-feature-detect library tests it). A module that fails to load is rethrown as the
// worker's error, which the page reports in French (src/web/encoder.rs).
const relaxed = WebAssembly.validate(new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 15, 1, 13, 0, 65, 1, 253, 15,
  65, 2, 253, 15, 253, 128, 2, 11,
]));
const name = relaxed ? 'encodeur-rapide' : 'encodeur';
importScripts(`./${name}.js`);
wasm_bindgen({ module_or_path: `./${name}_bg.wasm` }).catch((e) => setTimeout(() => { throw e; }));
