import { test } from "node:test";
import assert from "node:assert/strict";
import { compileServeOptions, formatHostPort, parseHostPort, ValueError } from "../../../src/config/index.js";

const VALID: [text: string, host: string, port: number][] = [
  ["127.0.0.1:50051", "127.0.0.1", 50051],
  ["localhost:0", "localhost", 0],
  ["0.0.0.0:65535", "0.0.0.0", 65535],
  ["[::1]:0", "::1", 0],
  ["[::]:8080", "::", 8080],
  ["[fe80::1%lo]:9", "fe80::1%lo", 9],
  ["syncworker.example.com:443", "syncworker.example.com", 443],
];
for (const [text, host, port] of VALID) {
  test(`parseHostPort reads ${text} and formats it back`, () => {
    const parsed = parseHostPort("listen", text);
    assert.deepEqual(parsed, { host, port });
    assert.equal(formatHostPort(parsed), text);
  });
}

const INVALID: [text: string, hint: RegExp][] = [
  ["::1:0", /IPv6 address in brackets/],
  ["::1", /IPv6 address in brackets/],
  ["[::1]", /not HOST:PORT/],
  ["[127.0.0.1]:80", /not an IPv6 address/],
  ["127.0.0.1", /not HOST:PORT/],
  [":50051", /not HOST:PORT/],
  ["host:", /not HOST:PORT/],
  ["host:65536", /not HOST:PORT/],
  ["host:-1", /not HOST:PORT/],
  ["host:12a", /not HOST:PORT/],
  ["[::1]:0:0", /not HOST:PORT/],
];
for (const [text, hint] of INVALID) {
  test(`parseHostPort refuses ${JSON.stringify(text)} naming the option`, () => {
    assert.throws(
      () => parseHostPort("admin-listen", text),
      (err: unknown) => err instanceof ValueError && err.option === "admin-listen" && hint.test(err.message),
    );
  });
}

test("every listen flag goes through the parser: IPv6 in brackets, loopback recognised without them", () => {
  const c = compileServeOptions({ listen: "[::1]:0", adminListen: "[::1]:0", metricsListen: "127.0.0.1:0" }, () => 0, "/unused");
  assert.deepEqual(
    [c.listen, c.adminListen, c.metricsListen],
    [
      { host: "::1", port: 0 },
      { host: "::1", port: 0 },
      { host: "127.0.0.1", port: 0 },
    ],
  );
  assert.equal(compileServeOptions({}, () => 0, "/unused").adminListen, undefined);
  for (const option of ["listen", "adminListen", "metricsListen"] as const) {
    assert.throws(
      () => compileServeOptions({ [option]: "::1:0" }, () => 0, "/unused"),
      (err: unknown) => err instanceof ValueError,
    );
  }
});
