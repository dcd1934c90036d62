"""The README's Python section kept true: its API tables name every public class,
function, method and property of `toolgate` and of each adapter module with the
signature the code has (and nothing the code lacks); its code blocks run, each with the
names it leaves to the reader (a model, a tool, a graph) supplied by the framework's own
test model, a person's decision in the store between the block's two halves, the
commented results compared with what the code gives, and the tool run exactly once.

    python -m unittest test_readme      (from crates/python/tests, toolgate installed)
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib
import inspect
import json
import os
import re
import sqlite3
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import toolgate

sys.path.insert(0, os.path.dirname(__file__))
import frameworks  # noqa: E402

README = Path(__file__).resolve().parents[3] / "README.md"
WORKSPACE = "/home/dev/app"
HOME = "/home/dev"
ADAPTERS = ("pydantic_ai", "openai_agents", "langgraph", "langchain")


def section() -> str:
    """The README's Python part: from its heading to the next top-level heading."""
    text = README.read_text(encoding="utf-8")
    start = text.index("## Python: `import toolgate`")
    end = text.index("\n## ", start + 3)
    return text[start:end]


def subsections() -> Dict[str, str]:
    """Each `###` part of the section by its heading (the part before any, by "")."""
    parts: Dict[str, str] = {}
    name = ""
    for chunk in re.split(r"(?m)^(### .*)$", section()):
        if chunk.startswith("### "):
            name = chunk[4:].strip()
        else:
            parts[name] = parts.get(name, "") + chunk
    return parts


