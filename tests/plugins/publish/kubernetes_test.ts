/**
 * `vitrine publish kubernetes` against fake `docker` and `kubectl` on PATH; the manifests are
 * parsed as YAML and checked field by field.
 */
import assert from "node:assert/strict";
import YAML from "yaml";
import { buildShopDb } from "../../fixtures/shop.ts";
import { fakeTools, vitrine } from "./fake_tools.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;

function manifests(folder: string): Record<string, Doc> {
  const out: Record<string, Doc> = {};
  for (const entry of Deno.readDirSync(folder)) {
    out[entry.name] = YAML.parse(Deno.readTextFileSync(`${folder}/${entry.name}`));
  }
  return out;
}

Deno.test("kubernetes builds, pushes and applies a Deployment, Service, Secret and HPA", async () => {
  const tools = fakeTools(["docker", "kubectl"]);
  const result = await vitrine([
    "publish",
    "kubernetes",
    buildShopDb(),
    "--image",
    "registry.test/shop:3",
    "--name",
    "shop",
    "--namespace",
    "data",
    "--replicas",
    "3",
    "--max-replicas",
    "8",
    "--cpu-target",
    "60",
    "--memory-request",
    "300Mi",
    "--memory-limit",
    "1Gi",
    "--secret",
    "k8s-secret-1",
    "--plugin-secret",
    "auth",
    "token",
    "t0k",
  ], tools.env());
  assert.equal(result.code, 0, result.stderr);
  assert.ok(!result.stdout.includes("k8s-secret-1"));
  const calls = tools.calls();
  assert.deepEqual(calls.map((call) => [call.tool, ...call.args.slice(0, 3)]), [
    ["docker", "build", "--tag", "registry.test/shop:3"],
    ["docker", "push", "registry.test/shop:3"],
    ["kubectl", "apply", "--namespace", "data"],
  ]);
  // The image does not carry the manifests.
  assert.match(Deno.readTextFileSync(`${calls[0].context}/.dockerignore`), /^kubernetes\/$/m);

  const docs = manifests(calls[2].context!);
  assert.deepEqual(Object.keys(docs).sort(), [
    "deployment.yaml",
    "hpa.yaml",
    "secret.yaml",
    "service.yaml",
  ]);
  const deployment = docs["deployment.yaml"];
  assert.equal(deployment.kind, "Deployment");
  assert.equal(deployment.metadata.name, "shop");
  assert.equal(deployment.spec.replicas, 3);
  assert.deepEqual(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels);
  assert.equal(deployment.spec.template.spec.securityContext.runAsNonRoot, true);
  const [container] = deployment.spec.template.spec.containers;
  assert.equal(container.image, "registry.test/shop:3");
  assert.deepEqual(container.ports, [{ name: "http", containerPort: 8001 }]);
  assert.deepEqual(container.readinessProbe.httpGet, { path: "/-/health", port: "http" });
  assert.deepEqual(container.livenessProbe.httpGet, { path: "/-/health/live", port: "http" });
  assert.deepEqual(container.lifecycle.preStop.exec.command, ["sleep", "5"]);
  assert.equal(deployment.spec.template.spec.terminationGracePeriodSeconds, 40);
  assert.deepEqual(container.resources, {
    requests: { cpu: "100m", memory: "300Mi" },
    limits: { memory: "1Gi" },
  });
  assert.deepEqual(container.envFrom, [{ secretRef: { name: "shop-secrets" } }]);

  const service = docs["service.yaml"];
  assert.equal(service.spec.type, "ClusterIP");
  assert.deepEqual(service.spec.selector, deployment.spec.selector.matchLabels);
  assert.deepEqual(service.spec.ports, [{ name: "http", port: 80, targetPort: "http" }]);

  const secret = docs["secret.yaml"];
  assert.equal(secret.kind, "Secret");
  assert.equal(secret.metadata.name, "shop-secrets");
  assert.deepEqual(secret.stringData, {
    VITRINE_SECRET: "k8s-secret-1",
    VITRINE_PLUGIN_AUTH_TOKEN: "t0k",
  });

  const hpa = docs["hpa.yaml"];
  assert.equal(hpa.apiVersion, "autoscaling/v2");
  assert.deepEqual(hpa.spec.scaleTargetRef, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: "shop",
  });
  assert.equal(hpa.spec.minReplicas, 3);
  assert.equal(hpa.spec.maxReplicas, 8);
  assert.equal(hpa.spec.metrics[0].resource.target.averageUtilization, 60);
});

Deno.test("kubernetes --no-build needs only kubectl; replicas share a generated secret", async () => {
  const tools = fakeTools(["kubectl"]);
  const result = await vitrine(
    ["publish", "kubernetes", buildShopDb(), "--image", "registry.test/shop:3", "--no-build"],
    tools.env(),
  );
  assert.equal(result.code, 0, result.stderr);
  const calls = tools.calls();
  assert.deepEqual(calls.map((call) => [call.tool, call.args[0]]), [["kubectl", "apply"]]);
  const docs = manifests(calls[0].context!);
  assert.equal(docs["hpa.yaml"], undefined);
  assert.equal(docs["deployment.yaml"].spec.replicas, 2);
  assert.match(docs["secret.yaml"].stringData.VITRINE_SECRET, /^[0-9a-f]{64}$/);
});

Deno.test("kubernetes refuses --max-replicas below --replicas", async () => {
  const tools = fakeTools(["kubectl", "docker"]);
  const result = await vitrine([
    "publish",
    "kubernetes",
    buildShopDb(),
    "--image",
    "i",
    "--replicas",
    "4",
    "--max-replicas",
    "2",
  ], tools.env());
  assert.equal(result.code, 1);
  assert.match(result.stderr, /--max-replicas must be at least --replicas/);
  assert.deepEqual(tools.calls(), []);
  assert.doesNotMatch(result.stdout, /Writing the build context/, "checked before any work");
});
