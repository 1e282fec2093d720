"""JSON output: parse a model's text and validate it against a (small subset of) JSON Schema.

Backends constrain generation when they can, but nothing guarantees it (truncation at max_tokens,
servers that ignore `response_format`). So every structured answer is parsed and checked here, and
anything that does not fit raises `LLMOutputError`: malformed output never becomes a memory.
The validator covers the keywords Remnant's own schemas use (type, properties, required, items,
enum, minimum, maximum, minLength, maxLength, maxItems, additionalProperties=false); it is not a general
JSON Schema implementation and avoids a dependency for that reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from remnant.llm.base import LLM, Completion, JsonSchema, LLMOutputError, Message

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def parse_json(text: str) -> Any:
    """Parse model text as JSON, tolerating a surrounding Markdown code fence."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1)
    try:
        return json.loads(stripped)
    except json.JSONDecodeError as exc:
        preview = stripped[:80].replace("\n", " ")
        raise LLMOutputError(f"model output is not valid JSON ({exc.msg} at {exc.pos}): {preview!r}") from exc


def _type_ok(value: Any, expected: str) -> bool:
    if expected in ("integer", "number") and isinstance(value, bool):
        return False  # bool is an int subclass in Python, but not in JSON
    return isinstance(value, _TYPES[expected])


def validate(value: Any, schema: JsonSchema, path: str = "$") -> None:
    """Raise `LLMOutputError` naming the first place where `value` does not fit `schema`."""
    expected = schema.get("type")
    if expected is not None:
        options = [expected] if isinstance(expected, str) else list(expected)
        if not any(_type_ok(value, t) for t in options):
            raise LLMOutputError(f"{path}: expected {'/'.join(options)}, got {type(value).__name__}")
    if "enum" in schema and value not in schema["enum"]:
        raise LLMOutputError(f"{path}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise LLMOutputError(f"{path}: {value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise LLMOutputError(f"{path}: {value} is above the maximum {schema['maximum']}")
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        raise LLMOutputError(f"{path}: string shorter than {schema['minLength']}")
    if isinstance(value, str) and "maxLength" in schema and len(value) > schema["maxLength"]:
        raise LLMOutputError(f"{path}: string longer than {schema['maxLength']}")
    if isinstance(value, dict):
        props: dict[str, JsonSchema] = schema.get("properties", {})
        for req in schema.get("required", []):
            if req not in value:
                raise LLMOutputError(f"{path}: missing required field {req!r}")
        if schema.get("additionalProperties") is False:
            extra = set(value) - set(props)
            if extra:
                raise LLMOutputError(f"{path}: unexpected fields {sorted(extra)}")
        for k, sub in props.items():
            if k in value:
                validate(value[k], sub, f"{path}.{k}")
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise LLMOutputError(f"{path}: more than {schema['maxItems']} items")
        item_schema = schema.get("items")
        if item_schema:
            for i, item in enumerate(value):
                validate(item, item_schema, f"{path}[{i}]")


def complete_json(
    llm: LLM,
    messages: Sequence[Message],
    schema: JsonSchema,
    *,
    max_tokens: int = 256,
    temperature: float = 0.0,
) -> tuple[Any, Completion]:
    """Ask for schema-constrained JSON and return (parsed, validated data, the completion).

    Raises `LLMOutputError` when the answer is not valid JSON for the schema (including answers
    cut off by `max_tokens`) and lets `LLMUnavailable` through unchanged.
    """
    completion = llm.complete(messages, json_schema=schema, max_tokens=max_tokens, temperature=temperature)
    try:
        data = parse_json(completion.text)
    except LLMOutputError as exc:
        if completion.finish_reason == "length":
            raise LLMOutputError(f"model output was cut off at max_tokens={max_tokens}: {exc}") from exc
        raise
    validate(data, schema)
    return data, completion
