import KeyedArchive

/// `keyedarchive schema FILE... [--json | --swift [--name N] [--public]]`: the classes of one or many
/// archives inferred from what they store (Docs/Schema.md), as a readable report, as JSON, or
/// as Swift models that decode those archives.
struct SchemaCommand: ToolCommand {
    static let name = "schema"
    static let synopsis = "schema FILE... [--json | --swift [--name N] [--public]]  infer the classes of archives; --swift writes models (--public: for a library target)"

    enum Output { case text, json, swift }

    var paths: [String]
    var output: Output
    var namespace: String
    var isPublic: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: ["--name"], flags: ["--json", "--swift", "--public"])
        guard !parsed.positionals.isEmpty else {
            throw UsageError(message: "expected one or more FILEs (or - for standard input)")
        }
        if parsed.flags.contains("--json") && parsed.flags.contains("--swift") {
            throw UsageError(message: "--json and --swift exclude each other")
        }
        output = parsed.flags.contains("--swift") ? .swift : parsed.flags.contains("--json") ? .json : .text
        isPublic = parsed.flags.contains("--public")
        if isPublic, output != .swift { throw UsageError(message: "--public is for --swift") }
        if let name = parsed.options["--name"] {
            guard output == .swift else { throw UsageError(message: "--name is for --swift") }
            guard ArchiveSchema.isValidTypeName(name) else {
                throw UsageError(message: "--name '\(name)' is not a Swift type name (letters, digits and _, not starting with a digit)")
            }
            namespace = name
        } else {
            namespace = "ArchiveSchema"
        }
        if parsed.positionals.filter({ $0 == "-" }).count > 1 {
            throw UsageError(message: "standard input (-) can be read only once")
        }
        paths = parsed.positionals
    }

    func run() throws -> Int32 {
        var graphs: [ArchiveGraph] = []
        var formats: [ArchiveFormat] = []
        for path in paths {
            let bytes = try readInput(path)
            do {
                graphs.append(try ArchiveGraph(bytes: bytes))
            } catch {
                throw InputError(message: "\(path): \(error)")
            }
            formats.append(bytes.starts(with: Array("bplist".utf8)) ? .binary : .xml)
        }
        let schema = ArchiveSchema(graphs: graphs, formats: formats)
        switch output {
        case .text: writeStandardOutput(Array(schema.textDescription.utf8))
        case .json: writeStandardOutput(Array(schema.jsonDescription.utf8))
        case .swift: writeStandardOutput(Array(schema.swiftSource(name: namespace, public: isPublic).utf8))
        }
        return ExitStatus.success
    }
}
