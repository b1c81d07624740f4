import KeyedArchive
import PropertyList

/// `keyedarchive diff A B`: a semantic diff of two keyed archives (binary or XML, any mix) or
/// two plain property lists. Exit 0 equal, 1 different, 2 trouble (as `diff`).
struct DiffCommand: ToolCommand {
    static let name = "diff"
    static let synopsis = "diff A B [--values] [--layout] [--json] [--max N] [--html [-o OUT] [--force]]   what differs between two archives' graphs\n" +
        "                        (or two plists' values), one line per difference with its key path; exit 0 equal, 1 different, 2 error"

    var pathA: String
    var pathB: String
    var options = ArchiveDiff.Options()
    var layout = false
    var json = false
    /// `--html`: the page of both graphs side by side, differences marked (``ArchiveGraphPage``).
    var html = false
    var output: String?
    var force = false

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: ["--max", "-o"], flags: ["--values", "--layout", "--json", "--html", "--force"])
        guard parsed.positionals.count == 2 else {
            throw UsageError(message: "expected two files A and B (either may be - for standard input), got \(parsed.positionals.count)")
        }
        guard parsed.positionals[0] != "-" || parsed.positionals[1] != "-" else {
            throw UsageError(message: "only one of A and B can be standard input")
        }
        pathA = parsed.positionals[0]
        pathB = parsed.positionals[1]
        options.valuesOnly = parsed.flags.contains("--values")
        layout = parsed.flags.contains("--layout")
        json = parsed.flags.contains("--json")
        html = parsed.flags.contains("--html")
        output = parsed.options["-o"]
        force = parsed.flags.contains("--force")
        if !html, output != nil || force { throw UsageError(message: "-o and --force go with --html (the text report goes to standard output)") }
        if html, json || layout { throw UsageError(message: "--html cannot be combined with --json or --layout") }
        if let text = parsed.options["--max"] {
            guard let maximum = Int(text), maximum >= 0 else { throw UsageError(message: "--max must be a number of differences, not '\(text)'") }
            options.maximumDifferences = maximum
        }
    }

    func run() throws -> Int32 {
        do {
            return try compare()
        } catch {
            // Trouble is 2 here, as `diff` has it: 1 means "different".
            writeStandardError("keyedarchive diff: error: \(oneLine(error.message))\n")
            return ExitStatus.usage
        }
    }

    private func compare() throws(InputError) -> Int32 {
        var inputA = try readArchiveInput(pathA)
        var inputB = try readArchiveInput(pathB)
        // The bytes alone are kept, so that dropping them below lets them go.
        let isJSONA = inputA.isJSON, isJSONB = inputB.isJSON
        var bytesA = inputA.bytes, bytesB = inputB.bytes
        inputA.bytes = []
        inputB.bytes = []
        let diff: ArchiveDiff
        let graphA = Result { () throws(ArchiveError) in try ArchiveGraph(bytes: bytesA) }
        let graphB = Result { () throws(ArchiveError) in try ArchiveGraph(bytes: bytesB) }
        switch (graphA, graphB) {
        case (.success(let a), .success(let b)):
            // The graphs hold all the comparison needs: the inputs go (unless --layout reads them).
            if !layout {
                bytesA = []
                bytesB = []
            }
            diff = ArchiveDiff(a, b, options: options)
            if html {
                try refuseForeignOutput(output, signature: ArchiveGraphPage.signature, force: force)
                let page = ArchiveGraphPage.diffPage(ArchiveGraphModel(a), ArchiveGraphModel(b), diff: diff, titles: ("A: " + pathA, "B: " + pathB))
                try writeOutput(page, to: output)
                return diff.isEqual ? ExitStatus.success : ExitStatus.failure
            }
        default:
            if html { throw InputError(message: "--html draws two keyed archives' graphs; \(pathA) and \(pathB) are not both archives") }
            // Not both archives: compare the property lists' values by path.
            let a = try value(bytesA, path: pathA)
            let b = try value(bytesB, path: pathB)
            if case .failure(let error) = graphA, error.code != .invalidArchiveHeader {
                throw InputError(message: "\(pathA): \(error)")
            }
            if case .failure(let error) = graphB, error.code != .invalidArchiveHeader {
                throw InputError(message: "\(pathB): \(error)")
            }
            diff = ArchiveDiff(propertyList: a, b, options: options)
        }
        var layoutLines: [String] = []
        if layout {
            do {
                layoutLines = try ArchiveLayoutExplanation.explain(bytesA, bytesB)
                if isJSONA || isJSONB {
                    // JSON has no layout of its own: what follows is about the property lists it stands for.
                    let a = isJSONA ? "json" : formatName(bytesA), b = isJSONB ? "json" : formatName(bytesB)
                    layoutLines.insert("format: A is \(a), B is \(b) (JSON is compared as the binary property list it stands for)", at: 0)
                }
            } catch {
                throw InputError(message: "\(error)")
            }
        }
        if json {
            writeStandardOutput(Array(Self.jsonText(diff, layout: layout ? layoutLines : nil).utf8))
        } else {
            var text = ""
            for difference in diff.differences { text += oneLine(difference.description) + "\n" }
            if diff.omittedCount > 0 { text += "… and \(diff.omittedCount) more differences (--max raises the cap)\n" }
            if let reason = diff.incompleteReason { text += "comparison incomplete: \(oneLine(reason))\n" }
            for line in layoutLines { text += "layout: \(oneLine(line))\n" }
            writeStandardOutput(Array(text.utf8))
        }
        return diff.isEqual ? ExitStatus.success : ExitStatus.failure
    }

    private func formatName(_ bytes: [UInt8]) -> String {
        bytes.starts(with: Array("bplist".utf8)) ? "binary" : "xml"
    }

    private func value(_ bytes: [UInt8], path: String) throws(InputError) -> PropertyListValue {
        do {
            return try PropertyListCodec.decode(bytes)
        } catch {
            throw InputError(message: "\(path): \(error)")
        }
    }

    static func jsonText(_ diff: ArchiveDiff, layout: [String]?) -> String {
        var text = "{\n  \"equal\": \(diff.isEqual),\n  \"differences\": ["
        for (position, difference) in diff.differences.enumerated() {
            text += position == 0 ? "\n" : ",\n"
            text += "    {\"kind\": \(quoted(difference.kind.rawValue)), \"path\": \(quoted(difference.path.description)), \"a\": \(quoted(difference.a)), \"b\": \(quoted(difference.b))}"
        }
        text += diff.differences.isEmpty ? "],\n" : "\n  ],\n"
        text += "  \"omitted\": \(diff.omittedCount),\n  \"incomplete\": \(diff.incompleteReason.map(quoted) ?? "null")"
        if let layout {
            text += ",\n  \"layout\": [" + layout.map(quoted).joined(separator: ", ") + "]"
        }
        return text + "\n}\n"
    }

    /// A JSON string literal, escaped as every JSON output of the package escapes one.
    static func quoted(_ string: String) -> String {
        ArchiveSchema.jsonString(string)
    }
}
