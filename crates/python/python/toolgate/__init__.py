"""toolgate: a human-in-the-loop gate for AI agents' tool calls.

The same Rust core as the ``toolgate`` command and the npm package, through PyO3:
``Policy.defaults(workspace=..., home=...)`` or ``Policy.from_toml(text)``, then
``policy.classify(tool, args)`` gives a frozen :class:`Verdict` (``auto``, ``sandbox``,
``ask`` or ``deny``, the rule that decided and why). Errors are :class:`ToolgateError`
with a stable ``code``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, cast

from . import _http, _native
from ._native import ToolgateError

__all__ = ["Policy", "RunStore", "Verdict", "Part", "Tier", "Wire", "ToolgateError", "anchor", "__version__"]

__version__: str = _native.__version__

Tier = Literal["auto", "sandbox", "ask", "deny"]
"""A verdict's tier, least to most strict: ``auto`` runs, ``sandbox`` runs contained,
``ask`` waits for a person, ``deny`` never runs."""

_TIERS = ("auto", "sandbox", "ask", "deny")


@dataclass(frozen=True)
class Part:
    """One simple command of a shell command, with its own verdict."""

    tier: Tier
    text: str
    rule: str
    reason: str
    span: Optional[Tuple[int, int]] = None


@dataclass(frozen=True)
class Verdict:
    """What toolgate says of one tool call.

    ``span`` is the byte range of the shell command that decided (``None`` when there is
    none); ``parts`` every simple command of a shell command (empty for other tools).
    """

    tier: Tier
    rule: str
    reason: str
    span: Optional[Tuple[int, int]] = None
    parts: Tuple[Part, ...] = ()

    @staticmethod
    def _from_json(text: str) -> "Verdict":
        v = json.loads(text)
        return Verdict(
            tier=_tier(v["tier"]),
            rule=v["rule"],
            reason=v["reason"],
            span=_span(v.get("span")),
            parts=tuple(
                Part(
                    tier=_tier(p["tier"]),
                    text=p["text"],
                    rule=p["rule"],
                    reason=p["reason"],
                    span=_span(p.get("span")),
                )
                for p in v.get("parts") or ()
            ),
        )


def _tier(t: str) -> Tier:
    if t not in _TIERS:
        raise _error("internal", f"unknown tier {t!r}")
    return cast(Tier, t)


def _span(s: Any) -> Optional[Tuple[int, int]]:
    if s is None:
        return None
    start, end = s
    return (int(start), int(end))


class Policy:
    """A policy: toolgate's built-in rules, or a policy file's, for one workspace and
    home. Immutable; one policy may classify from many threads."""

    __slots__ = ("_inner",)

    def __init__(self, inner: _native.Policy) -> None:
        self._inner = inner

    @classmethod
    def defaults(cls, *, workspace: str, home: str) -> "Policy":
        """The built-in policy for ``workspace`` and ``home`` (absolute paths)."""
        return cls(_native.Policy.defaults(workspace, home))

    @classmethod
    def from_toml(
        cls, text: str, *, workspace: Optional[str] = None, home: Optional[str] = None
    ) -> "Policy":
        """A policy file's text (TOML, as ``toolgate --policy FILE`` reads it);
        ``workspace`` and ``home`` override the file's. A bad file raises
        :class:`ToolgateError` with code ``bad_policy``, naming the line."""
        return cls(_native.Policy.from_toml(text, workspace, home))

    @property
    def workspace(self) -> str:
        """The workspace paths are judged against."""
        return self._inner.workspace

    @property
    def home(self) -> str:
        """The home directory paths are judged against."""
        return self._inner.home

    def classify(self, tool: str, args: Mapping[str, Any], *, fs: bool = False) -> Verdict:
        """The verdict for calling ``tool`` with ``args`` (a JSON-like mapping).

        With ``fs=True`` paths are looked up on this machine (symbolic links, what
        exists), as ``toolgate classify --fs`` does. Arguments that are not JSON (a set,
        a NaN) raise :class:`ToolgateError` with code ``bad_input``.
        """
        if not isinstance(tool, str):
            raise _error("bad_input", f"tool must be a str, not {type(tool).__name__}")
        try:
            call = json.dumps({"tool": tool, "args": args}, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise _error("bad_input", f"the arguments are not JSON: {e}") from None
        return Verdict._from_json(self._inner.classify_json(call, fs))

    def __repr__(self) -> str:
        return f"Policy(workspace={self.workspace!r}, home={self.home!r})"


Wire = Dict[str, Any]
"""A run, a parked run or a resumed run in the wire shape ``toolgate-server`` and the
JavaScript API speak (camelCase keys: ``runId``, ``status``, ``marker``, ``results``…)."""


class RunStore:
    """Parked runs in a database: ``sqlite:PATH`` (created when absent) or
    ``postgres://…``, the same tables ``toolgate-server`` uses, so its panel on any device
    shows and decides the runs parked here, each decision exactly once; or on a remote
    ``toolgate-server``: ``https://HOST[/PATH]`` (plain ``http://`` only to this machine)
    with ``token``, the same methods over its HTTP API, each request ended within
    ``timeout`` seconds. Over HTTP the server's policy classifies what is parked, and the
    token decides who the runs' owner and parker are (``owner`` and ``name`` are the
    database's); a failed request is a :class:`ToolgateError` (``timeout``,
    ``unreachable``, ``bad_answer`` or the server's code, with ``.status``), never an
    approval.

    A run is parked with its calls (each classified by the policy, never by the caller)
    and the agent's history; a person decides (the panel, ``toolgate decide``, or
    :meth:`decide`); the agent takes the decision once (:meth:`take`), in this process or
    another after a restart. Runs are ``owner``'s and parked by ``name`` (the server's
    token names).
    """

    __slots__ = ("_inner",)

    def __init__(
        self,
        url: str,
        *,
        owner: str = "local",
        name: str = "python",
        token: Optional[str] = None,
        timeout: float = 10.0,
    ) -> None:
        self._inner: "_native.RunStore | _http.Client"
        if isinstance(url, str) and url.split(":", 1)[0].lower() in ("http", "https"):
            if token is None:
                raise _error("bad_input", "token: a remote server needs its bearer token")
            self._inner = _http.Client(url, token, timeout)
        else:
            if token is not None:
                raise _error("bad_input", "token: only a remote server's URL (https://…) takes a token")
            self._inner = _native.RunStore(url, owner, name)

    @property
    def owner(self) -> str:
        """The owner runs are parked as (over HTTP, the token's: asked once)."""
        return self._inner.owner

    def park(
        self,
        policy: Policy,
        run_id: str,
        calls: Sequence[Mapping[str, Any]],
        history: str,
        *,
        session_id: Optional[str] = None,
        ttl_ms: Optional[int] = None,
    ) -> Wire:
        """Parks ``calls`` (each ``{"toolCallId", "tool", "args"}``, or with
        ``"question": "…"`` a question for the person: answered, never approved) with
        ``history``; the parked run (``{"run": …}``). A run id in use, a call the policy
        denies, or a call that needs no person is a :class:`ToolgateError`."""
        request: Dict[str, Any] = {"runId": run_id, "calls": list(calls), "history": history}
        if session_id is not None:
            request["sessionId"] = session_id
        if ttl_ms is not None:
            request["ttlMs"] = ttl_ms
        return _wire(self._inner.park_json(policy._inner, _dumps(request)))

    def run(self, run_id: str) -> Optional[Wire]:
        """The run, or ``None`` when there is none."""
        text = self._inner.run_json(run_id)
        return None if text is None else _wire(text)

    def runs(self) -> List[Wire]:
        """The owner's runs."""
        return cast(List[Wire], json.loads(self._inner.runs_json()))

    def decide(
        self,
        run_id: str,
        decisions: Sequence[Mapping[str, Any]],
        *,
        by: str,
        revision: Optional[int] = None,
        policy: Optional[Policy] = None,
    ) -> Wire:
        """A person's decisions (``{"toolCallId", "anchor", "decision": "allow" |
        "deny" | "answer", "message"?, "args"?, "answer"?}``, the anchor as the run's
        marker shows it; only a question is answered, and never allowed:
        ``answer_refused``), once;
        ``by`` names who decided (over HTTP the server records the token's name: an
        approver's token decides). A second decision is ``already_resumed``; a wrong
        anchor ``anchor_mismatch``. An allow with ``args`` approves the person's edit of
        the call, classified again by ``policy`` (over HTTP, the server's): an edit it
        denies, or any edit without a policy, is ``edit_refused``."""
        request: Dict[str, Any] = {"decisions": list(decisions)}
        if revision is not None:
            request["revision"] = revision
        return _wire(self._inner.decide_json(run_id, _dumps(request), by, None if policy is None else policy._inner))

    def take(self, run_id: str) -> Wire:
        """What a person decided (each call's ``outcome`` and the approved ``args``),
        with the parked ``history``: once (then ``already_resumed``). Nobody decided yet
        is ``awaiting_permission``; an expired marker gives each call ``expired``."""
        return _wire(self._inner.take_json(run_id))

    def complete(self, run_id: str) -> Wire:
        """Marks a run whose decision was taken (``running``) completed."""
        return _wire(self._inner.complete_json(run_id))

    def cancel(self, run_id: str, reason: str) -> Wire:
        """Cancels a run that runs or waits (its marker cleared, nothing resumes it)."""
        return _wire(self._inner.cancel_json(run_id, reason))


def anchor(tool: str, args: Mapping[str, Any]) -> str:
    """A call's anchor: lowercase hex SHA-256 of ``tool``, a NUL byte and the canonical
    JSON of ``args`` (key order never matters), what a decision binds to."""
    return _native.anchor(tool, _dumps(args))


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise _error("bad_input", f"not JSON: {e}") from None


def _wire(text: str) -> Wire:
    return cast(Wire, json.loads(text))


def _error(code: str, message: str) -> ToolgateError:
    e = ToolgateError(message)
    e.code = code
    return e
