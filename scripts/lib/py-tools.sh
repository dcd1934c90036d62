# The release tooling's Python packages (release/requirements.txt: maturin, pypiserver,
# uv) in a venv of their own, ${CARGO_TARGET_DIR:-target}/py-tools, made again when the
# requirements change. Sourced from the repository root; `py_tools` prints the venv's
# bin directory.
py_tools() {
  local venv
  venv="$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)/py-tools"
  if ! cmp -s release/requirements.txt "$venv/requirements.txt"; then
    echo "py-tools: pip install -r release/requirements.txt into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r release/requirements.txt >&2
    cp release/requirements.txt "$venv/requirements.txt"
  fi
  echo "$venv/bin"
}
