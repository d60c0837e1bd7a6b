/**
 * Entry of a read worker that loads no plugin modules (standalone databases, tests). The service's
 * workers start from `app/read_worker.ts` instead, which loads plugins through the registry.
 *
 * @module
 */
import { serveReads } from "./worker.ts";

serveReads((urls) => {
  if (urls.length === 0) return Promise.resolve(() => {});
  return Promise.reject(
    new Error("This read pool has no plugin loader: start it with workerUrl app/read_worker.ts"),
  );
});
