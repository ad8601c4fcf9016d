// amber-plugin.d.ts: amber's WIT (`amber:plugin@0.3.0`) as TypeScript
// declarations, in the shapes componentize-js gives JavaScript plugins.
// Written by `cargo xtask js-types` from wit/; do not edit.
//
// A function whose WIT result is `result<T, E>` returns T, and fails
// by throwing `{ payload: E }` (the SDK's define functions do it).

export type Result<T, E> = { tag: "ok"; val: T } | { tag: "err"; val: E };

/**
 * Slash-command subtrees. Seed: "Command binding". The host merges the
 * subtree into its command tree and derives each leaf's action as
 * `plugin.<id>.<path>`.
 */
export namespace Command {
  /**
   * A node of the subtree. Trees are flat lists in pre-order; `parent`
   * indexes into the same list (none for the root).
   */
  export interface CommandNode {
    name: string;
    help: string;
    man: string | undefined;
    parent: number | undefined;
    /**
     * Leaves with no handler are documented but not executable.
     */
    handler: boolean;
  }
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    spec(root: string): Array<Command.CommandNode>;
    /**
     * `path` names the node from the root; `arg` is the rest of the line.
     */
    run(path: Array<string>, arg: string): string /* throws { payload: string } */;
  }
}

/**
 * Runs a shell command on the host. Answers only for plugins granted
 * `exec`; otherwise every call returns an error saying so.
 */
export namespace Exec {
  export interface ExecOutput {
    /**
     * None when the process was killed by a signal (e.g. on timeout).
     */
    exitCode: number | undefined;
    stdout: string;
    stderr: string;
    timedOut: boolean;
    /**
     * True when stdout or stderr was cut at the output cap; the text then
     * ends with a note saying how much was cut.
     */
    truncated: boolean;
  }
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    /**
     * Runs `sh -c command` in its own process group with stdin from
     * /dev/null, an allowlisted environment and `cwd` confined to the
     * workspace (relative to its root; the root when absent).
     */
    run(command: string, cwd: string | undefined, timeoutMs: number | undefined): Exec.ExecOutput /* throws { payload: string } */;
  }
}

/**
 * Reads workspace files many at a time, and replaces one whole. Through
 * WASI a file costs several calls (open, stat, a stream, reads, drops),
 * and a search over thousands of files spends more time crossing than
 * searching; a write through WASI truncates the file first, so a full
 * disk loses it. Reads answer only for plugins granted `workspace-read`,
 * writes for `workspace-write`, under the same confinement as the
 * WASI preopen: `..`, absolute paths outside the workspace, and symlinks
 * that lead out of it are refused.
 */
