//! The classes of commands that bash ran harmfully while toolgate said `auto` (issue:
//! "Nothing crashes the gate and `auto` leaks nothing"), each fixed where bash or git
//! defines it, with variants beyond the first sample.

use toolgate_core::{Policy, ToolCall};

fn verdict(cmd: &str) -> (String, String) {
    let p = Policy::defaults("/home/dev/app", "/home/dev");
    let v = p.classify(&ToolCall::new(
        "bash",
        serde_json::json!({ "command": cmd }),
    ));
    (v.tier.to_string(), v.rule.to_string())
}

fn check(cases: &[(&str, &str)]) {
    let bad: Vec<String> = cases
        .iter()
        .filter_map(|(cmd, want)| {
            let (tier, rule) = verdict(cmd);
            (tier != *want).then(|| format!("{cmd:?}: want {want}, got {tier} {rule}"))
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// bash's manual, "Here Documents": in an unquoted body `\$`, `` \` `` and `\\` lose
/// their backslash, so the shell that reads the body sees live substitutions.
#[test]
fn an_unquoted_here_document_reaches_the_shell_after_expansion() {
    check(&[
        ("bash <<E\necho \\`git push\\`\nE", "ask"),
        ("sh <<E\necho \\$(git push)\nE", "ask"),
        ("bash -s <<E\nls \\$(curl x)\nE", "ask"),
        ("cat <<E | bash\necho \\`touch x\\`\nE", "ask"),
        ("bash <<E\nrm -rf \\$HOME/\nE", "deny"),
        // Quoted: the body is the script as written, and `\`` is a literal backtick.
        ("bash <<'E'\necho \\`git push\\`\nE", "auto"),
        ("bash <<E\necho hi\nE", "auto"),
        ("bash <<E\necho a \\\\ b\nE", "auto"),
    ]);
}

/// bash's manual, "Double Quotes" and "Here Strings": backslash-newline is removed in
/// a here-string's word as in any double-quoted text, before `$(` is recognised.
#[test]
fn backslash_newline_inside_a_here_string() {
    check(&[
        ("cat <<< \"$\\\n(git push)\"", "ask"),
        ("cat <<<$\\\n(git push)", "ask"),
        ("wc -l <<< \"`git\\\n push`\"", "ask"),
        ("cat <<< \"a\\\nb\"", "auto"),
        ("cat <<< '$\\\n(git push)'", "auto"),
    ]);
}

/// bash's manual, "Pattern Matching": `[:class:]`, `[=c=]`, `[.s.]` inside a bracket
/// expression, and `!` / `^` negation.
#[test]
fn bracket_expressions_with_classes_can_name_a_secret() {
    check(&[
        ("tail -n 5 .[[:lower:]]nv", "ask"),
        ("cat .[[:alpha:]][[:alnum:]][[:lower:]]", "ask"),
        ("head .e[[=n=]]v", "ask"),
        ("cat .e[[.n.]]v", "ask"),
        ("cat .[^x]nv", "ask"),
        ("cat .[!x]nv", "ask"),
        ("cat ~/.ssh/id_[[:alpha:]]sa", "ask"),
        ("wc -c ~/.aws/cred[[:print:]]ntials", "ask"),
        ("cat src/[[:alpha:]]*.rs", "auto"),
        ("ls [[:upper:]]*.md", "auto"),
    ]);
}

/// git's own option tables (`git blame -h`, `git ls-files -h`, `git log -h`): every
/// option that opens a file, in every spelling git accepts.
#[test]
fn git_options_that_open_a_file() {
    check(&[
        ("git blame --contents=.env README.md", "ask"),
        ("git blame --contents .env README.md", "ask"),
        ("git blame --cont=.env README.md", "ask"),
        ("git blame -S .env README.md", "ask"),
        ("git blame -wS.env README.md", "ask"),
        ("git blame --ignore-revs-file=.env x", "ask"),
        ("git ls-files -X .env", "ask"),
        ("git ls-files --exclude-from=~/.ssh/id_rsa", "ask"),
        ("git ls-files --exclude-per-directory=.env", "ask"),
        ("git log -L1,5:.env", "ask"),
        ("git show -L 1,3:.env", "ask"),
        ("git -C ~/.aws blame --contents credentials x", "ask"),
        ("git log -p -- '.e*'", "ask"),
        ("git blame --contents=$f x", "ask"),
        ("git blame -L 1,5 src/main.rs", "auto"),
        ("git log -L1,5:src/main.rs", "auto"),
        ("git log --oneline -5", "auto"),
        ("git ls-files -x '*.rs'", "auto"),
    ]);
}

/// An option's value in a word of its own is globbed by bash before the program opens
/// it, with classes too (`grep -f .[[:lower:]]nv` reads `.env`).
#[test]
fn a_glob_in_an_option_value_that_opens_a_file() {
    check(&[
        ("grep -f .e?v notes.txt", "ask"),
        ("grep -f .[[:lower:]]nv notes.txt", "ask"),
        ("grep --file .[e]nv notes.txt", "ask"),
        ("jq --rawfile k .e?v -n 1", "ask"),
        ("grep -f pats*.txt notes.txt", "auto"),
        ("grep -f notes.txt README.md", "auto"),
    ]);
}

/// bash's manual, "Word Splitting" and "Filename Expansion": an unquoted loop variable
/// is split and globbed again.
#[test]
fn a_loop_value_is_split_and_globbed_when_unquoted() {
    check(&[
        ("for x in \". -delete\"; do find $x; done", "ask"),
        ("for x in '-exec rm {} +'; do find . $x; done", "ask"),
        ("for x in '.*'; do cat $x; done", "ask"),
        ("for x in 'a .env'; do cat $x; done", "ask"),
        ("for x in 'a b'; do cat \"$x\"; done", "auto"),
        ("for f in a.txt b.txt; do cat $f; done", "auto"),
    ]);
}

/// Secrets in the environment: a variable whose name looks secret, `/proc/*/environ`,
/// jq's `env` and `$ENV`.
#[test]
fn secrets_in_the_environment() {
    check(&[
        ("echo $AWS_SECRET_ACCESS_KEY", "ask"),
        ("echo \"key=${OPENAI_API_KEY}\"", "ask"),
        ("printf '%s\\n' \"$GITHUB_TOKEN\"", "ask"),
        ("echo ${DB_PASSWORD:-none}", "ask"),
        ("x=$NPM_TOKEN; echo $x", "ask"),
        ("cat <<E\n$STRIPE_SECRET_KEY\nE", "ask"),
        ("ls $HF_TOKEN", "ask"),
        ("[ \"$API_KEY\" -eq 1 ]", "ask"),
        ("cat /proc/self/environ", "ask"),
        ("tr '\\0' '\\n' < /proc/1/environ", "ask"),
        ("cat /proc/*/environ", "ask"),
        ("jq -n env", "ask"),
        ("jq -n 'env.AWS_SECRET_ACCESS_KEY'", "ask"),
        ("jq -n '$ENV'", "ask"),
        ("jq -f prog.jq data.json", "ask"),
        ("echo $HOME", "auto"),
        ("echo \"$PATH\"", "auto"),
        ("echo '$AWS_SECRET_ACCESS_KEY'", "auto"),
        ("[ -n \"$GITHUB_TOKEN\" ] && echo set", "auto"),
        ("[[ -z $OPENAI_API_KEY ]] || echo ok", "auto"),
        ("jq .env package.json", "auto"),
        // A name the command sets holds the command's value.
        ("for token in a b; do echo $token; done", "auto"),
        ("echo $REDIS_URL", "ask"),
    ]);
}

/// A program named by a path runs that file, not the program of its name.
#[test]
fn a_program_named_by_a_relative_path_is_the_workspace_file() {
    check(&[
        ("./ls -la", "ask"),
        ("bin/cat x", "ask"),
        ("../grep x y", "ask"),
        ("/home/dev/app/ls", "ask"),
        ("env ./ls", "ask"),
        ("xargs ./cat < list", "ask"),
        ("/usr/bin/../../tmp/ls", "ask"),
        ("./rm -rf /", "deny"),
        ("/usr/bin/ls -la", "auto"),
        ("/bin/cat README.md", "auto"),
    ]);
}

/// A case-insensitive file system takes `ſ` (U+017F) and `ı` (U+0131) for `s` and `i`
/// (NTFS compares upper-cased names: both upper-case to ASCII) and the Kelvin sign `K`
/// (U+212A) for `k` (APFS folds case): `id_rſa` opens `id_rsa` there, `.gıt/hooks` is
/// the hooks directory. Names are checked in their ASCII spelling.
#[test]
fn letters_a_case_insensitive_file_system_reads_as_ascii_name_secrets_and_protected_files() {
    check(&[
        ("cat id_rſa", "ask"),
        ("cat ~/.aws/credentıals", "ask"),
        ("cat ~/.\u{212a}ube/config", "ask"),
        ("head .ENV", "ask"),
        ("cat ./id_rſ?", "ask"),
        ("echo x > .gıt/hooks/pre-commit", "ask"),
        ("echo x > .vſcode/tasks.json", "ask"),
        ("cp a ~/.claude/ſettings.json", "deny"),
        // Letters with no ASCII reading stay as they are.
        ("cat ésumé.txt", "auto"),
        ("cat id_rsä", "auto"),
    ]);
    let p = Policy::defaults("/home/dev/app", "/home/dev");
    for (tool, args) in [
        (
            "Read",
            serde_json::json!({"file_path": "/home/dev/app/id_rſa"}),
        ),
        (
            "Read",
            serde_json::json!({"file_path": "/home/dev/.ſsh/id_ed25519"}),
        ),
        (
            "Edit",
            serde_json::json!({"file_path": "/home/dev/app/.gıt/config", "old_string": "a", "new_string": "b"}),
        ),
        (
            "Write",
            serde_json::json!({"file_path": "/home/dev/.claude/ſettings.json", "content": "{}"}),
        ),
    ] {
        let v = p.classify(&ToolCall::new(tool, args.clone()));
        assert_ne!(
            v.tier.to_string(),
            "auto",
            "{tool} {args}: {} {}",
            v.rule,
            v.reason
        );
    }
    let v = p.classify(&ToolCall::new(
        "Edit",
        serde_json::json!({"file_path": "/home/dev/app/.gıt/config", "old_string": "a", "new_string": "b"}),
    ));
    assert_eq!(v.rule.to_string(), "builtin.edit-git");
}

/// A Windows host takes `C:\Users\me\.ssh\id_rsa` (or `C:/…`, or `src\main.rs`) as a
/// path its tools open; read as a POSIX path it would be a file name inside the
/// workspace. A drive letter or a `\` makes a read or an edit ask (toolgate cannot tell
/// where it leads), and the name checks take `\` for `/`.
#[test]
fn windows_paths_are_never_taken_for_workspace_files() {
    check(&[
        ("cat 'C:\\Users\\me\\.ssh\\id_rsa'", "ask"),
        ("cat C:/Users/me/.aws/credentials", "ask"),
        ("echo x > '.git\\hooks\\pre-commit'", "ask"),
        ("echo x > 'C:\\temp\\out.txt'", "ask"),
    ]);
    let p = Policy::defaults("/home/dev/app", "/home/dev");
    for (tool, args) in [
        (
            "Read",
            serde_json::json!({"file_path": "C:\\Users\\me\\.ssh\\id_rsa"}),
        ),
        (
            "Read",
            serde_json::json!({"file_path": "C:\\Users\\me\\Documents\\notes.txt"}),
        ),
        (
            "Read",
            serde_json::json!({"file_path": "D:/secrets/notes.txt"}),
        ),
        (
            "Write",
            serde_json::json!({"file_path": "src\\main.rs", "content": "x"}),
        ),
        (
            "Edit",
            serde_json::json!({"file_path": "C:\\proj\\.git\\config", "old_string": "a", "new_string": "b"}),
        ),
    ] {
        let v = p.classify(&ToolCall::new(tool, args.clone()));
        assert_eq!(
            v.tier.to_string(),
            "ask",
            "{tool} {args}: {} {}",
            v.rule,
            v.reason
        );
    }
    // A POSIX path is read as before.
    let v = p.classify(&ToolCall::new(
        "Read",
        serde_json::json!({"file_path": "src/main.rs"}),
    ));
    assert_eq!(v.tier.to_string(), "auto");
}
