import { defineConfig } from "vite";

// One page: chat.html (a React chat on useChat, its agent in the page).
export default defineConfig({
  build: {
    target: "es2022",
    rollupOptions: { input: { chat: "chat.html" } },
  },
});
