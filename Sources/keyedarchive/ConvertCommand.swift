import PropertyList

/// `keyedarchive convert FILE --to binary|xml [-o OUT]`.
struct ConvertCommand: ToolCommand {
    static let name = "convert"
    static let synopsis = "convert FILE --to binary|xml [-o OUT]   rewrite a property list (in Core Foundation's layout;\n" +
        "                        a file already in it comes out byte-identical; XML loses what Docs/PropertyLists.md lists)"

    var path: String
    var format: PropertyListFormat
    var outputPath: String?

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: ["--to", "-o"])
        guard parsed.positionals.count == 1 else {
            throw UsageError(message: "expected exactly one FILE (or - for standard input), got \(parsed.positionals.count)")
        }
        guard let target = parsed.options["--to"] else {
            throw UsageError(message: "missing --to binary|xml")
        }
        guard let format = PropertyListFormat(rawValue: target) else {
            throw UsageError(message: "--to must be binary or xml, not '\(target)'")
        }
        path = parsed.positionals[0]
        self.format = format
        outputPath = parsed.options["-o"]
    }

    func run() throws -> Int32 {
        let file = try readPropertyListFile(path)
        let bytes: [UInt8]
        do {
            bytes = try PropertyListCodec.convert(file, to: format)
        } catch {
            throw InputError(message: "\(path): \(error)")
        }
        try writeOutput(bytes, to: outputPath)
        return ExitStatus.success
    }
}
