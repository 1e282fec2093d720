"""Build an LLM from a short config string, with a registry so users can add their own providers.

Config strings:
  ``local``                      in-process SmolLM2 via xllamacpp
  ``local:/path/model.gguf``     in-process, another GGUF file
  ``openai:<model>``             OpenAI-compatible endpoint at $OPENAI_BASE_URL (default api.openai.com)
  ``openai:<model>@<base_url>``  OpenAI-compatible endpoint at base_url (Ollama, vLLM, llama.cpp...)
  ``none``                       no model: callers use their rule-based fallbacks
When no string is given, $REMNANT_LLM is used; $OPENAI_API_KEY supplies the key.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from remnant.core.settings import read
from remnant.llm.base import LLM
from remnant.llm.local import LocalLLM
from remnant.llm.openai_compat import DEFAULT_BASE_URL, OpenAICompatibleLLM

ProviderFactory = Callable[[str, Mapping[str, str]], LLM]
"""Builds a provider from the part of the config string after ``name:`` and the environment."""


def _local(arg: str, env: Mapping[str, str]) -> LLM:
    return LocalLLM(arg or None)


def _openai(arg: str, env: Mapping[str, str]) -> LLM:
    model, _, base_url = arg.partition("@")
    if not model:
        raise ValueError("openai provider needs a model: 'openai:<model>' or 'openai:<model>@<base_url>'")
    return OpenAICompatibleLLM(
        model,
        base_url=base_url or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
        api_key=env.get("OPENAI_API_KEY"),
    )


_REGISTRY: dict[str, ProviderFactory] = {"local": _local, "openai": _openai}


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Make ``name:<arg>`` config strings build providers with `factory`."""
    if not name.isidentifier():
        raise ValueError(f"provider name must be an identifier, got {name!r}")
    _REGISTRY[name] = factory


def llm_from_config(spec: str | None = None, env: Mapping[str, str] | None = None) -> LLM | None:
    """Return the provider named by `spec` (or $REMNANT_LLM); ``None`` for ``none``/empty.

    Raises ValueError for an unknown provider name. Nothing is loaded or contacted here: local
    models load lazily and HTTP providers connect on the first call.
    """
    environ = os.environ if env is None else env
    raw = (spec if spec is not None else read("REMNANT_LLM", environ) or "").strip()
    if raw.lower() in ("", "none", "off", "rules"):
        return None
    name, _, arg = raw.partition(":")
    factory = _REGISTRY.get(name.lower())
    if factory is None:
        raise ValueError(
            f"unknown LLM provider {name!r} in {raw!r}; known: {', '.join(sorted(_REGISTRY))}, none"
        )
    return factory(arg, environ)