def blocks(text: str) -> List[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def table_names(text: str) -> List[str]:
    """The code spans of the first cell of each table row, a leading `.` joined to the
    row before's class (`Gate(…)` then `.park(…)` is `Gate.park(…)`)."""
    out: List[str] = []
    owner = ""
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line[2:].split(" | ", 1)[0]
        for span in re.findall(r"`([^`]+)`", cell):
            if span.startswith("."):
                span = owner + span
            else:
                owner = span.split("(", 1)[0]
            out.append(span)
    return out


def rendered(f: Any) -> str:
    """A signature as the README writes it: no annotations, no `self`, strings in
    double quotes, `*` before keyword-only parameters."""
    parts: List[str] = []
    star = False
    for p in inspect.signature(f).parameters.values():
        if p.name in ("self", "cls"):
            continue
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.kind is p.VAR_POSITIONAL:
            star = True
        text = p.name
        if p.default is not p.empty:
            text += "=" + (json.dumps(p.default) if isinstance(p.default, str) else repr(p.default))
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


def resolve(name: str) -> Any:
    """`Policy.defaults`, `policy.classify`, `store.park`, `toolgate.anchor`,
    `toolgate.langgraph.ToolGate.resume`… to the object."""
    path = name.split(".")
    roots: Dict[str, Any] = {"policy": toolgate.Policy, "store": toolgate.RunStore, "toolgate": toolgate}
    obj = roots.get(path[0]) or getattr(toolgate, path[0])
    for i, part in enumerate(path[1:], 1):
        if obj is toolgate and part in ADAPTERS:
            obj = importlib.import_module(f"toolgate.{part}")
            continue
        obj = inspect.getattr_static(obj, part) if inspect.isclass(obj) else getattr(obj, part)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
    return obj


def own_members(cls: type) -> List[str]:
    """A class's public methods and properties that are its own (not overrides of a
    base class's hooks)."""
    inherited = {n for base in cls.__mro__[1:] if base is not object for n in vars(base)}
    return [
        n for n, v in vars(cls).items()
        if not n.startswith("_") and n not in inherited and (callable(v) or isinstance(v, (property, staticmethod, classmethod)))
    ]


def normal(name: str) -> str:
    """`policy.classify` and `Policy.classify` alike, `store.park` as `RunStore.park`."""
    head, dot, rest = name.partition(".")
    head = {"policy": "Policy", "store": "RunStore"}.get(head, head)
    return head + dot + rest


class ApiTables(unittest.TestCase):
    def test_every_row_is_the_code_and_the_code_is_every_row(self) -> None:
        documented = set()
        for span in table_names(section()):
            name, _, params = span.partition("(")
            with self.subTest(span=span):
                obj = resolve(name)
                documented.add(normal(name))
                if params:
                    target = obj.fget if isinstance(obj, property) else obj
                    self.assertEqual("(" + params, rendered(target), f"README says {span}")
                else:
                    self.assertTrue(inspect.isclass(obj) or isinstance(obj, property) or not callable(obj),
                                    f"{name} is called: the README should give its parameters")
        expected = ["RunStore", "ToolgateError", "toolgate.anchor", "toolgate.__version__"]
        expected += [f"{c.__name__}.{m}" for c in (toolgate.Policy, toolgate.RunStore) for m in own_members(c)]
        for mod in ADAPTERS:
            module = importlib.import_module(f"toolgate.{mod}")
            for n in module.__all__:
                obj = getattr(module, n)
                members = own_members(obj) if inspect.isclass(obj) else []
                if members:
                    expected += [f"toolgate.{mod}.{n}"] + [f"toolgate.{mod}.{n}.{m}" for m in members]
                else:
                    self.assertIn(n, section(), f"toolgate.{mod}.{n} is not in the README")
        for name in expected:
            with self.subTest(missing=name):
                self.assertIn(name, documented, f"{name} is not in the README's tables")


@contextlib.contextmanager
def directory() -> Iterator[str]:
    """A fresh working directory (the blocks' relative paths land there)."""
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        try:
            yield d
        finally:
            os.chdir(old)


def run(source: str, ns: Dict[str, Any]) -> None:
    """Runs a block (top-level `await` allowed), checking `EXPR  # (RESULT)` lines."""
    code = compile(source, "README.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, ns)
    if inspect.iscoroutine(result):
        asyncio.run(result)
    for line in source.splitlines():
        m = re.match(r"^([^#=\n]+?)\s+# (\(.*\))$", line)
        if m:
            got = repr(eval(m.group(1), ns))
            if got != m.group(2):
                raise AssertionError(f"README: `{m.group(1)}` gives {got}, not {m.group(2)}")


def halves(source: str) -> Tuple[str, str]:
    first, sep, second = source.partition("# later, in any process")
    if not sep:
        raise AssertionError("the block has no `# later, in any process` half")
    return first, sep + second


def decide_all(d: str) -> None:
    """A person approves every call that waits in `runs.db`."""
    store = toolgate.RunStore("sqlite:" + os.path.join(d, "runs.db"))
    waiting = [r for r in store.runs() if r.get("status") == "awaiting_permission"]
    if not waiting:
        raise AssertionError("the block's first half parked nothing")
    for r in waiting:
        calls = r["marker"]["calls"]
        store.decide(r["runId"], [{"toolCallId": c["toolCallId"], "anchor": c["anchor"], "decision": "allow"} for c in calls], by="readme")


class Blocks(unittest.TestCase):
    def framework(self, heading: str, names: Callable[[str], Dict[str, Any]]) -> None:
        part = next(text for h, text in subsections().items() if h.startswith(heading))
        (source,) = blocks(part)
        first, second = halves(source)
        with directory() as d:
            ns: Dict[str, Any] = {"toolgate": toolgate, "ws": WORKSPACE, "home": HOME, **names(d)}
            run(first, ns)
            self.assertEqual(frameworks.ran(d), [], "the first half ran the tool")
            decide_all(d)
            run(second, ns)
            self.assertEqual(frameworks.ran(d), ["make deploy"])

    def test_the_classify_example(self) -> None:
        (source,) = blocks(subsections()[""])[:1]
        with directory():
            Path("toolgate.toml").write_text("", encoding="utf-8")
            run(source, {})

    def test_pydantic_ai(self) -> None:
        from pydantic_ai.toolsets import FunctionToolset

        import pai_agent

        def names(d: str) -> Dict[str, Any]:
            def bash(command: str) -> str:
                """Runs a shell command."""
                return frameworks.log_command(d, command)
            return {"model": pai_agent.model("make deploy"), "my_toolset": FunctionToolset([bash])}

        self.framework("Pydantic AI", names)

    def test_openai_agents(self) -> None:
        from agents import function_tool
        from agents.testing.model import ScriptedModel, assistant_message, function_call

        def names(d: str) -> Dict[str, Any]:
            @function_tool
            def run_shell(command: str) -> str:
                """Runs a shell command."""
                return frameworks.log_command(d, command)
            steps = [[function_call("run_shell", {"command": "make deploy"}, call_id="call-1")], [assistant_message("done")]]
            return {"model": ScriptedModel(steps), "run_shell": run_shell}

        self.framework("OpenAI Agents SDK", names)

    def test_langgraph(self) -> None:
        from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        from langchain_core.messages import AIMessage
        from langchain_core.tools import tool
        from langgraph.graph import END, START, MessagesState, StateGraph

        def names(d: str) -> Dict[str, Any]:
            @tool
            def run_shell(command: str) -> str:
                """Runs a shell command."""
                return frameworks.log_command(d, command)
            call = AIMessage(content="", tool_calls=[{"name": "run_shell", "args": {"command": "make deploy"}, "id": "call-1"}])
            model = GenericFakeChatModel(messages=iter([call, AIMessage(content="done")]))
            graph = StateGraph(MessagesState)
            graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
            graph.add_edge(START, "agent")
            graph.add_conditional_edges(
                "agent", lambda s: "tools" if s["messages"][-1].tool_calls else END, ["tools", END]
            )
            graph.add_edge("tools", "agent")
            return {
                "policy": toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME),
                "run_shell": run_shell, "graph": graph, "sqlite3": sqlite3,
                "config": {"configurable": {"thread_id": "t1"}},
            }

        self.framework("LangGraph", names)

    def test_langchain(self) -> None:
        from langchain_core.messages import AIMessage
        from langchain_core.tools import tool
        from langgraph.checkpoint.sqlite import SqliteSaver

        import lc_agent

        def names(d: str) -> Dict[str, Any]:
            @tool
            def run_shell(command: str) -> str:
                """Runs a shell command."""
                return frameworks.log_command(d, command)
            call = AIMessage(content="", tool_calls=[{"name": "run_shell", "args": {"command": "make deploy"}, "id": "call-1"}])
            conn = sqlite3.connect(os.path.join(d, "graph.db"), check_same_thread=False)
            return {
                "policy": toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME),
                "model": lc_agent.Model(messages=iter([call, AIMessage(content="done")])),
                "run_shell": run_shell, "saver": SqliteSaver(conn),
                "config": {"configurable": {"thread_id": "t1"}}, "reviewer_approved": False,
            }

        self.framework("LangChain", names)

    def test_every_block_is_run_here(self) -> None:
        run_here = {"": 1, "Pydantic AI": 1, "OpenAI Agents SDK": 1, "LangGraph": 1, "LangChain": 1}
        for heading, text in subsections().items():
            key = next((k for k in run_here if k and heading.startswith(k)), "")
            if key == "" and heading:
                self.assertEqual(blocks(text), [], f"a block under {heading!r} that no test runs")
                continue
            self.assertEqual(len(blocks(text)), run_here[key], heading)


if __name__ == "__main__":
    unittest.main()
