/**
 * A small facade over a Remnant server's REST API (`/v1`). The types come from the server's
 * OpenAPI document (`openapi.json`, generated into `schema.ts` by openapi-typescript), so a change
 * of the server's shapes fails this package's build.
 */
import type { components, paths } from "./schema.js";

export type { components, paths };
type S = components["schemas"];
export type Memory = S["MemoryOut"];
export type MemoryRecord = S["MemoryRecordOut"];
export type RecallResult = S["RecallOut"];
export type Hit = S["HitOut"];
export type AddResult = S["AddOut"];
export type ForgetResult = S["ForgetOut"];
export type ErasureReport = S["ErasureOut"];
export type SweepReport = S["SweepOut"];
export type AuditPage = S["AuditPage"];
export type ChainVerification = S["ChainVerificationOut"];
export type Stats = S["StatsOut"];
export type MemoryPage = S["MemoryPage"];
export type MemoryCreate = S["MemoryCreate"];
export type MemoryPatch = S["MemoryPatch"];
export type RecallRequest = S["RecallRequest"];
export type IngestRequest = S["IngestRequest"];
export type ForgetRequest = S["ForgetRequest"];
export type ChatMessage = S["ChatMessage"];

/** The body of every error answer. */
export type ErrorBody = S["ErrorBody"];

/** A request the server refused or could not do: `status` and the server's error `code`. */
export class RemnantError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;

  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message);
    this.name = "RemnantError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export interface ClientOptions {
  /** An API key (rk_…); omit for a server in --no-auth mode. */
  apiKey?: string;
  /** Milliseconds before a request is abandoned (default 30 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface WriteOptions {
  /** The same key with the same request again gets the first answer and writes nothing. */
  idempotencyKey?: string;
}

type Json = Record<string, unknown>;
type WithoutUser<T> = Omit<T, "user_id" | "content">;

