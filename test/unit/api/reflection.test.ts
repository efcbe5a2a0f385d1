// Server reflection lists and resolves only the services a server serves: the descriptors hold every service of the
// repository's protos (SyncWorker and the fleet's Fleet), and each server names its own.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { descriptorSet, reflectionService, servedFiles } from "../../../src/api/reflection.js";

const reflectionProto = join(
  dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json")),
  "build/proto/grpc/reflection/v1/reflection.proto",
);
const ReflectionClient = (
  grpc.loadPackageDefinition(loadSync(reflectionProto)) as unknown as { grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } } }
).grpc.reflection.v1.ServerReflection;

interface ReflectionResponse {
  readonly listServicesResponse?: { readonly service: ReadonlyArray<{ readonly name: string }> };
  readonly fileDescriptorResponse?: { readonly fileDescriptorProto: readonly Buffer[] };
  readonly errorResponse?: { readonly errorCode: number };
}

const servers: grpc.Server[] = [];
const clients: grpc.Client[] = [];
after(() => {
  clients.forEach((c) => c.close());
  servers.forEach((s) => s.forceShutdown());
});

/** A server with nothing but reflection for `services`, and one reflection request answered by it. */
async function reflect(services: readonly string[]): Promise<(request: object) => Promise<ReflectionResponse>> {
  const server = new grpc.Server();
  servers.push(server);
  reflectionService(services).addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const client = new ReflectionClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  clients.push(client);
  return (request) =>
    new Promise((resolve, reject) => {
      const call = (client as unknown as { serverReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse> }).serverReflectionInfo();
      call.on("data", (response: ReflectionResponse) => {
        resolve(response);
        call.end();
      });
      call.on("error", reject);
      call.write(request);
    });
}

const names = (response: ReflectionResponse): string[] => (response.listServicesResponse?.service ?? []).map((s) => s.name).sort();

test("the SyncWorker server lists SyncWorker, health and reflection, and knows nothing of Fleet", async () => {
  const ask = await reflect(["syncworker.v1.SyncWorker", "grpc.health.v1.Health"]);
  assert.deepEqual(names(await ask({ listServices: "*" })), [
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
    "syncworker.v1.SyncWorker",
  ]);
  assert.equal((await ask({ fileContainingSymbol: "syncworker.v1.Fleet" })).errorResponse?.errorCode, grpc.status.NOT_FOUND);
  assert.ok((await ask({ fileContainingSymbol: "syncworker.v1.SyncWorkerStatus" })).fileDescriptorResponse?.fileDescriptorProto.length);
});

test("the fleet's server lists Fleet, and resolves what fleet.proto imports from syncworker.proto without listing SyncWorker", async () => {
  const ask = await reflect(["syncworker.v1.Fleet", "grpc.health.v1.Health"]);
  assert.deepEqual(names(await ask({ listServices: "*" })), [
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
    "syncworker.v1.Fleet",
  ]);
  // The file with its imports, the way grpcurl resolves MemberView.status.
  const files = (await ask({ fileContainingSymbol: "syncworker.v1.Fleet" })).fileDescriptorResponse?.fileDescriptorProto ?? [];
  const fileNames = files.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes).name);
  assert.ok(fileNames.includes("syncworker/v1/fleet.proto") && fileNames.includes("syncworker/v1/syncworker.proto"), fileNames.join(", "));
});

test("servedFiles: the defining files and their imports; an unknown service throws, naming it", () => {
  const set = descriptorSet();
  const of = (services: string[]): string[] => servedFiles(set, services).map((f) => f.name);
  assert.ok(!of(["syncworker.v1.SyncWorker"]).includes("syncworker/v1/fleet.proto"));
  assert.ok(of(["syncworker.v1.SyncWorker"]).includes("google/protobuf/timestamp.proto"));
  assert.deepEqual(
    of(["syncworker.v1.Fleet"]).filter((n) => n.startsWith("syncworker/")),
    ["syncworker/v1/syncworker.proto", "syncworker/v1/fleet.proto"],
  );
  assert.throws(() => servedFiles(set, ["syncworker.v1.SyncWorkr"]), /no descriptor defines the service syncworker\.v1\.SyncWorkr/);
});