export namespace Files {
  /**
   * Why one file of a batch was not read.
   */
  export type ReadError =
    | { tag: "too-large"; val: bigint }
    | { tag: "failed"; val: string };
  /**
   * What an entry of a walk is. A symlink is listed, never followed.
   */
  export type EntryKind = "file" | "folder" | "symlink" | "other";
  export interface WalkEntry {
    /**
     * The root as the plugin gave it, joined with the rest of the path.
     */
    path: string;
    kind: Files.EntryKind;
  }
  /**
   * The workspace below a folder (or one file), in path order, as
   * ripgrep walks it: .gitignore, .ignore and the repository's excludes
   * honoured, even outside a git repository, and hidden files skipped.
   * Nothing above the workspace is read; the ignore files between the
   * workspace root and the walk's root apply. The host
   * walks natively, so a plugin pays one crossing per batch of entries,
   * not several WASI calls per entry. Folders are opened from their
   * parent's handle, so a folder swapped for a symlink mid-walk cannot
   * lead out of the workspace.
   */
  export interface Walk {
    /**
     * Up to `max` more entries (at most 4096); none when the walk is done.
     */
    next(max: number): Array<Files.WalkEntry>;
  }
  export interface WalkClass {
    /**
     * Starts a walk at `root` (relative to the workspace root, or absolute
     * under the mount). Fails when the root is not in the workspace, its
     * real path included, or does not exist.
     */
    start(root: string): Files.Walk /* throws { payload: string } */;
  }
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    /**
     * The bytes of each file, in the order asked. A path is relative to the
     * workspace root, or absolute under the mount (`/workspace/...`). Each
     * file fails on its own. Once a batch has read 64 MiB, the files after
     * it fail with "ask again" rather than being read (a file that could
     * never fit is `too-large`). Only regular files are read: a folder, a
     * pipe or a device fails. The outer error means the call was not
     * allowed, or asked for more than 4096 paths.
     */
    readMany(paths: Array<string>, maxBytes: bigint): Array<Result<Uint8Array, Files.ReadError>> /* throws { payload: string } */;
    /**
     * Replaces the file at `path` with `contents`, whole or not at all:
     * the bytes go to a temporary file beside it, which takes the file's
     * mode and owner (WASI has no chmod), is synced, and is renamed over
     * it. On a full disk the old file is intact. A symlink inside the
     * workspace is written through to its target and stays a link; one
     * that leads out of the workspace or to nothing is refused, as is a
     * folder, a pipe or a device. A missing file is created (its folder
     * must exist). Needs `workspace-write`. The error is words naming the
     * path as given: "no space left on device (writing src/a.rs)".
     */
    replaceFile(path: string, contents: Uint8Array): void /* throws { payload: string } */;
    /** The resource's class: its constructor and static functions. */
    Walk: WalkClass;
  }
}

/**
 * Language parsers. Seed 003 (ambits): outlines with spans, and references.
 */
export namespace Parser {
  /**
   * One symbol. Outlines are flat lists in pre-order; `parent` indexes into
   * the same list.
   */
  export interface Symbol {
    kind: string;
    name: string;
    parent: number | undefined;
    byteStart: number;
    byteEnd: number;
    lineStart: number;
    lineEnd: number;
    /**
     * Where the signature ends (the body starts), as a byte offset.
     */
    signatureEnd: number;
  }
  export interface Span {
    byteStart: number;
    byteEnd: number;
    line: number;
  }
  /**
   * The calls a search found. A parser may bound the work one file costs
   * (re-parsing macro bodies, say); when it stops early it says why, so the
   * host can name the file as partly searched instead of passing off part
   * of the calls as all of them.
   */
  export interface Calls {
    spans: Array<Parser.Span>;
    /**
     * Set when the search stopped before the end of the file: why.
     */
    incomplete: string | undefined;
  }
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    outline(language: string, source: string): Array<Parser.Symbol> /* throws { payload: string } */;
    references(language: string, source: string, name: string): Parser.Calls /* throws { payload: string } */;
  }
}

/**
 * Prompt blocks. Seed: "Prompt assembly". Position and priority are
 * declared in the capability; rendering happens after the compression gate.
 */
export namespace Prompt {
  export interface RenderContext {
    /**
     * The sandbox path of the workspace, when granted.
     */
    workspace: string | undefined;
    /**
     * The user's current request, for blocks that recall by relevance.
     */
    request: string;
    model: string;
  }
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    /**
     * An empty string omits the block; an error is logged and omitted.
     */
    render(block: string, ctx: Prompt.RenderContext): string /* throws { payload: string } */;
  }
}

/**
 * Records shared by several interfaces. It has no functions, so importing it
 * costs a plugin nothing; capability declarations live here so that
 * `plugin.capabilities` can name them without importing the interfaces that
 * serve them.
 */
