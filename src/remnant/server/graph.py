"""The MCP reference memory server's knowledge graph, kept as Remnant memories.

The reference server (``@modelcontextprotocol/server-memory``) keeps entities, their observations
and relations in a JSONL file. Here each piece is a keyed fact of the user, so it decays, can be
pinned, reviewed, forgotten and audited like any memory:

- an entity is the fact ``"<name> is a <type>"`` under key ``entity:<name>``;
- each observation is its own fact ``"<name>: <observation>"`` under
  ``observation:<name>:<hash of the text>``, so observations fade one by one (what is no longer
  remembered drops out of ``read_graph``) and the same observation is never stored twice;
- a relation is the fact ``"<from> <relationType> <to>"`` under ``relation:<from>|<type>|<to>``.

Deleting purges (for good, audited). What does not map: the reference server's graph is global;
here it belongs to one user of one tenant (``user_id``), and faded pieces are not returned.
"""

from __future__ import annotations

import hashlib
from typing import Any

from remnant.core.errors import NotFoundError, ValidationError
from remnant.core.model import MemoryRecord, Status
from remnant.engine.memory import Memory

GRAPH = "graph"  # the metadata field naming what a graph memory is
_CAP = 10_000


def _name(value: Any, what: str = "entity name") -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{what} must be a non-empty string")
    if len(value) > 200 or "|" in value:
        raise ValidationError(f"{what} must be at most 200 characters and contain no '|'")
    return value.strip()


def entity_key(name: str) -> str:
    return f"entity:{name}"


def observation_key(name: str, text: str) -> str:
    return f"observation:{name}:{hashlib.sha1(text.encode('utf-8'), usedforsecurity=False).hexdigest()[:16]}"


def relation_key(src: str, rel: str, dst: str) -> str:
    return f"relation:{src}|{rel}|{dst}"


def _remembered(mem: Memory, r: MemoryRecord) -> bool:
    if r.status != Status.ACTIVE or (r.expires_at is not None and r.expires_at <= mem.now()):
        return False
    return r.pinned or mem.strength_of(r) >= mem.decay.recall_threshold


def graph_memories(mem: Memory, user_id: str) -> list[MemoryRecord]:
    found = mem.list_memories(user_id, statuses=[Status.ACTIVE], limit=_CAP, newest_first=False)
    return [r for r in found if r.metadata.get(GRAPH) and _remembered(mem, r)]


def _remember(mem: Memory, content: str, user_id: str, key: str, meta: dict[str, Any]) -> MemoryRecord:
    return mem.remember(
        content, user_id=user_id, kind="fact", key=key, importance=0.7, source="mcp-graph", metadata=meta
    )