export class RemnantClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(baseUrl = "http://127.0.0.1:8420", options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetchImpl = options.fetch ?? fetch;
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    options: { query?: Record<string, string | number | boolean | string[] | undefined>; idempotencyKey?: string } = {},
  ): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
    }
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (this.apiKey) headers["Authorization"] = `Bearer ${this.apiKey}`;
    if (options.idempotencyKey) headers["Idempotency-Key"] = options.idempotencyKey;
    const response = await this.fetchImpl(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    const data: unknown = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      const err = (data as Partial<ErrorBody> | undefined)?.error;
      throw new RemnantError(
        response.status,
        err?.code ?? "error",
        err?.message ?? `HTTP ${response.status}`,
        err?.details,
      );
    }
    return data as T;
  }

  private static seg(id: string): string {
    return encodeURIComponent(id);
  }

  /** Store a memory (a keyed one supersedes the user's current memory with that key). */
  remember(
    content: string,
    userId: string,
    options: Partial<WithoutUser<MemoryCreate>> & WriteOptions = {},
  ): Promise<Memory> {
    const { idempotencyKey, ...rest } = options;
    return this.call("POST", "/v1/memories", { ...rest, content, user_id: userId }, { idempotencyKey });
  }

  /** Store many memories in one transaction: all or none. */
  rememberMany(items: MemoryCreate[], options: WriteOptions & { supersede?: boolean } = {}): Promise<Memory[]> {
    const body: S["MemoryBatchCreate"] = { items, supersede: options.supersede ?? true };
    return this.call<S["MemoryList"]>("POST", "/v1/memories/batch", body, options).then((r) => r.items);
  }

  /** Remember a conversation: the episodes and facts stored come back. */
  add(
    messages: (ChatMessage | string)[] | string,
    userId: string,
    options: Partial<Omit<IngestRequest, "messages" | "user_id">> & WriteOptions = {},
  ): Promise<AddResult> {
    const { idempotencyKey, ...rest } = options;
    const list = typeof messages === "string" ? [messages] : messages;
    return this.call("POST", "/v1/ingest", { ...rest, messages: list, user_id: userId }, { idempotencyKey });
  }

  /** What the user still remembers about `query`, with the Python API's filters. */
  recall(query: string, userId: string, options: Partial<Omit<RecallRequest, "query" | "user_id">> = {}): Promise<RecallResult> {
    return this.call("POST", "/v1/recall", { ...options, query, user_id: userId });
  }

  get(id: string): Promise<Memory> {
    return this.call("GET", `/v1/memories/${RemnantClient.seg(id)}`);
  }

  /** Change a memory in place (text, importance, tags, metadata, validity). */
  update(id: string, changes: MemoryPatch, options: WriteOptions = {}): Promise<Memory> {
    return this.call("PATCH", `/v1/memories/${RemnantClient.seg(id)}`, changes, options);
  }

  list(
    options: { userId?: string; status?: S["MemoryOut"]["status"][]; kind?: S["MemoryOut"]["kind"][]; key?: string; limit?: number; offset?: number } = {},
  ): Promise<MemoryPage> {
    const { userId, ...rest } = options;
    return this.call("GET", "/v1/memories", undefined, { query: { user_id: userId, ...rest } });
  }

  history(key: string, userId: string): Promise<Memory[]> {
    return this.call<S["MemoryList"]>("GET", "/v1/history", undefined, { query: { key, user_id: userId } }).then(
      (r) => r.items,
    );
  }

  review(id: string, options: WriteOptions = {}): Promise<Memory> {
    return this.call("POST", `/v1/memories/${RemnantClient.seg(id)}/review`, undefined, options);
  }

  /** Report memories the application used (the `use` reinforcement). */
  used(ids: string[], options: WriteOptions = {}): Promise<Memory[]> {
    return this.call<S["MemoryList"]>("POST", "/v1/used", { ids }, options).then((r) => r.items);
  }

  pin(id: string): Promise<Memory> {
    return this.call("POST", `/v1/memories/${RemnantClient.seg(id)}/pin`);
  }

  unpin(id: string): Promise<Memory> {
    return this.call("POST", `/v1/memories/${RemnantClient.seg(id)}/unpin`);
  }

  hide(id: string, reason = "hidden on request"): Promise<Memory> {
    return this.call("POST", `/v1/memories/${RemnantClient.seg(id)}/hide`, { reason });
  }

  unhide(id: string): Promise<Memory> {
    return this.call("POST", `/v1/memories/${RemnantClient.seg(id)}/unhide`);
  }

  /** Delete for good (audited); a pinned memory only with `force`. Returns how many were purged. */
  purge(id: string, force = false): Promise<number> {
    return this.call<S["PurgeOut"]>("DELETE", `/v1/memories/${RemnantClient.seg(id)}`, undefined, {
      query: force ? { force: true } : {},
    }).then((r) => r.purged);
  }

  /** Forget what a request in words asks ("forget my phone number"); `forgetIds` takes memory ids. */
  forget(
    request: string,
    options: Partial<Omit<ForgetRequest, "request" | "ids">> & { userId?: string } = {},
  ): Promise<ForgetResult> {
    const { userId, ...rest } = options;
    const body: Json = { ...rest, request };
    if (userId !== undefined) body["user_id"] = userId;
    return this.call("POST", "/v1/forget", body);
  }

  /** Forget memories by id: hide them, or purge them with `hard` (the same answer as `forget`). */
  forgetIds(
    ids: string | string[],
    options: Partial<Pick<ForgetRequest, "hard" | "dry_run" | "confirm">> = {},
  ): Promise<ForgetResult> {
    return this.call("POST", "/v1/forget", { ...options, ids: typeof ids === "string" ? [ids] : ids });
  }

  /** Right to be forgotten: everything of the user, for good. */
  eraseUser(userId: string): Promise<ErasureReport> {
    return this.call("POST", "/v1/erasure", { user_id: userId, confirm: true });
  }

  sweep(dryRun = false): Promise<SweepReport> {
    return this.call("POST", "/v1/sweep", { dry_run: dryRun });
  }

  audit(options: { userId?: string; action?: string; sinceSeq?: number; limit?: number } = {}): Promise<AuditPage> {
    return this.call("GET", "/v1/audit", undefined, {
      query: { user_id: options.userId, action: options.action, since_seq: options.sinceSeq, limit: options.limit },
    });
  }

  verifyAudit(): Promise<ChainVerification> {
    return this.call("GET", "/v1/audit/verify");
  }

  stats(userId?: string): Promise<Stats> {
    return this.call("GET", "/v1/stats", undefined, { query: { user_id: userId } });
  }

  whoami(): Promise<S["WhoAmI"]> {
    return this.call("GET", "/v1/whoami");
  }

  /** Whether the server is ready (its store answers and its vault key opens the vault). */
  async ready(): Promise<boolean> {
    try {
      const r = await this.fetchImpl(`${this.baseUrl}/readyz`, { signal: AbortSignal.timeout(this.timeoutMs) });
      return r.ok;
    } catch {
      return false;
    }
  }
}

/** Every route this facade calls: the build fails if the server's document loses one. */
export const ROUTES = [
  "/v1/memories",
  "/v1/memories/batch",
  "/v1/ingest",
  "/v1/recall",
  "/v1/memories/{memory_id}",
  "/v1/history",
  "/v1/memories/{memory_id}/review",
  "/v1/used",
  "/v1/memories/{memory_id}/pin",
  "/v1/memories/{memory_id}/unpin",
  "/v1/memories/{memory_id}/hide",
  "/v1/memories/{memory_id}/unhide",
  "/v1/forget",
  "/v1/erasure",
  "/v1/sweep",
  "/v1/audit",
  "/v1/audit/verify",
  "/v1/stats",
  "/v1/whoami",
] as const satisfies readonly (keyof paths)[];
