/**
 * `vitrine publish kubernetes`: builds and pushes the image, writes Kubernetes manifests and
 * applies them with `kubectl`.
 *
 * ```sh
 * vitrine publish kubernetes data.db --image registry.example.com/data:1 --replicas 3 \
 *   --max-replicas 10
 * ```
 *
 * Manifests (in `kubernetes/` of the build context): `deployment.yaml` (N replicas, readiness and
 * liveness probes on `/-/health` and `/-/health/live`, resource requests, non-root), `service.yaml`,
 * `secret.yaml` (a `Secret` holding `VITRINE_SECRET` and plugin secrets; replicas must share the
 * signing secret, so one is generated when `--secret` is not given) and, with `--max-replicas`,
 * `hpa.yaml` (a CPU-based HorizontalPodAutoscaler).
 *
 * @module
 */
import { join } from "node:path";
import YAML from "yaml";
import type { HookArgs } from "../../../plugins/hookspecs.ts";
import { addProviderOptions, type DeployArgs, providerAction, TOOLS } from "./provider.ts";

/** Adds `kubernetes` to `vitrine publish` (unless a plugin added one first). */
export function publish_subcommand({ publish }: HookArgs<"publish_subcommand">): void {
  if (publish.commands.some((command) => command.name() === "kubernetes")) return;
  addProviderOptions(publish.command("kubernetes"))
    .description("Publish to a Kubernetes cluster (docker build/push, kubectl apply)")
    .requiredOption("--image <name>", "image to build, push and run, e.g. registry/data:1")
    .option("--name <name>", "name of the Deployment, Service and Secret", "vitrine")
    .option("--namespace <namespace>", "namespace to apply to (default: kubectl's)")
    .option("--replicas <count>", "number of replicas", "2")
    .option("--cpu-request <cpu>", "CPU request of each replica", "100m")
    .option("--memory-request <memory>", "memory request of each replica", "256Mi")
    .option("--cpu-limit <cpu>", "CPU limit of each replica")
    .option("--memory-limit <memory>", "memory limit of each replica")
    .option("--max-replicas <count>", "also write hpa.yaml, scaling up to this many replicas")
    .option("--cpu-target <percent>", "average CPU use the autoscaler aims for", "70")
    .option(
      "--service-type <type>",
      "Service type: ClusterIP, NodePort or LoadBalancer",
      "ClusterIP",
    )
    .option("--no-build", "do not build and push the image (it is already in the registry)")
    .action(async (files: string[], flags: Record<string, unknown>) => {
      sizes(flags);
      if (!flags.secret) {
        // Every replica must sign and check cookies and tokens with the same secret.
        flags.secret = randomSecret();
        console.log("No --secret given: the replicas will share a generated one.");
      }
      const tools = flags.build === false ? [TOOLS.kubectl] : [TOOLS.kubectl, TOOLS.docker];
      await providerAction({ name: "kubernetes", tools, bakeSecrets: false, deploy })(files, flags);
    });
}

/** What the manifests are written from. */
export interface KubernetesConfig {
  name: string;
  image: string;
  replicas: number;
  port: number;
  requests: { cpu: string; memory: string };
  limits: { cpu?: string; memory?: string };
  secrets: Record<string, string>;
  maxReplicas: number | null;
  cpuTarget: number;
  serviceType: string;
}

