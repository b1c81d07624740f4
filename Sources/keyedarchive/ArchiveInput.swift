import PropertyList

/// An archive read from a file in any of the forms the tool accepts: a binary or XML property
/// list, or the canonical JSON of one (Docs/PlistJSON.md, what `plist` prints), which stands for
/// the binary property list `convert` would write from it. The commands that read archives
/// (dump, json, diff, validate, schema) read through ``readArchiveInput(_:)``.
struct ArchiveInput {
    /// Property-list bytes: the file's own, or for JSON the binary property list it stands for.
    var bytes: [UInt8]
    /// Whether the file was JSON.
    var isJSON: Bool
}

/// Reads `path` (or standard input for "-") as ``readInput(_:acceptingJSON:)`` does, taking
/// canonical JSON too.
func readArchiveInput(_ path: String) throws(InputError) -> ArchiveInput {
    try archiveInput(readInput(path, acceptingJSON: true), path: path)
}

/// The archive in `bytes`, read from `path`: JSON is converted, anything else taken as it is.
func archiveInput(_ bytes: [UInt8], path: String) throws(InputError) -> ArchiveInput {
    guard PropertyListJSONReader.looksLikeJSON(bytes) else { return ArchiveInput(bytes: bytes, isJSON: false) }
    do {
        return ArchiveInput(bytes: try PropertyListCodec.encode(PropertyListJSONReader.read(bytes), format: .binary), isJSON: true)
    } catch {
        throw InputError(message: "\(path): \(error)")
    }
}
