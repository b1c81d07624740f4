import PropertyList

extension ConvertCommand {
    /// `convert FILE.json`: the property list the canonical JSON stands for, written in the
    /// requested format. What the text cannot say (a real's width, a small integer's 16-byte
    /// form) comes back in its usual form; Docs/PlistJSON.md, "Reading it back".
    func runFromJSON(_ input: [UInt8]) throws -> Int32 {
        let bytes: [UInt8]
        do {
            let value = try PropertyListJSONReader.read(input)
            bytes = try PropertyListCodec.encode(value, format: format)
        } catch {
            throw InputError(message: "\(path): \(error)")
        }
        try writeOutput(bytes, to: outputPath)
        return ExitStatus.success
    }
}
