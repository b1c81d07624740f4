import KeyedArchive
import PropertyList

/// `keyedarchive schema FILE... [--json | --swift [--name N] [--public]]`: the classes of one or
/// many archives inferred from what they store (Docs/Schema.md), as a readable report, as the
/// schema file (JSON, Docs/Compatibility.md), or as Swift models that decode those archives.
/// Schema files among the inputs are merged in: a contract grows as fixtures are added.
struct SchemaCommand: ToolCommand {
    static let name = "schema"
    static let synopsis = "schema FILE... [--json | --swift [--name N] [--public]]  infer the classes of archives (and merge schema files);\n" +
        "                        --json writes the schema file, --swift models (--public: for a library target)"

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
        var schemas: [ArchiveSchema] = []
        for path in paths {
            let input = try readInput(path, acceptingJSON: true)
            // JSON is a schema file, or else the canonical JSON of an archive (Docs/PlistJSON.md).
            if PropertyListJSONReader.looksLikeJSON(input) {
                switch Result(catching: { () throws(ArchiveSchemaFileError) in try ArchiveSchema(jsonFile: input) }) {
                case .success(let schema):
                    guard output != .swift else {
                        throw InputError(message: "\(path): --swift needs the archives themselves, not a schema file (back-references are found by walking them)")
                    }
                    schemas.append(schema)
                    continue
                case .failure(let error) where error.code == .notASchema || error.code == .invalidJSON:
                    break
                case .failure(let error):
                    throw InputError(message: "\(path): \(error)")
                }
            }
            let bytes = try archiveInput(input, path: path).bytes
            do {
                graphs.append(try ArchiveGraph(bytes: bytes))
            } catch {
                throw InputError(message: "\(path): \(error)")
            }
            formats.append(bytes.starts(with: Array("bplist".utf8)) ? .binary : .xml)
        }
        let schema = ArchiveSchema(graphs: graphs, schemas: schemas, formats: formats)
        switch output {
        case .text: writeStandardOutput(Array(schema.textDescription.utf8))
        case .json: writeStandardOutput(Array(schema.jsonDescription.utf8))
        case .swift: writeStandardOutput(Array(schema.swiftSource(name: namespace, public: isPublic).utf8))
        }
        return ExitStatus.success
    }
}
