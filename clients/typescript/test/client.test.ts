// The facade against a real Remnant server: `python -m remnant serve` on a free loopback port with
// a temporary database, started by this test (REMNANT_PYTHON names the interpreter).
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";

import { RemnantClient, RemnantError } from "../src/index.js";

const python = process.env["REMNANT_PYTHON"] ?? resolve("../../.venv/bin/python");
let server: ChildProcess | undefined;
let dir = "";
let client: RemnantClient;
let log = "";

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => ok(port));
    });
  });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "remnant-ts-"));
  const port = await freePort();
  server = spawn(
    python,
    ["-m", "remnant", "serve", "--no-auth", "--port", String(port), "--db", join(dir, "remnant.db"), "--sweep-interval", "0"],
    { env: { ...process.env, HF_HUB_OFFLINE: "1", TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS: "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout?.on("data", (d: Buffer) => (log += d.toString()));
  server.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  client = new RemnantClient(`http://127.0.0.1:${port}`);
  const deadline = Date.now() + 60_000;
  while (!(await client.ready())) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

after(() => {
  server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

test("remember, recall, get, update, history", async () => {
  const m = await client.remember("Ana prefers green tea", "ana", { kind: "preference", key: "drink", tags: ["t"] });
  assert.equal(m.kind, "preference");
  assert.equal(m.remembered, true);
  const found = await client.recall("green tea", "ana", { tags: ["t"], touch: false });
  assert.deepEqual(found.hits.map((h) => h.memory.id), [m.id]);
  assert.ok((found.hits[0]?.strength ?? 0) > 0);
  const next = await client.remember("Ana prefers black coffee", "ana", { kind: "preference", key: "drink" });
  const versions = await client.history("drink", "ana");
  assert.deepEqual(versions.map((v) => v.status), ["superseded", "active"]);
  const changed = await client.update(next.id, { content: "Ana prefers flat whites", importance: 0.9 });
  assert.equal(changed.id, next.id);
  assert.equal(changed.content, "Ana prefers flat whites");
  assert.equal((await client.get(next.id)).importance, 0.9);
});

test("batch, ingest, used, review, pin, hide, purge", async () => {
  const batch = await client.rememberMany([
    { content: "note one", user_id: "bo" },
    { content: "note two", user_id: "bo" },
  ]);
  assert.equal(batch.length, 2);
  const added = await client.add([{ role: "user", content: "I moved to Berlin last month" }, "thanks!"], "bo", {
    session_id: "s1",
  });
  assert.equal(added.episodes.length, 2);
  assert.equal(added.episodes[0]?.session_id, "s1");
  const [first, second] = batch;
  assert.ok(first && second);
  assert.equal((await client.used([first.id]))[0]?.access_count, 1);
  assert.equal((await client.review(first.id)).review_count, 1);
  assert.equal((await client.pin(first.id)).pinned, true);
  assert.equal((await client.unpin(first.id)).pinned, false);
  assert.equal((await client.hide(second.id)).status, "hidden");
  assert.equal((await client.unhide(second.id)).status, "active");
  assert.equal(await client.purge(second.id), 1);
  const page = await client.list({ userId: "bo", limit: 100 });
  assert.equal(page.total, page.items.length);
});

test("forget, sweep, audit, stats, erase", async () => {
  const m = await client.remember("a thing to forget", "fo");
  const dry = await client.forgetIds([m.id], { dry_run: true });
  assert.equal(dry.matched, 1);
  assert.equal(dry.intent.people.length, 0); // every field of the intent is on the wire
  assert.deepEqual((await client.forgetIds(m.id)).forgotten, [m.id]);
  const byWords = await client.forget("forget the thing", { userId: "fo", dry_run: true });
  assert.equal(byWords.dry_run, true);
  assert.equal((await client.sweep(true)).dry_run, true);
  const audit = await client.audit({ userId: "fo" });
  assert.ok(audit.items.some((e) => e.action === "hide"));
  assert.equal((await client.verifyAudit()).ok, true);
  assert.equal((await client.stats("fo")).total, 1);
  const report = await client.eraseUser("fo");
  assert.equal(report.verified, true);
  assert.equal((await client.whoami()).tenant, "default");
});

test("idempotency keys and errors", async () => {
  const one = await client.remember("booked the train", "idem", { idempotencyKey: "k-1" });
  const two = await client.remember("booked the train", "idem", { idempotencyKey: "k-1" });
  assert.deepEqual(two, one);
  await assert.rejects(client.remember("another body", "idem", { idempotencyKey: "k-1" }), (e: unknown) => {
    return e instanceof RemnantError && e.status === 422 && e.code === "idempotency_key_reused";
  });
  await assert.rejects(client.get("mem_missing"), (e: unknown) => e instanceof RemnantError && e.code === "not_found");
  await assert.rejects(client.recall("q".repeat(4001), "idem"), (e: unknown) => e instanceof RemnantError && e.status === 422);
});
