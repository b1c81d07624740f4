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
        let rendered: Result<Void, PropertyListError> = bytes.withUnsafeBytes { raw in
            do throws(PropertyListError) {
                // A binary file is rendered from its bytes, without its value tree, when it can be.
                if let tree = BinaryPropertyListTree.plan(raw, for: .json) {
                    return .success(try tree.renderJSON(raw) { chunk in writeStandardOutput(chunk) })
                }
                // The value tree alone: a binary file is not kept as an object table as well.
                let value = try PropertyListCodec.fileValue(raw)
                return .success(try PropertyListJSONRenderer.render(value) { chunk in writeStandardOutput(chunk) })
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = rendered { throw InputError(message: "\(path): \(error)") }
        return ExitStatus.success
    }
}
