import { DEFAULT_CLUSTER_PROFILE, goArch, KNOWN_FEATURE_SETS, type LoadOptions, type PayloadLimits } from "../payload/index.js";
import { enabledFeatureGates, KNOWN_CAPABILITIES, unknownCapabilities } from "../policy/index.js";
import { listText } from "../status/text.js";
import { applyDefaults, list, REGISTRY_FLAGS, RENDER_FLAGS, type RegistryFlags, type RenderFormat, type RenderOptions } from "./flags.js";
import { ValueError } from "./value-error.js";

/** How a payload is read and which of its manifests are included: one reading for `serve` and `render`. */
export type CompiledLoadOptions = Readonly<
  Required<Pick<LoadOptions, "exclude" | "featureSet" | "enabledFeatureGates" | "clusterProfile" | "knownCapabilities" | "architecture">> &
    Pick<LoadOptions, "enabledCapabilities" | "limits">
>;

/** The payload flags, defaults applied, whichever command gave them. */
export interface LoadFlags {
  readonly exclude: string;
  readonly clusterProfile: string;
  readonly featureSet: string;
  /** `--known-capabilities`: only names this release knows. */
  readonly knownCapabilities: readonly string[];
  /** `--capabilities` (render): the enabled ones; absent: every known one. They count as known, so a newer release's can be previewed. */
  readonly enabledCapabilities?: readonly string[];
  readonly limits?: PayloadLimits;
}

/** Checks the payload flags and derives what the loader needs from them (the feature gates, this process's architecture). */
export function compileLoadOptions(flags: LoadFlags): CompiledLoadOptions {
  const featureSet = featureSetOption(flags.featureSet);
  const known = knownCapabilitiesOption(flags.knownCapabilities);
  const enabled = flags.enabledCapabilities && Object.freeze(capabilityNames("capabilities", flags.enabledCapabilities));
  return Object.freeze({
    exclude: flags.exclude,
    // An empty profile is the default one, as an empty feature set is the default set.
    clusterProfile: flags.clusterProfile || DEFAULT_CLUSTER_PROFILE,
    featureSet,
    enabledFeatureGates: enabledFeatureGates(featureSet),
    knownCapabilities: Object.freeze(enabled ? [...new Set([...known, ...enabled])] : known),
    ...(enabled ? { enabledCapabilities: enabled } : {}),
    architecture: goArch(process.arch),
    ...(flags.limits ? { limits: flags.limits } : {}),
  });
}

/** Validates a feature set name ("" and `Default` both mean the default set). */
function featureSetOption(value: string): string {
  if (value !== "" && !KNOWN_FEATURE_SETS.includes(value)) {
    throw new ValueError("feature-set", `"${value}" is not a feature set; use one of ${KNOWN_FEATURE_SETS.join(", ")}`);
  }
  return value;
}

/** Capability names as annotations spell them: `+` separates names there, so it cannot be part of one. */
function capabilityNames(option: string, names: readonly string[]): string[] {
  for (const name of names) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new ValueError(option, `"${name}" is not a capability name`);
  }
  return [...new Set(names)].sort();
}

/** `--known-capabilities`: only names this release knows; one it does not know could never be enabled or shown. */
function knownCapabilitiesOption(names: readonly string[]): string[] {
  const checked = capabilityNames("known-capabilities", names);
  const unknown = unknownCapabilities(checked);
  if (unknown.length > 0)
    throw new ValueError(
      "known-capabilities",
      `${listText(unknown.map((name) => `"${name}"`))}: not known to this release (it knows ${KNOWN_CAPABILITIES.join(", ")})`,
    );
  return checked;
}

/** `render`'s flags, checked, with their defaults. */
export interface CompiledRenderOptions extends RegistryFlags {
  readonly image: string;
  /** Rendered into `manifests/` templates as `.ReleaseImage`. */
  readonly releaseImage: string;
  readonly payloadCache?: string;
  readonly load: CompiledLoadOptions;
  readonly showExcluded: boolean;
  readonly output: RenderFormat;
}

/** Applies `render`'s defaults and reads its payload flags as `serve` reads its own. */
export function compileRenderOptions(options: RenderOptions): Readonly<CompiledRenderOptions> {
  const o = applyDefaults({ ...REGISTRY_FLAGS, ...RENDER_FLAGS }, options);
  return Object.freeze({
    image: o.image,
    releaseImage: o.releaseImage ?? o.image,
    ...(o.payloadCache === undefined ? {} : { payloadCache: o.payloadCache }),
    ...(o.pullSecret === undefined ? {} : { pullSecret: o.pullSecret }),
    ...(o.registryCa === undefined ? {} : { registryCa: o.registryCa }),
    insecureRegistry: o.insecureRegistry,
    load: compileLoadOptions({
      exclude: o.exclude,
      clusterProfile: o.profile,
      featureSet: o.featureSet,
      knownCapabilities: KNOWN_CAPABILITIES,
      ...(o.capabilities === undefined ? {} : { enabledCapabilities: list(o.capabilities) }),
    }),
    showExcluded: o.showExcluded,
    output: o.output,
  });
}
