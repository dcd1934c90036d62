export default {
  mode: "production",
  entry: "./src/main.js",
  output: { path: new URL("./dist", import.meta.url).pathname, filename: "main.js", clean: true },
};
