import { defineConfig } from "vite";

// The window's page; src-tauri/tauri.conf.json loads it from http://127.0.0.1:1420
// (devUrl: `vite --port 1420`, or the built dist/ served there).
export default defineConfig({
  build: { target: "es2022" },
  server: { host: "127.0.0.1", port: 1420, strictPort: true },
});
