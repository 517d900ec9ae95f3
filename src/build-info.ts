// Which release and which commit this binary is: the version from package.json, the commit
// embedded by `make build` (bun build --define BUILD_COMMIT=…). Run from source, or built
// outside a git checkout, the commit is "unknown".
import pkg from "../package.json" with { type: "json" };

declare const BUILD_COMMIT: string | undefined;

export interface BuildInfo {
  version: string;
  commit: string;
}

export const BUILD_INFO: BuildInfo = {
  version: pkg.version,
  // typeof: an identifier no --define replaced is undeclared, and reading it would throw.
  commit: typeof BUILD_COMMIT === "string" && BUILD_COMMIT !== "" ? BUILD_COMMIT : "unknown",
};

/** The one line `gateway --version` prints. */
export const versionLine = (build: BuildInfo = BUILD_INFO) => `gateway ${build.version} (commit ${build.commit})`;
