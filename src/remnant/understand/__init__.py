"""The language readers: what a statement, a request or a time expression says.

Below the engine's policies and beside nothing that decides: a reader turns text into a small,
stable value (a :class:`~remnant.engine.results.ForgetIntent`, an attribute reading, a
:class:`~remnant.understand.time.TimeRange`) and never touches the engine. Where a reader needs
something only the store or the privacy layer has (the PII detector, the clock), it takes a small
protocol or a callable. Language knowledge (word lists, attribute names, phrasings) lives in data
files per language under ``data/<lang>/``; see docs/architecture.md for where a new phrasing, an
attribute or a language goes.
"""
