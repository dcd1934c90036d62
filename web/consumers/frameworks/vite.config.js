import { defineConfig } from "vite";

// Two pages, one build: react.html and vue.html.
export default defineConfig({
  build: {
    rollupOptions: { input: { react: "react.html", vue: "vue.html" } },
  },
});
