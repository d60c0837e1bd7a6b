/**
 * The metadata a service serves: its own (files and options), under what `get_metadata` hooks
 * give, with the edits made while serving over both. Apart from `Service` because the merge has
 * a rule of its own: without hooks, the merged object is kept until the edits change.
 *
 * @module
 */

import { merge, Metadata } from "./metadata.ts";
import type { MetadataEdits } from "../db/metadata_edits.ts";
import type { HookCaller } from "../plugins/hooks.ts";

/** The merged metadata of one service. */
export class ServedMetadata {
  readonly #local: Metadata;
  readonly #hooks: HookCaller;
  readonly #edits: () => MetadataEdits | null;
  /** The merged metadata, kept while neither the edits nor the hooks' answers can change it. */
  #merged: { generation: number; metadata: Metadata } | null = null;

  /** `local` merged with the hooks' answers and `edits()` (null while nothing was edited). */
  constructor(local: Metadata, hooks: HookCaller, edits: () => MetadataEdits | null) {
    this.#local = local;
    this.#hooks = hooks;
    this.#edits = edits;
  }

  /** Metadata merged from `get_metadata` hooks, with the local metadata winning. */
  current(): Metadata {
    const edits = this.#edits();
    if (!this.#hooks.has("get_metadata")) {
      // Edits made while serving win over the files' metadata (`db/metadata_edits.ts`).
      if (!edits || edits.generation === 0) return this.#local;
      const kept = this.#merged;
      if (kept?.generation === edits.generation) return kept.metadata;
      const metadata = new Metadata(merge(this.#local.data, edits.overlay));
      this.#merged = { generation: edits.generation, metadata };
      return metadata;
    }
    const fromHooks = this.#hooks.callSync("get_metadata", {
      actor: null,
      key: null,
      database: null,
      table: null,
    });
    let merged: Record<string, unknown> = {};
    for (const piece of fromHooks.reverse()) merged = merge(merged, piece);
    return new Metadata(merge(merge(merged, this.#local.data), edits?.overlay ?? {}));
  }
}
