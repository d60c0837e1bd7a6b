/**
 * The internal database and what the service keeps in it: the catalog of attached databases,
 * stored queries, column types, metadata edits and the write history. Each is opened on first use
 * (a service that never needs the internal database never creates it), and every store waits for
 * the catalog schema before its first read. Apart from `Service` so that the façade only hands
 * these out.
 *
 * @module
 */

import type { Database } from "./database.ts";
import type { DatabaseHost } from "./host.ts";
import { openInternalDatabase, refreshCatalog } from "./internal_db.ts";
import { StoredQueries } from "./stored_queries.ts";
import { ColumnTypeStore } from "./column_type_store.ts";
import { MetadataEdits } from "./metadata_edits.ts";
import { WriteHistory } from "./history/history.ts";
import type { HistoryMode } from "./history/store.ts";

/** The internal database of one service and the stores kept in it, each made when first asked. */
export class InternalStores {
  readonly #host: DatabaseHost;
  readonly #path: string | null;
  readonly #historyMode: (database: string) => HistoryMode | null;
  #internal: Database | null = null;
  #storedQueries: StoredQueries | null = null;
  #columnTypeStore: ColumnTypeStore | null = null;
  #metadataEdits: MetadataEdits | null = null;
  #history: WriteHistory | null = null;
  #catalogRefresh: Promise<void> = Promise.resolve();
  /** The catalog schema being created: `database()` sets it, so call that first. */
  #internalSchema: Promise<void> = Promise.resolve();

  /**
   * Stores of `host`'s internal database: the file at `path`, or a private memory database;
   * `historyMode` says which databases record their writes where (metadata's `history`).
   */
  constructor(
    host: DatabaseHost,
    path: string | null,
    historyMode: (database: string) => HistoryMode | null,
  ) {
    this.#host = host;
    this.#path = path;
    this.#historyMode = historyMode;
  }

  /** The internal database, opened (and its catalog schema started) on first use. */
  database(): Database {
    if (!this.#internal) {
      // Reads do not queue behind writes, so catalog refreshes await the schema first.
      const { db, ready } = openInternalDatabase(this.#host, this.#path);
      this.#internal = db;
      this.#internalSchema = ready;
    }
    return this.#internal;
  }

  /** The internal database if something opened it, else null (nothing to release or close). */
  opened(): Database | null {
    return this.#internal;
  }

  /** The queries people saved. */
  storedQueries(): StoredQueries {
    return this.#storedQueries ??= new StoredQueries(this.database(), this.#internalSchema);
  }

  /** The column types actors set. */
  columnTypeStore(): ColumnTypeStore {
    return this.#columnTypeStore ??= new ColumnTypeStore(this.database(), this.#internalSchema);
  }

  /** The history of writes made through Vitrine (`db/history/`). */
  history(): WriteHistory {
    this.#history ??= new WriteHistory(() => this.database(), this.#historyMode);
    return this.#history;
  }

  /** Metadata edited while serving. */
  metadataEdits(): MetadataEdits {
    return this.#metadataEdits ??= new MetadataEdits(this.database(), this.#internalSchema);
  }

  /** The metadata edits if something opened them, else null (there are none yet). */
  openedMetadataEdits(): MetadataEdits | null {
    return this.#metadataEdits;
  }

  /**
   * Brings the `catalog_*` tables up to date with `databases`, after any refresh already under
   * way; a failure is logged, not thrown (the catalog is a convenience, not the data).
   */
  async refreshCatalog(databases: Database[]): Promise<void> {
    this.#catalogRefresh = this.#catalogRefresh
      .then(async () => {
        const internal = this.database();
        await this.#internalSchema;
        await refreshCatalog(internal, databases);
      })
      .catch((error) => console.error(`Could not refresh the internal catalog: ${error}`));
    await this.#catalogRefresh;
  }

  /** Resolves once the catalog refreshes under way are over. */
  settled(): Promise<void> {
    return this.#catalogRefresh;
  }
}
