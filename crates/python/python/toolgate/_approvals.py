"""What the framework adapters share: whether an approved call may run, by the store's
record of the decision, and the run completed once its approved calls ran."""

from __future__ import annotations

from typing import Any, Dict, Optional, Set, Tuple

from . import RunStore, ToolgateError, Wire, anchor


class Approvals:
    """The approved calls of resumed runs this process has run, checked against the
    store: an approved call runs once, for the arguments a person saw, while its run is
    not completed."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._ran: Dict[str, Set[str]] = {}
        self._edits: Dict[Tuple[str, str], Dict[str, Any]] = {}

    def took(self, run_id: str, results: Any) -> None:
        """Remembers the person's edits among a take's results: the arguments each
        edited call runs with instead (known to the process that took them, once)."""
        for r in results or []:
            if r.get("outcome") == "approved" and r.get("editedFrom") is not None and isinstance(r.get("args"), dict):
                self._edits[(run_id, str(r.get("toolCallId")))] = dict(r["args"])

    def edited(self, run_id: str, call_id: str) -> Optional[Dict[str, Any]]:
        """The person's edit of an approved call, to run instead of its arguments."""
        return self._edits.get((run_id, call_id))

    def check(self, run: Optional[Wire], name: str, args: Dict[str, Any], call_id: str) -> Tuple[Optional[str], int]:
        """``(None, approved calls in the run)`` when the call may run now; else why not.
        The call's id must be approved in ``run``'s decision for an anchor equal to these
        arguments'."""
        if run is None:
            return "no person approved this call through toolgate", 0
        decided = (run.get("decision") or {}).get("calls") or []
        approved = [c for c in decided if c.get("outcome") == "approved"]
        mine = next((c for c in approved if c.get("toolCallId") == call_id), None)
        if mine is None:
            return "no person approved this call through toolgate", 0
        if mine.get("anchor") != anchor(name, args):
            return "its arguments are not the ones a person approved", 0
        if mine.get("editedFrom") is not None and (str(run.get("runId")), call_id) not in self._edits:
            return "a person approved an edit of it, which this process did not take", 0
        if run.get("status") != "running" or call_id in self._ran.get(str(run.get("runId")), set()):
            return "its approval was used already", 0
        return None, len(approved)

    def done(self, run_id: str, call_id: str, approved: int) -> None:
        """The call ran: once every approved call of the run has, the run is completed."""
        ran = self._ran.setdefault(run_id, set())
        ran.add(call_id)
        if len(ran) >= approved:
            try:
                self.store.complete(run_id)
            except ToolgateError:
                pass
