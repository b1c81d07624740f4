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
        let file = try readPropertyListFile(path)
        do {
            let value: PropertyListValue
            switch file {
            case .binary(let document): value = try document.value()
            case .xml(let document): value = document.value
            }
            try PropertyListJSONRenderer.render(value) { chunk in writeStandardOutput(chunk) }
        } catch {
            throw InputError(message: "\(path): \(error)")
        }
        return ExitStatus.success
    }
}
