/**
 * How `vitrine serve` stops: gracefully on SIGTERM and SIGINT (requests and queued writes
 * finish first), and, in a copy started by `--processes`, when its supervisor is gone. Apart
 * from serve.ts, which wires these up once the server listens.
 *
 * @module
 */
import type { Service } from "../service.ts";
import { drain } from "../app/server.ts";

/**
 * SIGTERM and SIGINT (Ctrl+C) stop the server gracefully (`drain`, docs/scaling.md): running
 * requests and queued writes finish within `shutdown_timeout_ms`, then the process exits 0 (1
 * if the time ran out). Only SIGTERM, which comes from a supervisor or orchestrator, waits
 * `shutdown_delay_ms` first. A second signal ends the process at once.
 */
export function stopOnSignals(
  svc: Service,
  server: Deno.HttpServer,
): (signal: "SIGTERM" | "SIGINT") => Promise<void> {
  let stopping = false;
  const stop = async (signal: "SIGTERM" | "SIGINT") => {
    if (stopping) {
      console.error(`Vitrine: ${signal} again, stopping now`);
      Deno.exit(1);
    }
    stopping = true;
    const timeoutMs = Number(svc.setting("shutdown_timeout_ms"));
    const delayMs = signal === "SIGTERM" ? Number(svc.setting("shutdown_delay_ms")) : 0;
    console.log(
      `Vitrine is stopping (${signal}): finishing ${svc.lifecycle.inFlight} running ` +
        `request(s) and the queued writes (up to ${timeoutMs} ms)`,
    );
    const inTime = await drain(svc, server, { delayMs, timeoutMs });
    if (!inTime) {
      console.error(
        `Vitrine: requests or writes were still running after ${timeoutMs} ms ` +
          "(shutdown_timeout_ms); exiting anyway",
      );
      Deno.exit(1);
    }
    await svc.close();
    Deno.exit(0);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(signal, () => void stop(signal));
    } catch {
      // Windows has no SIGTERM listener: Ctrl+C still works there.
    }
  }
  return stop;
}

/** How often a copy started by `--processes` checks that its supervisor is still there. */
const PARENT_CHECK_MS = 1_000;

/**
 * A copy started by `--processes` stops (as on Ctrl+C: no delay) when its supervisor is gone
 * without stopping it, e.g. killed with SIGKILL: the copy then has another parent. The
 * supervisor would have removed the copies' metrics folder; the copies do it instead (each
 * tries: whichever comes first removes it, and a copy still writing there skips its write).
 */
export function stopWithSupervisor(
  supervisor: number,
  stop: (signal: "SIGINT") => Promise<void>,
  metricsDir: string | null,
): void {
  const check = () => {
    if (Deno.ppid === supervisor) return;
    clearInterval(timer);
    console.error("Vitrine: the supervising process is gone; stopping");
    if (metricsDir) removeQuietly(metricsDir);
    void stop("SIGINT");
  };
  const timer = setInterval(check, PARENT_CHECK_MS);
  Deno.unrefTimer(timer);
}

function removeQuietly(dir: string): void {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // Another copy removed it first.
  }
}