export namespace Types {
  export type LogLevel = "trace" | "debug" | "info" | "warn" | "error";
  /**
   * A permission a plugin may request. The user grants each one separately
   * (two keys: the manifest asks, the user grants).
   */
  export type Permission = "workspace-read" | "workspace-write" | "exec" | "http";
  export interface PermissionRequest {
    permission: Types.Permission;
    /**
     * Shown to the user when amber asks for the grant.
     */
    reason: string;
    /**
     * For `http`: the hosts it needs (`api.example.com`, `*.example.org`,
     * `127.0.0.1:8080`, `http://…` for plain HTTP). Empty for the other
     * kinds. Since 0.3.0.
     */
    hosts: Array<string>;
  }
  /**
   * An image: a PNG, JPEG, GIF or WebP, whole. Since 0.3.0.
   */
  export interface Image {
    /**
     * `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
     */
    mediaType: string;
    data: Uint8Array;
  }
  export interface PluginManifest {
    /**
     * Stable id, 1-64 of `[a-z0-9-_]`, unique per installation.
     */
    id: string;
    name: string;
    version: string;
    description: string;
    /**
     * The `amber:plugin` package version the plugin was built against.
     */
    apiVersion: string;
    permissions: Array<Types.PermissionRequest>;
  }
  export interface InitContext {
    hostVersion: string;
    apiVersion: string;
    /**
     * The sandbox path of the workspace, present only when a workspace
     * permission was granted.
     */
    workspace: string | undefined;
    granted: Array<Types.Permission>;
    /**
     * The hosts the `http` grant reaches (the user may have narrowed the
     * list the plugin asked for). Since 0.3.0.
     */
    httpHosts: Array<string>;
  }
  /**
   * A tool the model can call. `input-schema` is a JSON Schema document.
   */
  export interface ToolSpec {
    name: string;
    description: string;
    inputSchema: string;
    /**
     * True when the tool never changes anything; read mode allows only these.
     */
    readOnly: boolean;
  }
  /**
   * How the host authenticates requests for a flavor. The component never
   * sees the key: it only says which scheme the vendor expects.
   */
  export type AuthScheme = "bearer" | "x-api-key" | "none";
  /**
   * A wire dialect such as `openai-chat` or `anthropic-messages`.
   */
  export interface FlavorSpec {
    name: string;
    auth: Types.AuthScheme;
  }
  /**
   * Where a prompt block goes in the prompt copy.
   */
  export type BlockPosition = "head" | "tail";
  export interface BlockSpec {
    name: string;
    position: Types.BlockPosition;
    /**
     * Ascending: lower priorities come first; ties keep declaration order.
     */
    priority: number;
  }
  /**
   * A slash-command subtree rooted at `root` (e.g. `git` for `/git ...`).
   */
  export interface CommandRoot {
    root: string;
    help: string;
  }
  export interface LanguageSpec {
    name: string;
    /**
     * File extensions without the dot, e.g. `rs`.
     */
    extensions: Array<string>;
  }
  /**
   * The agent events a hook can handle (wit/hook.wit).
   */
  export type HookEvent = "session-start" | "user-prompt-submit" | "pre-tool" | "post-tool" | "permission-request" | "pre-compact" | "post-compact" | "stop" | "subagent-stop" | "session-end" | "notification";
  /**
   * One event a hook handles. `matcher` narrows `pre-tool`, `post-tool`
   * and `permission-request` to the tools whose name it matches: a
   * regular expression over the whole name (`shell`, `edit_file|write_file`,
   * `github__.*`); none or `*` matches every tool.
   */
  export interface HookSpec {
    event: Types.HookEvent;
    matcher: string | undefined;
  }
  /**
   * One thing a plugin contributes. Each kind is served by the exported
   * interface of the same name; the host refuses a capability whose
   * interface the component does not export.
   */
  export type Capability =
    | { tag: "tool"; val: Types.ToolSpec }
    | { tag: "provider"; val: Types.FlavorSpec }
    | { tag: "command"; val: Types.CommandRoot }
    | { tag: "prompt"; val: Types.BlockSpec }
    | { tag: "parser"; val: Types.LanguageSpec }
    | { tag: "hook"; val: Types.HookSpec };
}

/**
 * Hooks on the agent's events (docs/hooks.md). A hook plugin declares one
 * `capability.hook` per event it handles, each with an optional tool-name
 * matcher; the host calls only the functions of the events it declared,
 * every matching hook at once, each on its own instance, and combines
 * their decisions (deny beats ask, ask beats allow).
 * 
 * An `err`, a trap or a deadline is the hook failing. It fails closed on
 * `pre-tool`, `permission-request` and `user-prompt-submit` (the action is
 * denied, naming the hook) and open, with a warning, on the rest.
 */
