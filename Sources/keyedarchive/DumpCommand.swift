import KeyedArchive

/// `keyedarchive dump FILE` and `keyedarchive json FILE`: the object graph of any keyed
/// archive, as an indented tree or as JSON (Docs/KeyedArchiveFormat.md). Shared objects are
/// printed once and referred to afterwards, so output stays linear in the archive's size.
struct DumpCommand: ToolCommand {
    static let name = "dump"
    static let synopsis = "dump FILE [--raw]     print an archive's object graph as an indented tree"

    var path: String
    var rendering = ArchiveRenderingOptions.readable

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: [], flags: ["--raw"])
        path = try singleFileArgument(parsed.positionals)
        if parsed.flags.contains("--raw") { rendering.foundationValues = false }
    }

    func run() throws -> Int32 {
        try printRendering(of: path) { [rendering] graph, output throws(ArchiveError) in try ArchiveDumper.dump(graph, rendering: rendering, output: output) }
    }
}

struct JSONCommand: ToolCommand {
    static let name = "json"
    static let synopsis = "json FILE [--raw] [--plain-numbers]   print an archive's object graph as JSON"

    var path: String
    var rendering = ArchiveRenderingOptions(foundationValues: true)

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: [], flags: ["--raw", "--plain-numbers"])
        path = try singleFileArgument(parsed.positionals)
        if parsed.flags.contains("--raw") { rendering.foundationValues = false }
        rendering.plainNumbers = parsed.flags.contains("--plain-numbers")
    }

    func run() throws -> Int32 {
        try printRendering(of: path) { [rendering] graph, output throws(ArchiveError) in try ArchiveJSONRenderer.render(graph, rendering: rendering, output: output) }
    }
}

/// Reads FILE and prints its rendering as it is made (memory stays the graph's, whatever the
/// length of the text, and the file's bytes are let go before the rendering starts); a fault
/// becomes the one-line report.
func printRendering(of path: String, _ render: (ArchiveGraph, (ArraySlice<UInt8>) -> Void) throws(ArchiveError) -> Void) throws(InputError) -> Int32 {
    let graph = try readArchiveGraph(path)
    do {
        try render(graph) { chunk in writeStandardOutput(chunk) }
    } catch {
        throw InputError(message: "\(path): \(error)")
    }
    return ExitStatus.success
}

/// Reads FILE as a keyed archive; a fault becomes the one-line report, with a hint when the
/// file is a plain property list. The file's bytes are gone when this returns.
func readArchiveGraph(_ path: String) throws(InputError) -> ArchiveGraph {
    let bytes = try readArchiveInput(path).bytes
    do {
        return try ArchiveGraph(bytes: bytes)
    } catch {
        throw InputError(message: "\(path): \(error)\(plainPropertyListHint(error, bytes: bytes, path: path))")
    }
}

/// The one FILE (or "-") that most commands take.
func singleFileArgument(_ arguments: [String]) throws(UsageError) -> String {
    let parsed = try ParsedArguments(arguments, valued: [])
    guard parsed.positionals.count == 1 else {
        throw UsageError(message: "expected exactly one FILE (or - for standard input), got \(parsed.positionals.count)")
    }
    return parsed.positionals[0]
}
