import { fileURLToPath } from "node:url";

/** A file: URL as a path, keeping the trailing slash of a folder URL. */
export function fromFileUrl(url: URL): string {
  const path = fileURLToPath(url);
  return url.pathname.endsWith("/") && !path.endsWith("/") ? `${path}/` : path;
}