/** The manifests, by file name (`deployment.yaml`, `service.yaml`, ...), as YAML text. */
export function kubernetesManifests(config: KubernetesConfig): Record<string, string> {
  const labels = { "app.kubernetes.io/name": "vitrine", "app.kubernetes.io/instance": config.name };
  // Readiness fails while the pod starts or drains (SIGTERM); liveness only if it hangs.
  const probe = (path: string, delay: number, period: number) => ({
    httpGet: { path, port: "http" },
    initialDelaySeconds: delay,
    periodSeconds: period,
    timeoutSeconds: 5,
  });
  const hasSecrets = Object.keys(config.secrets).length > 0;
  const limits = Object.fromEntries(Object.entries(config.limits).filter(([, v]) => v));
  const container = {
    name: "vitrine",
    image: config.image,
    ports: [{ name: "http", containerPort: config.port }],
    ...(hasSecrets ? { envFrom: [{ secretRef: { name: `${config.name}-secrets` } }] } : {}),
    readinessProbe: probe("/-/health", 2, 5),
    livenessProbe: probe("/-/health/live", 15, 30),
    resources: { requests: config.requests, ...(Object.keys(limits).length ? { limits } : {}) },
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: false },
    // A stopping pod leaves the Service's endpoints while this runs; only then does SIGTERM
    // make Vitrine stop accepting connections and drain (docs/scaling.md).
    lifecycle: { preStop: { exec: { command: ["sleep", "5"] } } },
  };
  const files: Record<string, unknown> = {
    "deployment.yaml": {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: config.name, labels },
      spec: {
        replicas: config.replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            securityContext: { runAsNonRoot: true, runAsUser: DENO_IMAGE_UID },
            // preStop's 5 s, then up to shutdown_timeout_ms (30 s) of draining.
            terminationGracePeriodSeconds: 40,
            containers: [container],
          },
        },
      },
    },
    "service.yaml": {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: config.name, labels },
      spec: {
        type: config.serviceType,
        selector: labels,
        ports: [{ name: "http", port: 80, targetPort: "http" }],
      },
    },
  };
  if (hasSecrets) {
    files["secret.yaml"] = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: `${config.name}-secrets`, labels },
      type: "Opaque",
      stringData: config.secrets,
    };
  }
  if (config.maxReplicas !== null) {
    files["hpa.yaml"] = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: config.name, labels },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: config.name },
        minReplicas: config.replicas,
        maxReplicas: config.maxReplicas,
        metrics: [{
          type: "Resource",
          resource: {
            name: "cpu",
            target: { type: "Utilization", averageUtilization: config.cpuTarget },
          },
        }],
      },
    };
  }
  return Object.fromEntries(
    Object.entries(files).map(([name, doc]) => [name, YAML.stringify(doc)]),
  );
}

/** The `deno` user of the official Deno image, which the Dockerfile runs as. */
const DENO_IMAGE_UID = 1993;

/** The numeric options, checked (before anything is written). */
function sizes(flags: Record<string, unknown>) {
  const replicas = positive(flags.replicas, "--replicas");
  const maxReplicas = flags.maxReplicas === undefined
    ? null
    : positive(flags.maxReplicas, "--max-replicas");
  if (maxReplicas !== null && maxReplicas < replicas) {
    throw new Error("--max-replicas must be at least --replicas");
  }
  return { replicas, maxReplicas, cpuTarget: positive(flags.cpuTarget, "--cpu-target") };
}

async function deploy({ flags, context, runner, tools, print }: DeployArgs): Promise<void> {
  const [kubectl, engine] = tools;
  const config: KubernetesConfig = {
    name: String(flags.name),
    image: String(flags.image),
    ...sizes(flags),
    port: context.port,
    requests: { cpu: String(flags.cpuRequest), memory: String(flags.memoryRequest) },
    limits: {
      cpu: flags.cpuLimit as string | undefined,
      memory: flags.memoryLimit as string | undefined,
    },
    secrets: context.secrets,
    serviceType: String(flags.serviceType),
  };
  const folder = join(context.dir, "kubernetes");
  await Deno.mkdir(folder);
  const manifests = kubernetesManifests(config);
  for (const [name, text] of Object.entries(manifests)) {
    await Deno.writeTextFile(join(folder, name), text);
  }
  await Deno.writeTextFile(join(context.dir, ".dockerignore"), "kubernetes/\n", { append: true });
  print(`  kubernetes/: ${Object.keys(manifests).join(", ")}`);
  if (engine) {
    await runner.run({ cmd: engine, args: ["build", "--tag", config.image, context.dir] });
    await runner.run({ cmd: engine, args: ["push", config.image] });
  }
  const namespace = typeof flags.namespace === "string" ? ["--namespace", flags.namespace] : [];
  await runner.run({ cmd: kubectl, args: ["apply", ...namespace, "-f", folder] });
}

function positive(value: unknown, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new Error(`${flag} needs a whole number of at least 1, got "${value}"`);
  }
  return number;
}

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
