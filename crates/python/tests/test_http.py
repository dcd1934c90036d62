"""`toolgate.RunStore` on a remote toolgate-server (the real one, over loopback HTTP): the
same methods with the agent's and the phone's tokens, exactly once; the three framework
adapters unchanged over it, across processes; and every way a request fails (a wrong
token, no server, a server that never answers or trickles its answer, a redirect, an answer that is not JSON, a
token about to go over plain HTTP to another machine) is an error with a code, never an
approval.

    TOOLGATE_SERVER_BIN=target/debug/toolgate-server python -m unittest test_http
"""

from __future__ import annotations

import http.server
import os
import socket
import sys
import tempfile
import threading
import time
import unittest
from typing import Any, Callable, Dict, List

import toolgate

sys.path.insert(0, os.path.dirname(__file__))
import frameworks  # noqa: E402
from server import AGENT, PHONE, Server  # noqa: E402

WORKSPACE = "/home/dev/app"
HOME = "/home/dev"
DEPLOY = [{"toolCallId": "c1", "tool": "bash", "args": {"command": "make deploy"}}]


def code_of(f: Callable[[], Any]) -> str:
    try:
        f()
    except toolgate.ToolgateError as e:
        return e.code
    raise AssertionError("no error")


class OverHttp(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.server = Server(os.path.join(self.tmp.name, "runs.db")).__enter__()
        self.agent = toolgate.RunStore(self.server.url, token=AGENT, timeout=10)
        self.phone = toolgate.RunStore(self.server.url, token=PHONE, timeout=10)
        self.policy = toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME)

    def tearDown(self) -> None:
        self.server.__exit__(None, None, None)
        self.tmp.cleanup()

    def test_parked_decided_and_taken_once_with_two_tokens(self) -> None:
        self.assertEqual(self.agent.owner, "alice")
        parked = self.agent.park(self.policy, "run-h", DEPLOY, "history-1", session_id="chat-1")
        self.assertEqual(parked["run"]["status"], "awaiting_permission")
        self.assertEqual(parked["run"]["parkedBy"], "py-agent")
        self.assertEqual(code_of(lambda: self.agent.take("run-h")), "awaiting_permission")
        listed = self.phone.runs()
        self.assertEqual([r["runId"] for r in listed], ["run-h"])
        run = self.phone.run("run-h")
        assert run is not None
        anchor = run["marker"]["calls"][0]["anchor"]
        self.assertEqual(anchor, toolgate.anchor("bash", {"command": "make deploy"}))
        wrong = [{"toolCallId": "c1", "anchor": "0" * 64, "decision": "allow"}]
        self.assertEqual(code_of(lambda: self.phone.decide("run-h", wrong, by="ignored")), "anchor_mismatch")
        # The agent's token cannot decide.
        allow = [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]
        self.assertEqual(code_of(lambda: self.agent.decide("run-h", allow, by="py-agent")), "forbidden")
        self.phone.decide("run-h", allow, by="ignored")
        try:
            self.phone.decide("run-h", allow, by="ignored")
            self.fail("decided twice")
        except toolgate.ToolgateError as e:
            self.assertEqual((e.code, getattr(e, "status"), getattr(e, "decided_by")), ("already_resumed", 409, "alice-phone"))
        taken = self.agent.take("run-h")
        self.assertEqual(taken["results"][0]["outcome"], "approved")
        self.assertEqual(taken["results"][0]["args"], {"command": "make deploy"})
        self.assertEqual(taken["history"], "history-1")
        self.assertEqual(code_of(lambda: self.agent.take("run-h")), "already_resumed")
        self.assertEqual(self.agent.complete("run-h")["status"], "completed")
        self.assertEqual(code_of(lambda: self.agent.complete("run-h")), "not_running")
        self.assertIsNone(self.agent.run("run-none"))
        # The server's policy decides what can be parked: a denied call never is.
        sudo = [{"toolCallId": "c1", "tool": "bash", "args": {"command": "sudo rm -rf /"}}]
        self.assertEqual(code_of(lambda: self.agent.park(self.policy, "run-d", sudo, "h")), "bad_park")
        self.agent.park(self.policy, "run-c", DEPLOY, "h")
        self.assertEqual(self.agent.cancel("run-c", "the user moved on")["status"], "cancelled")
        # The server's code for a run that no longer waits (the local store's
        # `not_awaiting_permission`).
        self.assertEqual(code_of(lambda: self.agent.take("run-c")), "stale")

    def test_the_adapters_park_and_resume_over_the_server(self) -> None:
        env = {"TOOLGATE_TEST_SERVER": self.server.url, "TOOLGATE_TEST_TOKEN": AGENT}
        os.environ.update(env)
        try:
            for script, parked_key, resume_with_id in (
                ("pai_agent.py", "parked", True),
                ("oai_agent.py", "parked", True),
                ("lg_agent.py", "interrupted", False),
            ):
                with self.subTest(script=script), tempfile.TemporaryDirectory() as d:
                    run_id = frameworks.process(script, d, "start", "make deploy")[parked_key]
                    self.assertEqual(frameworks.ran(d), [])
                    resume = ["resume", run_id] if resume_with_id else ["resume"]
                    self.assertEqual(frameworks.process(script, d, *resume)["error"], "awaiting_permission")
                    frameworks.decide(self.phone, run_id)
                    out = frameworks.process(script, d, *resume)
                    self.assertNotIn("error", out, out)
                    self.assertEqual(frameworks.ran(d), ["make deploy"])
                    self.assertIn("error", frameworks.process(script, d, *resume))
                    self.assertEqual(frameworks.ran(d), ["make deploy"])
                    run = self.phone.run(run_id)
                    assert run is not None
                    self.assertEqual((run["status"], run["parkedBy"]), ("completed", "py-agent"))
        finally:
            for k in env:
                os.environ.pop(k, None)


