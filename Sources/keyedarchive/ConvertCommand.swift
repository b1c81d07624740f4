import PropertyList

/// `keyedarchive convert FILE --to binary|xml [-o OUT]`.
struct ConvertCommand: ToolCommand {
    static let name = "convert"
    static let synopsis = "convert FILE --to binary|xml [-o OUT] [--force]   rewrite a property list (in Core Foundation's layout;\n" +
        "                        a file already in it comes out byte-identical; XML loses what Docs/PropertyLists.md lists),\n" +
        "                        or write the one the canonical JSON of `plist` stands for (Docs/PlistJSON.md)"

    var path: String
    var format: PropertyListFormat
    var outputPath: String?
    /// Write binary to a terminal all the same.
    var force = false

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: ["--to", "-o"], flags: ["--force"])
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
        force = parsed.flags.contains("--force")
    }

    func run() throws -> Int32 {
        try refuseBinaryToTerminal(format == .binary, outputPath: outputPath, force: force)
        let input = try readInput(path, acceptingJSON: true)
        if PropertyListJSONReader.looksLikeJSON(input) { return try runFromJSON(input) }
        if format == .binary, input.starts(with: BinaryPropertyListFormat.magic) {
            // Written as it is made, straight from the file's bytes. (An XML file is read into
            // its value first, below, so that its bytes can go before the binary is written.)
            var destination = OutputDestination(outputPath)
            let converted: Result<Void, PropertyListError> = input.withUnsafeBytes { bytes in
                do throws(PropertyListError) {
                    return .success(try PropertyListCodec.convert(bytes, to: .binary) { destination.write($0) })
                } catch {
                    return .failure(error)
                }
            }
            if case .failure(let error) = converted { throw InputError(message: "\(path): \(error)") }
            try destination.finish()
            return ExitStatus.success
        }
        if format == .xml, input.starts(with: BinaryPropertyListFormat.magic), let streamed = try convertToXMLFromBytes(input) {
            return streamed
        }
        let bytes: [UInt8]
        // Binary to XML is the one conversion that can lose values: its value tree is kept to
        // compare with what the XML reads back as.
        var binaryValue: PropertyListValue?
        do {
            if input.starts(with: BinaryPropertyListFormat.magic) {
                let value = try input.withUnsafeBytes { (raw) throws(PropertyListError) in try PropertyListCodec.fileValue(raw) }
                binaryValue = value
                bytes = try XMLPropertyListWriter().write(value)
            } else {
                bytes = try PropertyListCodec.convert(try PropertyListCodec.readFile(input), to: format)
            }
        } catch {
            throw InputError(message: "\(path): \(error)")
        }
        try writeOutput(bytes, to: outputPath)
        if let binaryValue { warnOfLoss(XMLConversionLoss.firstLoss(of: binaryValue, readingBack: bytes)) }
        return ExitStatus.success
    }

    /// A binary file to XML straight from its bytes, the XML written as it is made and what it
    /// loses found value by value (without the value tree, the whole XML or the XML read back:
    /// ten times the input, Docs/Performance.md); nil when the file must take the usual path
    /// (a fault, a value XML refuses, a shared container), which names its fault in its words.
    private func convertToXMLFromBytes(_ input: [UInt8]) throws(InputError) -> Int32? {
        var destination = OutputDestination(outputPath)
        let converted: Result<String?, PropertyListError>? = input.withUnsafeBytes { raw in
            guard let tree = BinaryPropertyListTree.plan(raw, for: .xml) else { return nil }
            let loss = tree.firstXMLLoss(raw)
            do throws(PropertyListError) {
                // The plan has checked every value the writer could refuse: nothing stops it now.
                try tree.writeXML(raw) { destination.write($0) }
                return .success(loss)
            } catch {
                return .failure(error)
            }
        }
        switch converted {
        case nil:
            return nil
        case .failure(let error)?:
            // Dropped unfinished: a file named by -o is left as it was.
            throw InputError(message: "\(path): \(error)")
        case .success(let loss)?:
            try destination.finish()
            warnOfLoss(loss)
            return ExitStatus.success
        }
    }

    /// Not a fault — Core Foundation converts the same way — but a user should know.
    private func warnOfLoss(_ loss: String?) {
        guard let loss else { return }
        writeStandardError("keyedarchive convert: warning: \(oneLine(path)): XML does not keep every value: \(oneLine(loss)) (Docs/PropertyLists.md lists what XML loses)\n")
    }
}