export namespace Hook {
  export type HookEvent = Types.HookEvent;
  /**
   * What every event carries.
   */
  export interface HookContext {
    sessionId: string;
    /**
     * `main`, or the sub-agent's id.
     */
    agent: string;
    /**
     * `read`, `write` or `yolo`.
     */
    mode: string;
    /**
     * The workspace at its sandbox mount (`/workspace`), when granted.
     */
    workspace: string | undefined;
  }
  export type StartSource = "startup" | "resume" | "compact";
  /**
   * `allow` may carry context for the model; `block` stops the prompt
   * before the model sees it, and its reason is shown to the user.
   */
  export type PromptDecision =
    | { tag: "allow"; val: string | undefined }
    | { tag: "block"; val: string };
  export interface ToolCall {
    /**
     * amber's tool name (`shell`, `read_file`, `github__create_issue`).
     */
    name: string;
    /**
     * The arguments as JSON, as the model sent them (or as an earlier
     * hook rewrote them).
     */
    argsJson: string;
  }
  export type PreToolDecision =
    | { tag: "allow" }
    | { tag: "deny"; val: string }
    | { tag: "ask"; val: string }
    | { tag: "rewrite"; val: string };
  export interface ToolResult {
    call: Hook.ToolCall;
    /**
     * False when the call failed or was denied.
     */
    ok: boolean;
    /**
     * What the model will read.
     */
    output: string;
  }
  export interface PostToolDecision {
    /**
     * Added for the model after the result.
     */
    context: string | undefined;
    /**
     * Marks the result (shown to the user and the model), e.g. "secret
     * in output".
     */
    flag: string | undefined;
  }
  /**
   * An action about to be put to the user for approval.
   */
  export interface PermissionAsk {
    /**
     * A plugin id, `model` for a tool call, `host` for the host's tools.
     */
    requester: string;
    /**
     * The tool name, or `exec:<program>:<class>` for a shell command
     * (a matcher sees it as `shell`).
     */
    action: string;
    /**
     * The exact command line, or the call's arguments.
     */
    detail: string;
    /**
     * The classification, e.g. `destructive: deletes files`.
     */
    class: string | undefined;
  }
  /**
   * Approve or deny on the user's behalf. Only what the mode lets the
   * user approve ever reaches a hook: read mode's refusals stand.
   */
  export type PermissionDecision =
    | { tag: "abstain" }
    | { tag: "approve" }
    | { tag: "deny"; val: string };
  export type CompactTrigger = "automatic" | "manual";
  export interface CompactRequest {
    trigger: Hook.CompactTrigger;
    /**
     * The focus words the compaction was given (`/compact auth flow`).
     */
    focus: string;
  }
  export type PreCompactDecision =
    | { tag: "proceed"; val: string }
    | { tag: "skip"; val: string };
  export interface CompactDone {
    trigger: Hook.CompactTrigger;
    tokensBefore: bigint;
    tokensAfter: bigint;
  }
  export interface StopRequest {
    /**
     * The reply the run ends with.
     */
    reply: string;
    /**
     * How many times in a row a stop hook has already continued this
     * run (the host allows at most 3).
     */
    continued: number;
  }
  export type StopDecision =
    | { tag: "stop" }
    | { tag: "continue-with"; val: string };
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    sessionStart(ctx: Hook.HookContext, source: Hook.StartSource): string | undefined /* throws { payload: string } */;
    userPromptSubmit(ctx: Hook.HookContext, prompt: string): Hook.PromptDecision /* throws { payload: string } */;
    preTool(ctx: Hook.HookContext, call: Hook.ToolCall): Hook.PreToolDecision /* throws { payload: string } */;
    postTool(ctx: Hook.HookContext, callResult: Hook.ToolResult): Hook.PostToolDecision /* throws { payload: string } */;
    permissionRequest(ctx: Hook.HookContext, ask: Hook.PermissionAsk): Hook.PermissionDecision /* throws { payload: string } */;
    preCompact(ctx: Hook.HookContext, request: Hook.CompactRequest): Hook.PreCompactDecision /* throws { payload: string } */;
    postCompact(ctx: Hook.HookContext, done: Hook.CompactDone): string | undefined /* throws { payload: string } */;
    stop(ctx: Hook.HookContext, request: Hook.StopRequest): Hook.StopDecision /* throws { payload: string } */;
    /**
     * A sub-agent finished (observed only); `continued` is always 0.
     */
    subagentStop(ctx: Hook.HookContext, request: Hook.StopRequest): void /* throws { payload: string } */;
    /**
     * The session ends: `exit`, `clear`, `switch` (another session was
     * opened in its place) or `interrupted` (observed only).
     */
    sessionEnd(ctx: Hook.HookContext, reason: string): void /* throws { payload: string } */;
    /**
     * amber is about to ask the user for approval (observed only).
     */
    notification(ctx: Hook.HookContext, message: string): void /* throws { payload: string } */;
  }
}

