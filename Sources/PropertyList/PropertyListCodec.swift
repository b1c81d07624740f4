/// The two encodings a property list can have on disk.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum PropertyListFormat: String, Hashable, Sendable, CaseIterable {
    /// Apple's binary format (`bplist00`): compact, and what keyed archives usually are.
    case binary
    /// The XML format (`<plist version="1.0">`): readable text; it cannot hold sets.
    case xml
}

/// A parsed property-list file of either format, keeping what a faithful rewrite needs.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum PropertyListFile: Sendable {
    /// A binary file, with its object table and layout.
    case binary(BinaryPropertyListDocument)
    /// An XML file, with its value and DOCTYPE.
    case xml(XMLPropertyListDocument)

    /// The file's format.
    public var format: PropertyListFormat {
        switch self {
        case .binary: return .binary
        case .xml: return .xml
        }
    }
}

/// Format-agnostic entry points: detect, read, write.
public enum PropertyListCodec {
    /// The format of `bytes` by its first bytes, or nil if it is neither.
    public static func detectFormat(_ bytes: UnsafeRawBufferPointer) -> PropertyListFormat? {
        if BinaryPropertyListReader.hasBinaryHeader(bytes) { return .binary }
        // XML may start with whitespace or a byte-order mark (UTF-8, UTF-16 either order, or
        // UTF-32 either order, the marks XMLInputEncoding converts); the XML reader checks the rest.
        var index = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        // UTF-32LE (FF FE 00 00) is caught by the UTF-16LE test; UTF-32BE starts 00 00 FE FF.
        if bytes.count >= 4, bytes[0] == 0x00, bytes[1] == 0x00, bytes[2] == 0xFE, bytes[3] == 0xFF { return .xml }
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) { return .xml }
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "<") { return .xml }
        return nil
    }

    /// Reads a file of either format, keeping its object table (binary) or DOCTYPE (XML).
    public static func readFile(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListFile {
        switch detectFormat(bytes) {
        case .binary: return .binary(try BinaryPropertyListReader.read(bytes, options: options))
        case .xml: return .xml(try XMLPropertyListReader.read(bytes, options: options))
        case nil:
            if bytes.count >= 3, bytes.count < 8, "bplist00".utf8.starts(with: bytes) {
                throw PropertyListError(.truncated, "file is \(bytes.count) bytes, cut short inside the 8-byte bplist00 header", at: .byteOffset(bytes.count))
            }
            if bytes.count >= 6, bytes.prefix(6).elementsEqual("bplist".utf8) {
                throw PropertyListError(.invalidHeader, "binary property list version \(String(decoding: bytes[6..<min(8, bytes.count)], as: UTF8.self).escapedForMessage) is not bplist00", at: .byteOffset(6))
            }
            if bytes.isEmpty {
                throw PropertyListError(.unknownFormat, "input is empty", at: .byteOffset(0))
            }
            throw PropertyListError(.unknownFormat, "input is neither a bplist00 nor an XML property list", at: .byteOffset(0))
        }
    }

    /// Reads a file of either format from `bytes`, keeping its object table (binary) or DOCTYPE (XML).
    public static func readFile(_ bytes: [UInt8], options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListFile {
        let result: Result<PropertyListFile, PropertyListError> = bytes.withUnsafeBytes { buffer in
            do throws(PropertyListError) { return .success(try readFile(buffer, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The value held by `bytes` in either format.
    public static func decode(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListValue {
        if detectFormat(bytes) == .binary {
            return try BinaryPropertyListReader.readValue(bytes, options: options)
        }
        switch try readFile(bytes, options: options) {
        case .binary(let document): return try document.value(options: options)
        case .xml(let document): return document.value
        }
    }

    /// The value held by `bytes` in either format.
    public static func decode(_ bytes: [UInt8], options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListValue {
        let result: Result<PropertyListValue, PropertyListError> = bytes.withUnsafeBytes { buffer in
            do throws(PropertyListError) { return .success(try decode(buffer, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Encodes a value in `format` with Core Foundation's layout.
    public static func encode(_ value: PropertyListValue, format: PropertyListFormat) throws(PropertyListError) -> [UInt8] {
        switch format {
        case .binary: return try BinaryPropertyListWriter().write(value)
        case .xml: return try XMLPropertyListWriter().write(value)
        }
    }

    /// The value ``readFile(_:options:)`` then `value()` gives for a binary file (every object
    /// checked, reachable or not), read straight into the value tree when the checks pass, without
    /// the object table; the usual path otherwise, which names the fault. For an XML file, its value.
    /// `BinaryRewriterTests` compare the two on the Apple corpus and on damaged files.
    package static func fileValue(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListValue {
        if detectFormat(bytes) == .binary, BinaryPropertyListRewriter.checkEveryObject(bytes, options: options),
           let value = try? BinaryPropertyListReader.readValue(bytes, options: options) {
            return value
        }
        // Faults are named by the usual path, in its words.
        switch try readFile(bytes, options: options) {
        case .binary(let document): return try document.value(options: options)
        case .xml(let document): return document.value
        }
    }

    /// Converts the file in `bytes` to `format` as ``convert(_:to:)`` does, handing the output to
    /// `output` in chunks as it is made. A binary file rewritten in binary goes straight from its
    /// bytes (`BinaryPropertyListRewriter`), without an object table and without the whole
    /// output in memory; every other file is read with ``readFile(_:options:)`` first. Either way
    /// the input is checked in full before the first chunk, so a faulty file gives no output.
    package static func convert(_ bytes: UnsafeRawBufferPointer, to format: PropertyListFormat, options: PropertyListReadingOptions = .default,
                                output: (UnsafeRawBufferPointer) -> Void) throws(PropertyListError) {
        if format == .binary, detectFormat(bytes) == .binary, let rewriter = BinaryPropertyListRewriter.plan(bytes, options: options) {
            rewriter.write(bytes, output: output)
            return
        }
        let converted = try convert(try readFile(bytes, options: options), to: format)
        converted.withUnsafeBytes(output)
    }

    /// Writes a parsed file in `format`. To its own format this reproduces the input byte for
    /// byte (object sharing, key order, era variants, DOCTYPE); across formats it keeps every
    /// value the target format can express.
    public static func convert(_ file: PropertyListFile, to format: PropertyListFormat) throws(PropertyListError) -> [UInt8] {
        switch (file, format) {
        case (.binary(let document), .binary):
            return try BinaryPropertyListWriter.matching(document).write(document)
        case (.binary(let document), .xml):
            return try XMLPropertyListWriter().write(try document.value())
        case (.xml(let document), .xml):
            return try XMLPropertyListWriter(doctype: document.doctype).write(document.value)
        case (.xml(let document), .binary):
            return try BinaryPropertyListWriter().write(document.value)
        }
    }
}
