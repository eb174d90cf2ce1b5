"""Adapter for the classic verifiers API (0.3.x: `vf.MultiTurnEnv`, `vf.Rubric`).

One `MultiTurnEnv` subclass serves both deliveries, with or without memory tools. The
rollout keeps its own transcript in `state`; `get_prompt_messages` appends the model's last
reply, runs its tool calls against the rollout's `MemoryStore`, delivers the next streamed
part (or the question) once the model has answered without tool calls, and sends the
transcript through `core.evict`. Everything mutable lives in `state`, never on `self`.
With `memory_system`, the system is built once here and each task's prompt is the memories
it retrieves (`core.retrieved_prompt`), computed with the dataset.

verifiers 0.3.1's chat client writes every assistant message with `"tool_calls": null` and
`"reasoning_content": null`, which llama.cpp and other strict OpenAI-compatible servers refuse
("type must be string, but is null"), failing every rollout with an assistant turn. The
environment hands the client a copy of itself that leaves null fields out of the messages
(`_without_null_fields`), so the same requests go to any server.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import verifiers as vf
from datasets import Dataset
from verifiers.utils.message_utils import normalize_messages

from memory_arena.envs import core
from memory_arena.memory_tools import MemoryStore, tool_schemas
from memory_arena.tasks.schema import Task

MAX_TURNS = 1_000
"""Guard against a model that never stops calling tools; far above any real rollout. A
`max_turns` argument replaces it."""

OWN_ARGUMENTS = {"dataset", "eval_dataset", "rubric", "tool_defs"}
"""Constructor arguments the environment sets itself: a caller's would replace MemoryArena's
tasks, scoring or tools."""


def framework_keywords() -> tuple[set[str], set[str]]:
    """(the keyword arguments verifiers' MultiTurnEnv and its bases take, OWN_ARGUMENTS).

    Read from the installed verifiers, so a keyword a later 0.3 release adds passes too.
    `vf.Environment` stores any unknown keyword as an attribute without a word; that is why
    `load_environment` checks against this list instead of handing everything on."""
    names: set[str] = set()
    for cls in vf.MultiTurnEnv.__mro__:
        init = cls.__dict__.get("__init__")
        if init is not None:
            names.update(p.name for p in inspect.signature(init).parameters.values()
                         if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self")
    return names - OWN_ARGUMENTS, OWN_ARGUMENTS


def _dataset(tasks: list[Task], settings: core.Settings) -> Dataset:
    system = {"role": "system", "content": core.system_prompt(settings)}
    memory_system = core.open_memory_system(settings)
    rows = []
    for task in tasks:
        info: dict[str, Any] = {"task_id": task.id, "category": task.category}
        if memory_system is not None:
            messages, info["retrieval"] = core.retrieved_prompt(task, memory_system, settings.top_k)
            prompt = [system, *messages]
        elif settings.delivery == "full":
            prompt = [system, *core.full_messages(task)]
        else:
            prompt = [system, {"role": "user", "content": core.stream_parts(task, settings)[0]}]
        rows.append({
            "prompt": prompt,
            "answer": task.answer,
            "info": info,
            "task": "memory-arena",
        })
    return Dataset.from_list(rows)


def _drop_nulls(message: Any) -> Any:
    """A native chat message without its null fields; an assistant message with tool calls
    keeps a null `content` (the OpenAI schema allows exactly that one)."""
    if not isinstance(message, dict):
        return message
    keep_content = message.get("role") == "assistant" and message.get("tool_calls")
    return {k: v for k, v in message.items() if v is not None or (k == "content" and keep_content)}


def _without_null_fields(client: Any) -> Any:
    """A shallow copy of a verifiers client whose native prompts carry no null fields. The
    copy shares the client's connection; only its `to_native_prompt` is wrapped."""
    if getattr(client, "_memory_arena_no_nulls", False) or not hasattr(client, "to_native_prompt"):
        return client
    wrapped = copy.copy(client)
    native = client.to_native_prompt

    async def to_native_prompt(messages: Any) -> Any:
        prompt, extra = await native(messages)
        return ([_drop_nulls(m) for m in prompt] if isinstance(prompt, list) else prompt), extra

    wrapped.to_native_prompt = to_native_prompt
    wrapped._memory_arena_no_nulls = True
    return wrapped


def _last_reply(state: vf.State) -> str:
    """The text of the model's final assistant message."""
    trajectory = state.get("trajectory") or []
    if not trajectory:
        return ""
    for message in reversed(trajectory[-1]["completion"]):
        if message.get("role") == "assistant":
            content = message.get("content")
            return content if isinstance(content, str) else ""
    return ""


class MemoryArenaEnv(vf.MultiTurnEnv):
    """MemoryArena on the classic API; see the module docstring."""

    def __init__(self, settings: core.Settings, tasks: list[Task], **kwargs: Any) -> None:
        self.settings = settings
        self.tasks = {task.id: task for task in tasks}  # read-only after construction
        rubric = vf.Rubric(funcs=[self.correct], weights=[1.0])
        for name in core.label_metric_names():
            rubric.add_metric(self._label_metric(name))
        for metric in (self.turns_delivered, self.evidence_evicted, self.memory_tool_calls, self.memory_keys_stored):
            rubric.add_metric(metric)
        if settings.memory_system is not None:
            for name in core.RETRIEVAL_METRICS:
                rubric.add_metric(self._retrieval_metric(name))
        dataset = _dataset(tasks, settings)
        tools = [vf.Tool(**schema) for schema in tool_schemas()] if settings.memory_tool else None
        super().__init__(eval_dataset=dataset, rubric=rubric, tool_defs=tools, **{"max_turns": MAX_TURNS, **kwargs})

    # --- rollout ------------------------------------------------------------------------

    async def get_model_response(self, state: vf.State, prompt: vf.Messages, client: Any = None,
                                 **kwargs: Any) -> Any:
        """The framework's model call, through a client that sends no null fields."""
        client = _without_null_fields(client if client is not None else state["client"])
        return await super().get_model_response(state, prompt, client=client, **kwargs)

    async def setup_state(self, state: vf.State) -> vf.State:
        task = self.tasks[state["info"]["task_id"]]
        state["memory"] = {}
        state["transcript"] = list(state["prompt"])
        state["parts"] = core.stream_parts(task, self.settings) if self.settings.delivery == "stream" else []
        state["parts_sent"] = 1 if state["parts"] else 0
        state["question_sent"] = self.settings.delivery == "full"
        return state

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> vf.Messages:
        """Tool results for the last reply's calls, else the next part or the question."""
        last = messages[-1]
        calls = last.get("tool_calls") or []
        if calls:
            store = MemoryStore(state["memory"])
            return [{"role": "tool", "tool_call_id": c.id, "content": store.call(c.name, c.arguments)} for c in calls]
        if state["parts_sent"] < len(state["parts"]):
            state["parts_sent"] += 1
            return [{"role": "user", "content": state["parts"][state["parts_sent"] - 1]}]
        task = self.tasks[state["info"]["task_id"]]
        state["question_sent"] = True
        return [{"role": "user", "content": core.question_text(task)}]

    async def get_prompt_messages(self, state: vf.State) -> vf.Messages:
        if not state["trajectory"]:
            return state["prompt"]
        transcript = state["transcript"]
        transcript.extend(state["trajectory"][-1]["completion"])
        transcript.extend(await self.env_response(transcript, state))
        return normalize_messages(core.evict(transcript, self.settings.window), field_name="prompt_messages")

    @vf.stop
    async def question_answered(self, state: vf.State) -> bool:
        """The rollout ends at the first reply without tool calls after the question."""
        trajectory = state["trajectory"]
        if not trajectory or not state.get("question_sent"):
            return False
        last = trajectory[-1]["completion"][-1]
        return last.get("role") == "assistant" and not last.get("tool_calls")

    # --- scoring ------------------------------------------------------------------------

    def _outcome(self, state: vf.State) -> tuple[Task, float, str]:
        task = self.tasks[state["info"]["task_id"]]
        if "score" not in state:
            state["score"] = core.score_reply(task, _last_reply(state) if state.get("question_sent") else "")
        value, reason = state["score"]
        return task, value, reason

    async def correct(self, state: vf.State, **kwargs: Any) -> float:
        """The verifier's score (docs/design.md, scoring) of the final reply."""
        return self._outcome(state)[1]

    def _label_metric(self, name: str):
        async def metric(state: vf.State, **kwargs: Any) -> float:
            task, _, reason = self._outcome(state)
            return core.label_metrics(task, reason)[name]

        metric.__name__ = name
        return metric

    def _retrieval_metric(self, name: str):
        async def metric(state: vf.State, **kwargs: Any) -> float:
            return state["info"]["retrieval"][name]

        metric.__name__ = name
        return metric

    async def turns_delivered(self, state: vf.State, **kwargs: Any) -> float:
        if "retrieval" in state["info"]:
            return state["info"]["retrieval"]["turns_delivered"]
        task = self.tasks[state["info"]["task_id"]]
        return float(core.turns_delivered(task, self.settings.delivery, self.settings.chunk_turns,
                                          state.get("parts_sent", 0)))

    async def evidence_evicted(self, state: vf.State, **kwargs: Any) -> float:
        task = self.tasks[state["info"]["task_id"]]
        if self.settings.delivery == "full":
            return 0.0
        return float(core.evidence_evicted(task, self.settings.chunk_turns, self.settings.window))

    async def memory_tool_calls(self, state: vf.State, **kwargs: Any) -> float:
        return float(state.get("memory", {}).get("calls", 0))

    async def memory_keys_stored(self, state: vf.State, **kwargs: Any) -> float:
        return float(len(state.get("memory", {}).get("entries", {})))


def load_environment(settings: core.Settings, **kwargs: Any) -> MemoryArenaEnv:
    return MemoryArenaEnv(settings, core.select_tasks(settings), **kwargs)