/**
 * Imported by every plugin. Always answers; needs no grant.
 */
export namespace Host {
  export type LogLevel = Types.LogLevel;
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    /**
     * Written to the plugin's own log (`amber plugin logs <id>`).
     */
    log(level: Host.LogLevel, message: string): void;
    /**
     * A plugin-scoped setting from the user's config. Never a secret.
     */
    setting(key: string): string | undefined;
  }
}

/**
 * Exported by every plugin: identity and lifecycle.
 * Seed: "Capability ledger" (enable → initialize → capabilities → install;
 * disable → shutdown → unwind).
 */
export namespace Plugin {
  export type PluginManifest = Types.PluginManifest;
  export type InitContext = Types.InitContext;
  export type Capability = Types.Capability;
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    /**
     * Pure data; called before anything else and safe to call at any time.
     */
    manifest(): Plugin.PluginManifest;
    /**
     * Called once per instance before any capability is used. An error makes
     * the plugin Failed with this message as the reason.
     */
    initialize(ctx: Plugin.InitContext): void /* throws { payload: string } */;
    /**
     * Declared in the order the host installs them.
     */
    capabilities(): Array<Plugin.Capability>;
    /**
     * Called on disable, before the host unwinds the contributions.
     */
    shutdown(): void;
  }
}

/**
 * A wire dialect. Seed: "Provider wire path". The component shapes
 * requests and decodes streams; the host owns HTTP, SSE framing, retries and
 * the API key, which never enters the component.
 */