class Answers(http.server.BaseHTTPRequestHandler):
    """A fake server's answers by path: `/redirect/…` (to `/elsewhere`), `/text/…` (200,
    not JSON), `/elsewhere/…` (records that it was reached, and with which headers)."""

    reached: List[Dict[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.startswith("/redirect"):
            self.send_response(307)
            self.send_header("Location", "/elsewhere/v1/runs/x")
            self.end_headers()
        elif self.path.startswith("/elsewhere"):
            Answers.reached.append(dict(self.headers))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"{}")
        else:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<html>not the API</html>")

    do_POST = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Failures(unittest.TestCase):
    def test_bad_configuration_is_refused_before_any_request(self) -> None:
        self.assertEqual(code_of(lambda: toolgate.RunStore("https://example.com")), "bad_input")
        self.assertEqual(code_of(lambda: toolgate.RunStore("http://agents.example.com", token=AGENT)), "bad_url")
        self.assertEqual(code_of(lambda: toolgate.RunStore("https://x.example?token=1", token=AGENT)), "bad_url")
        self.assertEqual(code_of(lambda: toolgate.RunStore("https://x.example", token="a\r\nb")), "bad_input")
        self.assertEqual(code_of(lambda: toolgate.RunStore("https://x.example", token=AGENT, timeout=0)), "bad_input")
        self.assertEqual(code_of(lambda: toolgate.RunStore("sqlite:/tmp/x.db", token=AGENT)), "bad_input")

    def test_a_wrong_token_is_unauthorized(self) -> None:
        with tempfile.TemporaryDirectory() as d, Server(os.path.join(d, "runs.db")) as server:
            store = toolgate.RunStore(server.url, token="not-a-token-0123456789")
            self.assertEqual(code_of(store.runs), "unauthorized")

    def test_no_server_is_unreachable_and_a_silent_one_times_out(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        # Nothing listens there now.
        self.assertEqual(code_of(toolgate.RunStore(f"http://127.0.0.1:{port}", token=AGENT).runs), "unreachable")
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(8)
            url = f"http://127.0.0.1:{silent.getsockname()[1]}"
            store = toolgate.RunStore(url, token=AGENT, timeout=0.5)
            started = time.monotonic()
            self.assertEqual(code_of(lambda: store.take("run-1")), "timeout")
            self.assertLess(time.monotonic() - started, 5)

    def test_a_server_that_trickles_its_answer_is_cut_at_the_deadline(self) -> None:
        # A byte of the headers, or of the body, every 0.2 s: each wait is short, the
        # answer never ends; the request ends at its deadline (1 s) all the same.
        for head in (b"HTTP/1.1 200 OK\r\nX-Slow: ", b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"):
            with socket.socket() as listener:
                listener.bind(("127.0.0.1", 0))
                listener.listen(8)
                stop = threading.Event()

                def trickle() -> None:
                    conn, _ = listener.accept()
                    with conn:
                        try:
                            conn.sendall(head)
                            while not stop.wait(0.2):
                                conn.sendall(b" ")
                        except OSError:
                            pass

                thread = threading.Thread(target=trickle, daemon=True)
                thread.start()
                store = toolgate.RunStore(f"http://127.0.0.1:{listener.getsockname()[1]}", token=AGENT, timeout=1)
                codes: List[str] = []
                # Bounded here too: a request that outlasts its deadline fails the test.
                request = threading.Thread(target=lambda: codes.append(code_of(store.runs)), daemon=True)
                request.start()
                request.join(timeout=3)
                stop.set()
                with self.subTest(head=head):
                    self.assertFalse(request.is_alive(), "the request outlasted its deadline")
                    self.assertEqual(codes, ["timeout"])
                thread.join(timeout=5)

    def test_redirects_are_not_followed_and_a_page_is_no_answer(self) -> None:
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answers)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            base = f"http://127.0.0.1:{httpd.server_address[1]}"
            Answers.reached.clear()
            self.assertEqual(code_of(toolgate.RunStore(base + "/redirect", token=AGENT).runs), "bad_answer")
            self.assertEqual(Answers.reached, [])
            self.assertEqual(code_of(lambda: toolgate.RunStore(base + "/text", token=AGENT).take("r")), "bad_answer")
        finally:
            httpd.shutdown()
            httpd.server_close()


if __name__ == "__main__":
    unittest.main()
