"""buf local plugin: Python messages (_pb2.py), stubs (.pyi) and gRPC services (_pb2_grpc.py) from grpcio-tools.

grpcio-tools ships its generators linked into its own protoc rather than as protoc-gen-* executables, and buf
only knows protoc's built-in generators by name, so this adapter turns buf's CodeGeneratorRequest into one
grpcio-tools protoc run over the same descriptors and hands the files back as a CodeGeneratorResponse.
"""

import os
import sys
import tempfile

from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2
from grpc_tools import protoc


def main() -> None:
    request = plugin_pb2.CodeGeneratorRequest.FromString(sys.stdin.buffer.read())
    response = plugin_pb2.CodeGeneratorResponse(supported_features=plugin_pb2.CodeGeneratorResponse.FEATURE_PROTO3_OPTIONAL)
    with tempfile.TemporaryDirectory() as tmp:
        descriptors = os.path.join(tmp, "descriptors.pb")
        with open(descriptors, "wb") as f:
            f.write(descriptor_pb2.FileDescriptorSet(file=request.proto_file).SerializeToString())
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        args = ["grpc_tools.protoc", f"--descriptor_set_in={descriptors}", f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}"]
        if protoc.main(args + list(request.file_to_generate)) != 0:
            response.error = "grpc_tools.protoc failed (see its messages above)"
        else:
            for root, _, names in os.walk(out):
                for name in sorted(names):
                    path = os.path.join(root, name)
                    with open(path, encoding="utf-8") as f:
                        response.file.add(name=os.path.relpath(path, out), content=f.read())
    sys.stdout.buffer.write(response.SerializeToString())


if __name__ == "__main__":
    main()
