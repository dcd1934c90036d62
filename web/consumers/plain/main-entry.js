// The plain page with a Gate of the main entry ("toolgate", another WebAssembly module
// than the element's), shown through `el.source = gateRunSource(gate)` (main-entry.html).
window.mainEntry = true;
await import("./main.js");
