/// The package's version: what `keyedarchive --version` prints, the latest heading of
/// CHANGELOG.md (a test holds the two equal), raised with each release (Docs/PublicAPI.md).
package enum KeyedArchivePackage {
    package static let version = "0.9.0"
}
