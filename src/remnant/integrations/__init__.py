"""Framework integrations: adapters that plug Remnant into agent frameworks (each an optional extra).

Each module imports its framework itself; nothing here imports one, so ``import remnant.integrations``
works without any of them installed.
"""
