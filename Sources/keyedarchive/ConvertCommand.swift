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
        if let binaryValue, let loss = Self.firstLoss(of: binaryValue, written: bytes) {
            // Not a fault — Core Foundation converts the same way — but a user should know.
            writeStandardError("keyedarchive convert: warning: \(oneLine(path)): XML does not keep every value: \(oneLine(loss)) (Docs/PropertyLists.md lists what XML loses)\n")
        }
        return ExitStatus.success
    }

    /// Where the XML, read back, first differs from the binary file's value, and how; nil when
    /// it holds every value (key order and sharing aside, which XML never keeps).
    static func firstLoss(of original: PropertyListValue, written: [UInt8]) -> String? {
        guard let back = try? XMLPropertyListReader.read(written).value else { return nil }
        // The path of the pair being compared is a trail of steps, cut back to each pair's depth
        // as it is taken and spelt out only for the loss reported: a string made for every pair
        // cost two thirds of a large conversion.
        var trail: [PathStep] = []
        func path() -> String {
            var text = "root"
            for step in trail {
                switch step {
                case .index(let index): text += "[\(index)]"
                case .key(let key): text += ".\(key.excerptForMessage(64))"
                }
            }
            return text
        }
        var pending: [(original: PropertyListValue, back: PropertyListValue, depth: Int, step: PathStep?)] = [(original, back, 0, nil)]
        while let (lhs, rhs, depth, step) = pending.popLast() {
            if trail.count > depth { trail.removeLast(trail.count - depth) }
            if let step { trail.append(step) }
            switch (lhs, rhs) {
            case (.array(let left), .array(let right)):
                guard left.count == right.count else { return "\(path()): \(left.count) elements became \(right.count)" }
                for index in left.indices.reversed() { pending.append((left[index], right[index], trail.count, .index(index))) }
            case (.dictionary(let left), .dictionary(let right)):
                guard left.count == right.count else { return "\(path()): \(left.count) keys became \(right.count)" }
                for entry in left.entries.reversed() {
                    guard let other = right[entry.key] else { return "\(path()): key \"\(entry.key.excerptForMessage(64))\" did not survive" }
                    pending.append((entry.value, other, trail.count, .key(entry.key)))
                }
            case (.real(let left), .real(let right)):
                guard left != right else { continue }
                if case .float32(let narrow) = left, case .float64(let wide) = right, Double(narrow).bitPattern == wide.bitPattern {
                    return "\(path()): the 32-bit real \(narrow) becomes a 64-bit real"
                }
                return "\(path()): real \(Self.realText(left.doubleValue)) reads back as \(Self.realText(right.doubleValue))"
            case (.integer(let left), .integer(let right)):
                guard left != right else { continue }
                if left.high == right.high, left.low == right.low {
                    return "\(path()): the 16-byte integer \(left) becomes an 8-byte integer"
                }
                return "\(path()): integer \(left) reads back as \(right)"
            case (.string(let left), .string(let right)):
                if !left.unicodeScalars.elementsEqual(right.unicodeScalars) { return "\(path()): string \"\(left.excerptForMessage(64))\" reads back as \"\(right.excerptForMessage(64))\"" }
            default:
                if lhs != rhs { return "\(path()): \(describe(lhs)) reads back as \(describe(rhs))" }
            }
        }
        return nil
    }

    /// One step of a path: into an array's element or a dictionary's value.
    private enum PathStep {
        case index(Int)
        case key(String)
    }

    /// A real for a message: NaNs with their bits, since the payload is what XML loses.
    private static func realText(_ value: Double) -> String {
        value.isNaN ? "NaN 0x\(String(value.bitPattern, radix: 16))" : "\(value)"
    }

    private static func describe(_ value: PropertyListValue) -> String {
        switch value {
        case .date(let date): return "date \(date.secondsSinceReferenceDate)"
        case .uid(let uid): return "UID \(uid.value)"
        case .integer(let integer): return "integer \(integer)"
        case .dictionary: return "a dictionary"
        case .array: return "an array"
        default: return "\(value)".excerptForMessage(64)
        }
    }
}
