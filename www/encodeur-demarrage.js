// Starts the local encoder's Web Worker: its module (src/bin/encodeur.rs) is built by Trunk
// beside the page as encodeur.js + encodeur_bg.wasm. A module that fails to load is rethrown as
// the worker's error, which the page reports in French (src/web/encoder.rs).
importScripts('./encodeur.js');
wasm_bindgen({ module_or_path: './encodeur_bg.wasm' }).catch((e) => setTimeout(() => { throw e; }));
