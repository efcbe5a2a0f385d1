import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto, type FileDescriptorSet } from "@bufbuild/protobuf/wkt";
import type { PackageDefinition } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { FILE_DESCRIPTOR_SET } from "../gen/descriptors.js";

let decoded: FileDescriptorSet | undefined;

/**
 * The compiled descriptors of every service of this repository's protos (syncworker.v1's SyncWorker and Fleet),
 * of grpc.health.v1 and of reflection, with all they import.
 */
export function descriptorSet(): FileDescriptorSet {
  decoded ??= fromBinary(FileDescriptorSetSchema, Buffer.from(FILE_DESCRIPTOR_SET, "base64"));
  return decoded;
}

/** The services reflection adds to a server itself, listed by every server that has it. */
const REFLECTION_SERVICES = ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"] as const;

/**
 * Server reflection (v1 and v1alpha) for the services one server exposes, named in full (e.g.
 * `syncworker.v1.SyncWorker`, `grpc.health.v1.Health`), and reflection itself, so grpcurl and similar tools need no
 * proto files. The descriptors hold every service of the repository's protos, and the service and the fleet
 * controller serve different ones: reflection lists only the named services, and resolves only the files that define
 * them and what those import, so a server never describes a service it does not serve (the SyncWorker server knows
 * nothing of syncworker.v1.Fleet; the fleet's server resolves syncworker.proto's messages, which fleet.proto imports,
 * but does not list SyncWorker). A name without a descriptor throws, naming it: a typo or a stale `npm run gen`.
 *
 * The descriptors are the ones buf compiled (`npm run gen`), with their imports. @grpc/reflection is usually fed
 * proto-loader's, which are merged per package and name no dependencies, so a client cannot resolve
 * google.protobuf.Timestamp (grpc/grpc-node#3034); it indexes whatever descriptors a definition's entries carry, so
 * one entry (an enum's shape needs no codec) carrying the files replaces them.
 */
export function reflectionService(services: readonly string[]): ReflectionService {
  const listed = [...new Set([...services, ...REFLECTION_SERVICES])];
  const files = servedFiles(descriptorSet(), listed);
  const fileDescriptorProtos = files.map((file) => Buffer.from(toBinary(FileDescriptorProtoSchema, file)));
  const definition: PackageDefinition = { descriptors: { format: "Protocol Buffer 3 EnumDescriptorProto", type: {}, fileDescriptorProtos } };
  return new ReflectionService(definition, { services: listed });
}

/** The files that define `services` and every file they import, transitively, in the set's order. */
export function servedFiles(set: FileDescriptorSet, services: readonly string[]): FileDescriptorProto[] {
  const byName = new Map(set.file.map((file) => [file.name, file]));
  const needed = new Set<FileDescriptorProto>();
  const add = (file: FileDescriptorProto): void => {
    if (needed.has(file)) return;
    needed.add(file);
    for (const dependency of file.dependency) {
      const imported = byName.get(dependency);
      if (!imported) throw new Error(`reflection: ${file.name} imports ${dependency}, which the descriptors lack (run npm run gen)`);
      add(imported);
    }
  };
  for (const service of services) {
    const file = set.file.find((f) => f.service.some((s) => `${f.package ? `${f.package}.` : ""}${s.name}` === service));
    if (!file) throw new Error(`reflection: no descriptor defines the service ${service} (a typo, or run npm run gen)`);
    add(file);
  }
  return set.file.filter((file) => needed.has(file));
}