def create_entities(mem: Memory, user_id: str, entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    made = []
    for e in entities:
        name, etype = _name(e.get("name")), _name(e.get("entityType"), "entityType")
        if mem.current(entity_key(name), user_id=user_id) is not None:
            continue  # existing names are ignored, as in the reference server
        _remember(
            mem,
            f"{name} is a {etype}",
            user_id,
            entity_key(name),
            {GRAPH: "entity", "name": name, "entityType": etype},
        )
        observations = [str(o) for o in e.get("observations") or []]
        add_observations(mem, user_id, [{"entityName": name, "contents": observations}])
        made.append({"name": name, "entityType": etype, "observations": observations})
    return made


def add_observations(mem: Memory, user_id: str, observations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for item in observations:
        name = _name(item.get("entityName"))
        if mem.current(entity_key(name), user_id=user_id) is None:
            raise NotFoundError(f"entity with name {name} not found")
        added = []
        for text in item.get("contents") or []:
            text = str(text).strip()
            if not text:
                continue
            key = observation_key(name, text)
            if mem.current(key, user_id=user_id) is not None:
                continue
            _remember(
                mem,
                f"{name}: {text}",
                user_id,
                key,
                {GRAPH: "observation", "entity": name, "observation": text},
            )
            added.append(text)
        out.append({"entityName": name, "addedObservations": added})
    return out


def create_relations(mem: Memory, user_id: str, relations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    made = []
    for rel in relations:
        src, dst = _name(rel.get("from")), _name(rel.get("to"))
        kind = _name(rel.get("relationType"), "relationType")
        key = relation_key(src, kind, dst)
        if mem.current(key, user_id=user_id) is not None:
            continue
        meta = {GRAPH: "relation", "from": src, "to": dst, "relationType": kind}
        _remember(mem, f"{src} {kind} {dst}", user_id, key, meta)
        made.append({"from": src, "to": dst, "relationType": kind})
    return made


def _purge(mem: Memory, records: list[MemoryRecord], actor: str) -> int:
    if not records:
        return 0
    return mem.purge([r.id for r in records], reason="deleted from the knowledge graph", actor=actor)


def delete_entities(mem: Memory, user_id: str, names: list[str], actor: str) -> int:
    wanted = {_name(n) for n in names}
    doomed = [
        r
        for r in graph_memories(mem, user_id)
        if r.metadata.get("name") in wanted
        or r.metadata.get("entity") in wanted
        or r.metadata.get("from") in wanted
        or r.metadata.get("to") in wanted
    ]
    return _purge(mem, doomed, actor)


def delete_observations(mem: Memory, user_id: str, deletions: list[dict[str, Any]], actor: str) -> int:
    doomed = []
    for d in deletions:
        name = _name(d.get("entityName"))
        for text in d.get("observations") or []:
            r = mem.current(observation_key(name, str(text).strip()), user_id=user_id)
            if r is not None:
                doomed.append(r)
    return _purge(mem, doomed, actor)


def delete_relations(mem: Memory, user_id: str, relations: list[dict[str, Any]], actor: str) -> int:
    doomed = []
    for rel in relations:
        key = relation_key(
            _name(rel.get("from")), _name(rel.get("relationType"), "relationType"), _name(rel.get("to"))
        )
        r = mem.current(key, user_id=user_id)
        if r is not None:
            doomed.append(r)
    return _purge(mem, doomed, actor)


def read_graph(mem: Memory, user_id: str, names: set[str] | None = None) -> dict[str, Any]:
    """Entities (with the observations still remembered) and relations; with ``names``, only those
    entities and the relations between them (``open_nodes``)."""
    entities: dict[str, dict[str, Any]] = {}
    observations: list[MemoryRecord] = []
    relations = []
    for r in graph_memories(mem, user_id):
        what = r.metadata.get(GRAPH)
        if what == "entity":
            name = r.metadata["name"]
            if names is None or name in names:
                entities[name] = {
                    "type": "entity",
                    "name": name,
                    "entityType": r.metadata["entityType"],
                    "observations": [],
                }
        elif what == "observation":
            observations.append(r)
        elif what == "relation":
            relations.append(r.metadata)
    for r in observations:
        if r.metadata.get("entity") in entities:
            entities[r.metadata["entity"]]["observations"].append(r.metadata["observation"])
    rels = [
        {"type": "relation", "from": m["from"], "to": m["to"], "relationType": m["relationType"]}
        for m in relations
        if (names is None or (m["from"] in entities and m["to"] in entities))
    ]
    return {"entities": list(entities.values()), "relations": rels}


def search_nodes(mem: Memory, user_id: str, query: str) -> dict[str, Any]:
    """Entities whose name, type or a remembered observation contains the query (case-insensitive),
    and the relations between them."""
    q = query.strip().lower()
    if not q:
        raise ValidationError("query must not be blank")
    full = read_graph(mem, user_id)
    hit = {
        e["name"]
        for e in full["entities"]
        if q in e["name"].lower()
        or q in e["entityType"].lower()
        or any(q in o.lower() for o in e["observations"])
    }
    return read_graph(mem, user_id, hit)
