import PropertyList

/// `keyedarchive plist FILE`: the canonical JSON of Docs/PlistJSON.md.
struct PlistCommand: ToolCommand {
    static let name = "plist"
    static let synopsis = "plist FILE            print a property list (binary or XML) as canonical JSON"

    var path: String

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: [])
        guard parsed.positionals.count == 1 else {
            throw UsageError(message: "expected exactly one FILE (or - for standard input), got \(parsed.positionals.count)")
        }
        path = parsed.positionals[0]
    }

    func run() throws -> Int32 {
        let file = try readPropertyListFile(path)
        do {
            let value: PropertyListValue
            switch file {
            case .binary(let document): value = try document.value()
            case .xml(let document): value = document.value
            }
            writeStandardOutput(try PropertyListJSONRenderer.render(value))
        } catch {
            throw InputError(message: "\(path): \(error)")
        }
        return ExitStatus.success
    }
}
