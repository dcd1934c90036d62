"""A :class:`toolgate.RunStore` on a remote ``toolgate-server``: the same methods over its
HTTP API (``/v1/runs``), with the bearer token, a deadline on every request, and the
server's error codes as :class:`toolgate.ToolgateError`.

Every request ends within ``timeout`` seconds: the connection is cut at that deadline
whatever it waits for (the headers, a body sent a byte at a time); a failure is ``timeout``, ``unreachable``,
``bad_answer`` or the server's own code (``already_resumed``, ``anchor_mismatch``,
``unauthorized``…), never an approval. Redirects are not followed (the token would go
with them), and the token is only sent over HTTPS, or plain HTTP to this machine.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import math
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

from ._native import ToolgateError

# The most an answer may hold: the server's own request limit is far below it, but a
# run's history comes back whole.
MAX_ANSWER = 64 * 1024 * 1024


def _error(code: str, message: str, status: int = 0, decided_by: Optional[str] = None) -> ToolgateError:
    e = ToolgateError(message)
    e.code = code
    # What the server answered: its HTTP status (0 when none came back) and, for
    # `already_resumed`, who decided first.
    setattr(e, "status", status)
    setattr(e, "decided_by", decided_by)
    return e


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        raise _error("bad_answer", f"the server redirected to {newurl}: not followed (the token would go with it)", code)


class _Deadline:
    """Cuts a request's connection when its time is up, so no wait outlasts it."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds
        self.fired = False
        self._sock: Optional[socket.socket] = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: Optional[socket.socket]) -> None:
        with self._lock:
            self._sock = sock
            if self.fired:
                self._shut()

    def _cut(self) -> None:
        with self._lock:
            self.fired = True
            self._shut()

    def _shut(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        self._timer.cancel()


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib's opener for one request: no redirects, its connection under `deadline`."""

    class Http(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            deadline.watch(self.sock)

    class Https(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            deadline.watch(self.sock)

    class HttpHandler(urllib.request.HTTPHandler):
        def http_open(self, req: Any) -> Any:
            return self.do_open(Http, req)

    class HttpsHandler(urllib.request.HTTPSHandler):
        def https_open(self, req: Any) -> Any:
            return self.do_open(Https, req, context=getattr(self, "_context", None))

    return urllib.request.build_opener(_NoRedirects(), HttpHandler(), HttpsHandler())


class Client:
    """The HTTP API of one server, for one token. Its methods mirror the native store's
    (JSON text in, JSON text out), so :class:`toolgate.RunStore` calls either."""

    def __init__(self, url: str, token: str, timeout: float) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise _error("bad_url", f"{url!r}: a server's URL is http(s)://HOST[:PORT][/PATH]")
        if parts.scheme == "http" and not _loopback(parts.hostname):
            raise _error("bad_url", f"{url!r}: plain HTTP only to this machine; the token goes to {parts.hostname} over HTTPS")
        if parts.query or parts.fragment or parts.username or parts.password:
            raise _error("bad_url", f"{url!r}: no query, fragment or credentials in the server's URL")
        if not isinstance(token, str) or not token or any(c in token for c in "\r\n"):
            raise _error("bad_input", "token: the server's bearer token, a non-empty string")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0:
            raise _error("bad_input", "timeout: a positive number of seconds")
        self._base = url.rstrip("/")
        self._token = token
        self._timeout = float(timeout)
        self._me: Optional[Dict[str, Any]] = None

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Tuple[int, Any]:
        """``(status, the answer's JSON)`` for a 2xx; else the server's error raised."""
        data = None if body is None else json.dumps(body, allow_nan=False).encode()
        req = urllib.request.Request(self._base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self._token}")
        req.add_header("Accept", "application/json")
        req.add_header("Cache-Control", "no-store")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        deadline = _Deadline(self._timeout)
        late = f"the server did not answer within {self._timeout:g} s"
        try:
            with _opener(deadline).open(req, timeout=self._timeout) as res:
                return res.status, self._json(self._read(res, deadline))
        except urllib.error.HTTPError as e:
            raise self._failure(e, deadline) from None
        except ToolgateError:
            raise
        except (socket.timeout, TimeoutError):
            raise _error("timeout", late) from None
        except urllib.error.URLError as e:
            if deadline.fired or isinstance(e.reason, (socket.timeout, TimeoutError)):
                raise _error("timeout", late) from None
            raise _error("unreachable", f"the server could not be reached: {e.reason}") from None
        except (OSError, http.client.HTTPException) as e:
            if deadline.fired:
                raise _error("timeout", late) from None
            raise _error("unreachable", f"the server could not be reached: {e}") from None
        finally:
            deadline.cancel()

    def _read(self, res: Any, deadline: _Deadline) -> bytes:
        """The answer's body, in pieces, under the request's deadline and size bound."""
        chunks: List[bytes] = []
        size = 0
        while True:
            if deadline.fired or time.monotonic() > deadline.at:
                raise _error("timeout", f"the server did not answer within {self._timeout:g} s")
            chunk = res.read(65536)
            if not chunk:
                if deadline.fired:
                    raise _error("timeout", f"the server did not answer within {self._timeout:g} s")
                return b"".join(chunks)
            size += len(chunk)
            if size > MAX_ANSWER:
                raise _error("bad_answer", f"the server's answer is over {MAX_ANSWER} bytes")
            chunks.append(chunk)

    @staticmethod
    def _json(raw: bytes) -> Any:
        try:
            return json.loads(raw)
        except ValueError:
            raise _error("bad_answer", "the server's answer is not JSON") from None

    def _failure(self, e: urllib.error.HTTPError, deadline: _Deadline) -> ToolgateError:
        try:
            error = json.loads(self._read(e, deadline)).get("error") or {}
        except (ToolgateError, ValueError, AttributeError, OSError):
            error = {}
        code = error.get("code") if isinstance(error.get("code"), str) else None
        if e.code == 401:
            return _error(code or "unauthorized", "the server did not accept this token", 401)
        if code is None:
            return _error("bad_answer", f"the server answered HTTP {e.code}", e.code)
        by = error.get("decidedBy")
        return _error(code, str(error.get("message") or code), e.code, by if isinstance(by, str) else None)

    @staticmethod
    def _id(run_id: str) -> str:
        if not isinstance(run_id, str) or not run_id:
            raise _error("bad_input", "run_id: a non-empty string")
        return urllib.parse.quote(run_id, safe="")

    # The native store's methods (toolgate._native.RunStore), over HTTP.

    @property
    def owner(self) -> str:
        if self._me is None:
            _, self._me = self._request("GET", "/v1/me")
        return str((self._me or {}).get("owner", ""))

    def park_json(self, policy: Any, request: str) -> str:
        # The server classifies the calls with its own policy: the one that holds.
        body = json.loads(request)
        _, parked = self._request("POST", f"/v1/runs/{self._id(body['runId'])}/park", body)
        return json.dumps(parked)

    def run_json(self, run_id: str) -> Optional[str]:
        try:
            _, run = self._request("GET", f"/v1/runs/{self._id(run_id)}")
        except ToolgateError as e:
            if getattr(e, "status", 0) == 404:
                return None
            raise
        return json.dumps(run)

    def runs_json(self) -> str:
        runs: List[Any] = []
        cursor: Optional[str] = None
        while True:
            query = "?limit=500" + ("" if cursor is None else "&cursor=" + urllib.parse.quote(cursor, safe=""))
            _, page = self._request("GET", "/v1/runs" + query)
            runs.extend(page.get("runs") or [])
            cursor = page.get("nextCursor")
            if not cursor:
                return json.dumps(runs)

    def decide_json(self, run_id: str, request: str, by: str, policy: Any = None) -> str:
        # The server records the token's name as who decided (`by` is the local store's)
        # and classifies an edit with its own policy (`policy` is the local store's).
        _, decided = self._request("POST", f"/v1/runs/{self._id(run_id)}/decisions", json.loads(request))
        return json.dumps(decided)

    def take_json(self, run_id: str) -> str:
        _, taken = self._request("POST", f"/v1/runs/{self._id(run_id)}/resume")
        return json.dumps(taken)

    def complete_json(self, run_id: str) -> str:
        _, run = self._request("POST", f"/v1/runs/{self._id(run_id)}/complete")
        return json.dumps(run)

    def cancel_json(self, run_id: str, reason: str) -> str:
        _, run = self._request("POST", f"/v1/runs/{self._id(run_id)}/cancel", {"reason": reason})
        return json.dumps(run)
