"""Remnant as a service: REST API, MCP server and web inspector in one process (``remnant serve``).

Needs the ``server`` extra (FastAPI, uvicorn, mcp). Import :func:`create_app` from
:mod:`remnant.server.app`.
"""
