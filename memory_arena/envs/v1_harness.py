"""The agent program for verifiers v1: the tool-less `null` chat harness plus eviction.

verifiers runs each segment of an exchange by relaunching the chat program on the
conversation so far (`Harness.resume`). This harness does exactly that, except that the
conversation first goes through `core.eviction_plan` with the task's `window`, so streamed
parts that fell out of the window reach the model only as placeholders. With `window = 0`
(full delivery) it behaves as the built-in `null` harness.

verifiers starts the chat program through `uv`, looked up on PATH. The package depends on
uv, but pip puts the binary in the virtual environment's bin folder, which is on PATH only
while that environment is activated (`.venv/bin/vf-eval ...` does not activate it), and
verifiers' fallback installs uv with `pip --user` or downloads it. `uv_on_path` puts the
installed binary on PATH first; the taskset calls it when it is built, before any program
starts.
"""

from __future__ import annotations

import os
import shutil

import verifiers.v1 as vf
from verifiers.v1.harnesses.null.harness import NullHarness

from memory_arena.envs import core


def uv_on_path() -> None:
    """Prepend the folder of the `uv` binary installed with this package to PATH, unless a
    `uv` is already found there (or the uv package is missing)."""
    if shutil.which("uv"):
        return
    try:
        from uv import find_uv_bin

        folder = os.path.dirname(find_uv_bin())
    except (ImportError, FileNotFoundError):  # no uv package: verifiers' own fallback applies
        return
    os.environ["PATH"] = folder + os.pathsep + os.environ.get("PATH", "")


class MemoryArenaHarness(NullHarness):
    """`null` with a bounded view of streamed parts; see the module docstring."""

    async def resume(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, messages,
                     tool_interception_url=None):
        branch = trace.branches[-1].messages if trace.branches else []
        # As in Harness.resume: the program re-emits data.system_prompt, so drop its copy.
        conversation = [*(m for m in branch if m.role != "system" or data.system_prompt is None), *messages]
        window = getattr(data, "window", 0)
        if window:
            plan = core.eviction_plan([(m.role, m.content) for m in conversation], window)
            conversation = [conversation[p] if isinstance(p, int) else vf.UserMessage(content=p) for p in plan]
        kwargs = {"tool_interception_url": tool_interception_url} if self.SUPPORTS_TOOL_INTERCEPTION else {}
        return await self.launch(ctx, trace, runtime, endpoint, secret, mcp_urls,
                                 data.model_copy(update={"prompt": conversation}), **kwargs)
