"""Type-checked by mypy --strict in the tests: the package's public API as a user
writes it (wrong uses would fail the check)."""

from __future__ import annotations

from typing import Optional, Tuple

import toolgate


def gate(command: str) -> bool:
    policy: toolgate.Policy = toolgate.Policy.defaults(workspace="/w", home="/h")
    v: toolgate.Verdict = policy.classify("bash", {"command": command})
    tier: toolgate.Tier = v.tier
    span: Optional[Tuple[int, int]] = v.span
    parts: Tuple[toolgate.Part, ...] = v.parts
    del span, parts
    try:
        toolgate.Policy.from_toml("", workspace="/w")
    except toolgate.ToolgateError as e:
        code: str = e.code
        del code
    return tier == "auto"


def park_and_take(url: str) -> Optional[str]:
    store = toolgate.RunStore(url, owner="alice", name="agent")
    policy = toolgate.Policy.defaults(workspace="/w", home="/h")
    parked: toolgate.Wire = store.park(
        policy, "run-1", [{"toolCallId": "c1", "tool": "bash", "args": {"command": "make"}}], "[]"
    )
    run: Optional[toolgate.Wire] = store.run("run-1")
    del parked, run
    taken = store.take("run-1")
    outcome = taken["results"][0]["outcome"]
    return outcome if isinstance(outcome, str) else None
