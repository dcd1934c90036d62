// toolgate/opencode: toolgate's gate as an OpenCode plugin (a V1 plugin module: OpenCode
// 1.18.29 and later load a default export `{id, server}`). Use it from a plugin file in
// `.opencode/plugins/` or `~/.config/opencode/plugins/`:
//   export { default } from "toolgate/opencode";
// or let `toolgate install opencode` write a standalone copy there.

/** What OpenCode passes a plugin (the part this plugin reads). */
export interface OpenCodePluginInput {
  directory?: string;
  worktree?: string;
  [key: string]: unknown;
}

/** The plugin's options (from `opencode.json`: `["…", {…}]`). */
export interface ToolgateOpenCodeOptions {
  /** The hook command, run through the shell (default: the native binary of the
   * platform package npm installed beside toolgate, or `TOOLGATE_BINARY`, with
   * `hook opencode`). */
  command?: string;
  /** How long to wait for toolgate's answer before refusing the call (default 30000). */
  timeoutMs?: number;
}

/** The hooks the plugin registers: `tool.execute.before`, which throws for every call
 * toolgate does not allow (a deny, an ask, any failure) and rewrites a sandboxed
 * command's arguments in place. */
export interface ToolgateOpenCodeHooks {
  "tool.execute.before": (
    input: { tool: string; sessionID: string; callID: string },
    output: { args: any },
  ) => Promise<void>;
}

declare const plugin: {
  id: "toolgate";
  server(input: OpenCodePluginInput, options?: ToolgateOpenCodeOptions): Promise<ToolgateOpenCodeHooks>;
};
export default plugin;
