// The baseline of the speed benchmark (web/bench/speed.mjs): a plain JavaScript regex
// gate, as a host writes one without a parser. Deny patterns first, then the command
// split on `;`, `&&`, `||` and `|` with every part matched against an allowlist of
// read-only programs; anything else asks. It is not safe (quotes, substitutions and
// redirections fool it): it is the cost to beat, not a classifier.

const DENY = [
  /\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*\s+|--recursive\s+)+(-[a-zA-Z]+\s+)*(\/|~|\$HOME)(\s|$)/,
  /\b(sudo|doas|pkexec|su)\b/,
  /\b(mkfs(\.\w+)?|wipefs|fdisk|parted)\b/,
  /\bdd\b.*\bof=\/dev\//,
  /\b(curl|wget)\b[^|]*\|\s*(ba|z|da)?sh\b/,
  /:\(\)\s*\{\s*:\|:&\s*\};:/,
  /\bchmod\s+(-R\s+)?[0-7]*777\s+\//,
  /\b(shutdown|reboot|halt|poweroff)\b/,
  /\bgit\s+push\s+.*--force\b/,
  />\s*\/dev\/sd[a-z]/,
  /\/etc\/(passwd|shadow|sudoers)/,
  /~\/\.ssh\/|\.aws\/credentials|\.env\b/,
  /\bhistory\s+-c\b/,
  /\bcrontab\s+-r\b/,
  /\biptables\s+-F\b/,
];
const ALLOW = [
  /^(ls|pwd|echo|cat|head|tail|wc|sort|uniq|cut|tr|grep|egrep|fgrep|rg|find|file|stat|du|df|which|whoami|date|env|printenv|basename|dirname|realpath|tree|less|more|diff|cmp|true|false|test|\[)(\s|$)/,
  /^git\s+(status|log|diff|show|branch|rev-parse|ls-files|blame|remote\s+-v|describe|tag)(\s|$)/,
  /^(npm|pnpm|yarn)\s+(test|run\s+(test|lint|build))(\s|$)/,
  /^(cargo)\s+(build|test|check|clippy|fmt\s+--check|tree|metadata)(\s|$)/,
  /^(python3?|node)\s+--version$/,
  /^(pytest|go\s+test|go\s+vet|make\s+test)(\s|$)/,
  /^sed\s+-n\s/,
  /^awk\s+'[^']*'\s/,
  /^cd\s+\S+$/,
];
const READ_TOOLS = new Set(["read", "Read", "read_file", "view", "glob", "Glob", "grep", "Grep", "ls", "LS"]);
const EDIT_TOOLS = new Set(["edit", "Edit", "write", "Write", "MultiEdit", "replace", "write_file"]);

export function regexGate(call, workspace) {
  const tool = call && call.tool;
  const args = (call && call.args) || {};
  if (tool === "bash" || tool === "Bash" || tool === "shell" || tool === "run_shell_command") {
    const command = typeof args.command === "string" ? args.command : Array.isArray(args.command) ? args.command.join(" ") : null;
    if (command === null) return { tier: "ask", rule: "regex.malformed", reason: "no command" };
    for (const re of DENY) if (re.test(command)) return { tier: "deny", rule: "regex.deny", reason: `matches ${re.source}` };
    const parts = command.split(/\s*(?:;|&&|\|\||\|)\s*/);
    for (const part of parts) {
      const p = part.trim();
      if (p && !ALLOW.some((re) => re.test(p))) return { tier: "ask", rule: "regex.ask", reason: `not allowlisted: ${p.slice(0, 40)}` };
    }
    return { tier: "auto", rule: "regex.allow", reason: "every part allowlisted" };
  }
  const path = args.file_path ?? args.path ?? args.filePath;
  if (READ_TOOLS.has(tool) || EDIT_TOOLS.has(tool)) {
    if (typeof path !== "string") return { tier: "ask", rule: "regex.malformed", reason: "no path" };
    if (/\.ssh\/|\.aws\/|\.env$|\/etc\/shadow/.test(path)) return { tier: "ask", rule: "regex.secret", reason: "secret file" };
    const inside = !path.startsWith("/") || path.startsWith(workspace + "/");
    return inside ? { tier: "auto", rule: "regex.workspace", reason: "inside the workspace" } : { tier: "ask", rule: "regex.outside", reason: "outside the workspace" };
  }
  return { tier: "ask", rule: "regex.unknown", reason: "unknown tool" };
}
