"""The real `toolgate-server` (TOOLGATE_SERVER_BIN) for the tests: on a SQLite file, on a
free loopback port, with the tokens given; stopped when the `with` block ends."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import time
from types import TracebackType
from typing import Any, Dict, List, Optional, Type

AGENT = "agent-secret-0123456789"
PHONE = "phone-secret-0123456789"
# Alice's agent (it parks and takes) and Alice's phone (it decides).
TOKENS: List[Dict[str, Any]] = [
    {"name": "py-agent", "owner": "alice", "roles": ["agent"], "token": AGENT},
    {"name": "alice-phone", "owner": "alice", "roles": ["approver"], "token": PHONE},
]


class Server:
    def __init__(self, db: str, tokens: Optional[List[Dict[str, Any]]] = None) -> None:
        binary = os.environ.get("TOOLGATE_SERVER_BIN")
        if not binary:
            raise AssertionError("TOOLGATE_SERVER_BIN must name the toolgate-server binary")
        self.process = subprocess.Popen(
            [binary, "--listen", "127.0.0.1:0", "--database", "sqlite:" + db],
            env={**os.environ, "TOOLGATE_TOKENS": json.dumps(TOKENS if tokens is None else tokens)},
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.url = ""

    def __enter__(self) -> "Server":
        out = self.process.stdout
        assert out is not None
        # Bounded: a server that never says where it listens fails the test.
        deadline = time.monotonic() + 20
        while not self.url and time.monotonic() < deadline:
            ready, _, _ = select.select([out], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            line = out.readline()
            if not line:
                break
            m = re.search(r"listening on (http://\S+)", line)
            if m:
                self.url = m.group(1).rstrip("/")
        if not self.url:
            self.__exit__(None, None, None)
            raise AssertionError("the server did not say where it listens")
        return self

    def __exit__(self, t: Optional[Type[BaseException]], e: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()
