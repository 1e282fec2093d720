<<<<<<< HEAD
"""Framework integrations: Remnant behind the memory interfaces of agent frameworks.

Each module is optional and imports its framework itself (install the matching extra); nothing is
imported here, so ``import remnant.integrations`` never needs a framework.
=======
"""Framework integrations: adapters that plug Remnant into agent frameworks (each an optional extra).

Each module imports its framework itself; nothing here imports one, so ``import remnant.integrations``
works without any of them installed.
>>>>>>> i19b
"""
