/** The floor for engine overhead: the smallest useful Deno HTTP server. `deno run -A bench/hello_server.ts PORT` */
const port = Number(Deno.args[0] ?? 8400);
Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, () => Response.json({ ok: true }));
