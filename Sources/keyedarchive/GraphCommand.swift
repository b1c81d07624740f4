import KeyedArchive
import PropertyList

/// `keyedarchive graph FILE --dot` (and `--html`): an archive's object graph as a picture
/// Graphviz draws, or as a page to explore in a browser. Both are built from the walk `dump`
/// makes (``ArchiveGraphModel``), so values read as `dump` shows them.
struct GraphCommand: ToolCommand {
    static let name = "graph"
    static let synopsis = "graph FILE --dot|--html [-o OUT] [--force] [--start PATH] [--depth N] [--max-nodes N] [--raw]\n" +
        "                        the object graph as Graphviz DOT or as a self-contained HTML page"

    enum Format { case dot, html }

    var path: String
    var format: Format
    var output: String?
    var force = false
    var start: ArchiveKeyPath?
    var depth: Int?
    var maximumNodes: Int?
    var rendering = ArchiveRenderingOptions.readable

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: ["-o", "--start", "--depth", "--max-nodes"],
                                         flags: ["--dot", "--html", "--force", "--raw"])
        guard parsed.positionals.count == 1 else {
            throw UsageError(message: "expected exactly one FILE (or - for standard input), got \(parsed.positionals.count)")
        }
        path = parsed.positionals[0]
        switch (parsed.flags.contains("--dot"), parsed.flags.contains("--html")) {
        case (true, false): format = .dot
        case (false, true): format = .html
        default: throw UsageError(message: "give one of --dot (Graphviz) or --html (a page to open in a browser)")
        }
        output = parsed.options["-o"]
        force = parsed.flags.contains("--force")
        if parsed.flags.contains("--raw") { rendering.foundationValues = false }
        if let text = parsed.options["--start"] {
            guard let path = ArchiveGraphModel.parseKeyPath(text) else {
                throw UsageError(message: "--start takes a key path such as root.airplanes[1], not '\(text)'")
            }
            start = path
        }
        depth = try Self.count(parsed.options["--depth"], option: "--depth")
        maximumNodes = try Self.count(parsed.options["--max-nodes"], option: "--max-nodes")
        if format == .html, depth != nil {
            throw UsageError(message: "--depth is for --dot: the page expands on demand")
        }
    }

    private static func count(_ text: String?, option: String) throws(UsageError) -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), value >= 0 else { throw UsageError(message: "\(option) takes a count, not '\(text)'") }
        return value
    }

    func run() throws -> Int32 {
        let graph = try readArchiveGraph(path)
        let signature = format == .dot ? ArchiveGraphDOT.signature : ArchiveGraphPage.signature
        try refuseForeignOutput(output, signature: signature, force: force)
        // A box of the DOT output stands for up to 8 nodes of the model; a huge --max-nodes
        // saturates rather than wrapping to a negative bound.
        let (dotNodes, overflow) = max(maximumNodes ?? ArchiveGraphDOT.defaultMaximumBoxes, 1).multipliedReportingOverflow(by: 8)
        let model = ArchiveGraphModel(graph, rendering: rendering, maximumNodes: format == .html ? maximumNodes ?? ArchiveGraphModel.defaultMaximumNodes
                                        : overflow ? Int.max : dotNodes)
        var startNode: Int?
        if let start {
            guard let node = model.node(at: start) else {
                throw InputError(message: "\(path): no value at \(start) (--start)")
            }
            startNode = node
        }
        let text: [UInt8]
        switch format {
        case .dot:
            text = Array(ArchiveGraphDOT.render(model, start: startNode, maximumDepth: depth,
                                                maximumBoxes: maximumNodes ?? ArchiveGraphDOT.defaultMaximumBoxes, title: path).utf8)
        case .html:
            text = ArchiveGraphPage.page(model, title: path, start: startNode)
        }
        try writeOutput(text, to: output)
        return ExitStatus.success
    }
}

/// Refuses to write over an existing regular file at `path` that this tool did not make — one
/// whose first bytes do not hold `signature` — unless `force` (a device such as `/dev/null`,
/// a pipe or standard output is written as always).
func refuseForeignOutput(_ path: String?, signature: String, force: Bool) throws(InputError) {
    guard let path, path != "-", !force, let status = LibC.status(ofPath: path), status.kind == .regular else { return }
    if status.size == 0 { return }
    let descriptor = LibC.openForReading(path)
    var head = [UInt8](repeating: 0, count: 1024)
    var count = 0
    if descriptor >= 0 {
        count = head.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            return max(0, LibC.read(descriptor, into: base, count: buffer.count))
        }
        LibC.close(descriptor)
    }
    let text = String(decoding: head[..<count], as: UTF8.self)
    guard !text.contains(signature) else { return }
    throw InputError(message: "\(path): exists and is not a file keyedarchive graph made; not replacing it (give --force to replace it)")
}