export namespace Provider {
  export type Image = Types.Image;
  export type Role = "system" | "user" | "assistant" | "tool";
  export interface ToolCall {
    id: string;
    name: string;
    /**
     * JSON text of the arguments.
     */
    arguments: string;
  }
  export interface ToolResult {
    callId: string;
    content: string;
    isError: boolean;
    /**
     * Images the tool returned with `content`. Since 0.3.0.
     */
    images: Array<Provider.Image>;
  }
  /**
   * Reasoning the vendor requires back on the next turn: Anthropic thinking
   * with its signature, Responses reasoning items with encrypted content.
   */
  export interface Reasoning {
    id: string | undefined;
    text: string;
    signature: string | undefined;
    encrypted: string | undefined;
  }
  export type Part =
    | { tag: "text"; val: string }
    | { tag: "reasoning"; val: Provider.Reasoning }
    | { tag: "tool-call"; val: Provider.ToolCall }
    | { tag: "tool-result"; val: Provider.ToolResult }
    | { tag: "image"; val: Provider.Image };
  export interface Message {
    role: Provider.Role;
    parts: Array<Provider.Part>;
  }
  export interface ToolDecl {
    name: string;
    description: string;
    inputSchema: string;
  }
  export interface ChatRequest {
    flavor: string;
    model: string;
    messages: Array<Provider.Message>;
    tools: Array<Provider.ToolDecl>;
    maxTokens: number | undefined;
    temperature: number | undefined;
    /**
     * The index in `messages` of the last message of a prefix that
     * another request shares byte for byte (the compression cycle's
     * classify and extract requests). A dialect whose vendor caches a
     * prefix only where the request marks it puts its mark at the end of
     * that message (Anthropic: `cache_control` on its last block); one
     * whose vendor caches prefixes by itself (OpenAI) sends nothing more.
     * `none`, or an index past the last message: no mark.
     */
    cacheBreakpoint: number | undefined;
  }
  /**
   * Path relative to the base URL; the host adds the base URL and auth.
   */
  export interface HttpRequest {
    method: string;
    path: string;
    headers: Array<[string, string]>;
    body: string;
  }
  /**
   * A batch of events packed into one buffer, so one string and one list
   * of numbers cross the boundary per batch instead of a string per event.
   */
  export interface SseBatch {
    text: string;
    /**
     * Four numbers per event, byte ranges into `text`: name start, name
     * length, data start, data length. A name of length 0 is an event
     * without an `event:` name (SSE dispatches both as "message"). A list
     * of u32 is copied across in one move; a list of records is lowered
     * field by field.
     */
    spans: Uint32Array;
  }
  export interface Usage {
    inputTokens: bigint;
    outputTokens: bigint;
    cachedInputTokens: bigint;
    cacheWriteTokens: bigint;
    reasoningTokens: bigint;
  }
  export type StopReason = "end-turn" | "tool-use" | "max-tokens" | "content-filter" | "refusal" | "other";
  export interface ToolCallStart {
    index: number;
    id: string;
    name: string;
  }
  export interface ToolCallDelta {
    index: number;
    arguments: string;
  }
  export interface StreamError {
    kind: string;
    message: string;
    retryable: boolean;
  }
  export type StreamChunk =
    | { tag: "text-delta"; val: string }
    | { tag: "reasoning-delta"; val: Provider.Reasoning }
    | { tag: "tool-call-start"; val: Provider.ToolCallStart }
    | { tag: "tool-call-delta"; val: Provider.ToolCallDelta }
    | { tag: "tool-call-end"; val: number }
    | { tag: "usage"; val: Provider.Usage }
    | { tag: "stop"; val: Provider.StopReason }
    | { tag: "error"; val: Provider.StreamError };
  export interface ErrorClass {
    retryable: boolean;
    /**
     * A message for the user, e.g. what the vendor said.
     */
    message: string;
  }
  /**
   * Decoding state for one stream, held on one instance for its duration.
   */
  export interface Decoder {
    /**
     * Takes a batch of events so the boundary is crossed rarely.
     */
    decode(batch: Provider.SseBatch): Array<Provider.StreamChunk>;
    /**
     * The stream ended; flush anything buffered.
     */
    finish(): Array<Provider.StreamChunk>;
  }
  export interface DecoderClass {
    new (flavor: string): Decoder;
  }
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    buildRequest(req: Provider.ChatRequest): Provider.HttpRequest /* throws { payload: string } */;
    classifyError(flavor: string, status: number, body: string): Provider.ErrorClass;
    /** The resource's class: its constructor and static functions. */
    Decoder: DecoderClass;
  }
}

/**
 * Tools the model can call. Seed: "Tool dispatch". The host validates the
 * arguments against the declared schema before calling.
 */
export namespace Tool {
  export type Image = Types.Image;
  export interface ToolOutput {
    /**
     * What the model reads.
     */
    content: string;
    /**
     * Optional JSON for front ends (a diff, counts); never shown to the model.
     */
    meta: string | undefined;
    /**
     * Images the model sees with `content`, where its model takes images
     * (a screenshot, a file read). Since 0.3.0.
     */
    images: Array<Tool.Image>;
  }
  export type ToolError =
    | { tag: "invalid-args"; val: string }
    | { tag: "failed"; val: string };
  /** The interface's functions, as a plugin exports or imports them. */
  export interface Functions {
    call(name: string, argsJson: string): Tool.ToolOutput /* throws { payload: Tool.ToolError } */;
  }
}
