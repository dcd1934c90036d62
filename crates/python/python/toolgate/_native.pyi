# The native module's types (crates/python/src/lib.rs); the `toolgate` package wraps it.
from typing import Optional

__version__: str

class ToolgateError(Exception):
    code: str

class Policy:
    @staticmethod
    def defaults(workspace: str, home: str) -> Policy: ...
    @staticmethod
    def from_toml(text: str, workspace: Optional[str] = None, home: Optional[str] = None) -> Policy: ...
    @property
    def workspace(self) -> str: ...
    @property
    def home(self) -> str: ...
    def classify_json(self, call_json: str, fs: bool = False) -> str: ...
