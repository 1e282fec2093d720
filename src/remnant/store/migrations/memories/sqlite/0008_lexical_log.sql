-- Remnant schema v8 (SQLite): the full-text changes, for the keyword index each process keeps in
-- memory beside the file (remnant.store.lexical_index). Every write that adds, removes or rewrites a
-- row of memory_fts appends that row's rid here in the same transaction; a process brings its index
-- up to date by reading the entries after the last one it applied. Only rids, no text; the oldest
-- entries are dropped as new ones come (a process that fell further behind rebuilds its index).
CREATE TABLE lexical_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    rid INTEGER NOT NULL
);
