"""Framework integrations: Remnant behind the memory interfaces of agent frameworks.

Each module is optional and imports its framework itself (install the matching extra); nothing is
imported here, so ``import remnant.integrations`` never needs a framework.
"""
