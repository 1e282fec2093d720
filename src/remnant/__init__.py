"""Remnant: memory for LLM apps that forgets the way people do."""
