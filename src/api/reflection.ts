import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorSet } from "@bufbuild/protobuf/wkt";
import type { PackageDefinition } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { FILE_DESCRIPTOR_SET } from "../gen/descriptors.js";

let decoded: FileDescriptorSet | undefined;

/** The compiled descriptors of every service the server exposes and of all they import. */
export function descriptorSet(): FileDescriptorSet {
  decoded ??= fromBinary(FileDescriptorSetSchema, Buffer.from(FILE_DESCRIPTOR_SET, "base64"));
  return decoded;
}

/**
 * Server reflection (v1 and v1alpha) for every service this server exposes: syncworker.v1.SyncWorker,
 * grpc.health.v1.Health and reflection itself, so grpcurl and similar tools need no proto files.
 *
 * The descriptors are the ones buf compiled (`npm run gen`), with their imports. @grpc/reflection is usually fed
 * proto-loader's, which are merged per package and name no dependencies, so a client cannot resolve
 * google.protobuf.Timestamp (grpc/grpc-node#3034); it indexes whatever descriptors a definition's entries carry, so
 * one entry (an enum's shape needs no codec) carrying every file replaces them.
 */
export function reflectionService(): ReflectionService {
  const fileDescriptorProtos = descriptorSet().file.map((file) => Buffer.from(toBinary(FileDescriptorProtoSchema, file)));
  const definition: PackageDefinition = { descriptors: { format: "Protocol Buffer 3 EnumDescriptorProto", type: {}, fileDescriptorProtos } };
  return new ReflectionService(definition);
}
