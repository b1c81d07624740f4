import PropertyList

/// `keyedarchive plist FILE`: the canonical JSON of Docs/PlistJSON.md.
struct PlistCommand: ToolCommand {
    static let name = "plist"
    static let synopsis = "plist FILE            print a property list (binary or XML) as canonical JSON"

    var path: String

    init(arguments: [String]) throws(UsageError) {
        path = try singleFileArgument(arguments)
    }

    func run() throws -> Int32 {
        let bytes = try readInput(path)
        do {
            // The value tree alone: a binary file is not kept as an object table as well.
            let value = try bytes.withUnsafeBytes { (raw) throws(PropertyListError) in try PropertyListCodec.fileValue(raw) }
            try PropertyListJSONRenderer.render(value) { chunk in writeStandardOutput(chunk) }
        } catch {
            throw InputError(message: "\(path): \(error)")
        }
        return ExitStatus.success
    }
}
