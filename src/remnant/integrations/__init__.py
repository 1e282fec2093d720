"""Framework integrations: Remnant behind the memory interfaces of agent frameworks (each an
optional extra: ``remnant[langgraph]``, ``remnant[llamaindex]``, ``remnant[openai-agents]``,
``remnant[crewai]``).

Each module imports its framework itself; nothing is imported here, so ``import
remnant.integrations`` never needs a framework.
"""
