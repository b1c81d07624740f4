import Foundation
import Testing
@testable import PropertyList

/// Input encodings other than UTF-8: decided like Core Foundation (byte-order marks, then the
/// declaration of a file that starts with `<?xml`) and read to the same values it reads.
@Suite struct XMLEncodingTests {
    static let text = "<?xml version=\"1.0\" encoding=\"%@\"?>\n<plist version=\"1.0\"><dict><key>é</key><string>Ωmega € ‘quoted’ ÿ</string><key>n</key><integer>5</integer></dict></plist>\n"

    static func document(declaring name: String) -> String {
        text.replacingOccurrences(of: "%@", with: name)
    }

    @Test func byteOrderMarks() throws {
        let source = Self.document(declaring: "UTF-8")
        let expected = try XMLPropertyListReader.read(Array(source.utf8)).value
        var utf16LE: [UInt8] = [0xFF, 0xFE], utf16BE: [UInt8] = [0xFE, 0xFF]
        for unit in source.utf16 {
            utf16LE += [UInt8(truncatingIfNeeded: unit), UInt8(truncatingIfNeeded: unit >> 8)]
            utf16BE += [UInt8(truncatingIfNeeded: unit >> 8), UInt8(truncatingIfNeeded: unit)]
        }
        var utf32LE: [UInt8] = [0xFF, 0xFE, 0x00, 0x00], utf32BE: [UInt8] = [0x00, 0x00, 0xFE, 0xFF]
        for scalar in source.unicodeScalars {
            let value = scalar.value
            utf32LE += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
            utf32BE += [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
        }
        let utf8BOM: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(source.utf8)
        for (name, bytes) in [("UTF-16LE", utf16LE), ("UTF-16BE", utf16BE), ("UTF-32LE", utf32LE), ("UTF-32BE", utf32BE), ("UTF-8 BOM", utf8BOM)] {
            #expect(try XMLPropertyListReader.read(bytes).value == expected, "\(name)")
            #expect(XMLReaderCoreFoundationTests.ours(bytes) == XMLReaderCoreFoundationTests.coreFoundation(bytes), "\(name)")
        }
        // An unpaired surrogate in UTF-16 is not text.
        #expect(throws: PropertyListError.self) { try XMLPropertyListReader.read([0xFF, 0xFE] + Array("<string>".utf16.flatMap { [UInt8($0), 0] }) + [0x00, 0xD8] + Array("</string>".utf16.flatMap { [UInt8($0), 0] })) }
    }

    /// A character that cannot be converted is located where it stands (a new user's trial found
    /// an unpaired surrogate on line 504 reported at line 1, column 1): lines and columns in
    /// characters of the converted text, in UTF-16, UTF-32 and a single-byte encoding.
    @Test func conversionFaultsAreLocated() throws {
        func location(_ bytes: [UInt8]) -> PropertyListError.Location? {
            do { _ = try XMLPropertyListReader.read(bytes); return nil } catch { return error.location }
        }
        let before = "<plist>\n<array>\n<string>abc"
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in before.utf16 { utf16 += [UInt8(truncatingIfNeeded: unit), UInt8(truncatingIfNeeded: unit >> 8)] }
        utf16 += [0x00, 0xD8, 0x41, 0x00]
        #expect(location(utf16) == .line(3, column: 12))
        var utf32: [UInt8] = [0xFF, 0xFE, 0x00, 0x00]
        for scalar in before.unicodeScalars { utf32 += [UInt8(truncatingIfNeeded: scalar.value), 0, 0, 0] }
        utf32 += [0x00, 0xD8, 0x00, 0x00]
        #expect(location(utf32) == .line(3, column: 12))
        let windows1252 = Array("<?xml version=\"1.0\" encoding=\"windows-1252\"?>\n<plist><string>ab".utf8) + [0x81]
        #expect(location(windows1252) == .line(2, column: 18))
        // Lines end at CR and CRLF too, as for every other error (a review's finding).
        for ending in ["\r", "\r\n", "\n"] {
            let text = "<?xml version=\"1.0\" encoding=\"windows-1252\"?>" + ending + "<plist>" + ending + "<string>ab"
            #expect(location(Array(text.utf8) + [0x81]) == .line(3, column: 11), "\(ending.debugDescription)")
        }
    }

    /// Every byte-order mark the XML reader converts is also recognised by the codec's format
    /// detection, so `decode` and `readFile` reach the XML reader (UTF-32BE starts 00 00 FE FF,
    /// which detection used to refuse as neither format).
    @Test func detectFormatRecognisesEveryByteOrderMark() throws {
        let source = Self.document(declaring: "UTF-8")
        let expected = try XMLPropertyListReader.read(Array(source.utf8)).value
        var utf16BE: [UInt8] = [0xFE, 0xFF], utf16LE: [UInt8] = [0xFF, 0xFE]
        for unit in source.utf16 {
            utf16BE += [UInt8(truncatingIfNeeded: unit >> 8), UInt8(truncatingIfNeeded: unit)]
            utf16LE += [UInt8(truncatingIfNeeded: unit), UInt8(truncatingIfNeeded: unit >> 8)]
        }
        var utf32BE: [UInt8] = [0x00, 0x00, 0xFE, 0xFF], utf32LE: [UInt8] = [0xFF, 0xFE, 0x00, 0x00]
        for scalar in source.unicodeScalars {
            let value = scalar.value
            utf32BE += [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
            utf32LE += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
        }
        let utf8BOM: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(source.utf8)
        for (name, bytes) in [("UTF-32BE", utf32BE), ("UTF-32LE", utf32LE), ("UTF-16BE", utf16BE), ("UTF-16LE", utf16LE), ("UTF-8 BOM", utf8BOM)] {
            #expect(bytes.withUnsafeBytes { PropertyListCodec.detectFormat($0) } == .xml, "\(name)")
            #expect(try PropertyListCodec.decode(bytes) == expected, "\(name)")
            #expect(try PropertyListCodec.readFile(bytes).format == .xml, "\(name)")
        }
        // The bare mark alone is still detected as XML (and then refused by the XML reader),
        // and a lone pair of zero bytes is neither format.
        #expect([UInt8]([0x00, 0x00, 0xFE, 0xFF]).withUnsafeBytes { PropertyListCodec.detectFormat($0) } == .xml)
        #expect([UInt8]([0x00, 0x00, 0xFE]).withUnsafeBytes { PropertyListCodec.detectFormat($0) } == nil)
        #expect(throws: PropertyListError.self) { try PropertyListCodec.decode([0x00, 0x00, 0xFE, 0xFF]) }
    }

    /// Single-byte encodings, declared: the same values as Core Foundation, byte for byte of
    /// every character the encoding has.
    @Test func declaredSingleByteEncodings() throws {
        let cases: [(String, String.Encoding)] = [("ISO-8859-1", .isoLatin1), ("latin1", .isoLatin1), ("windows-1252", .windowsCP1252), ("cp1252", .windowsCP1252), ("US-ASCII", .isoLatin1)]
        for (name, encoding) in cases {
            var bytes = Array(Self.document(declaring: name).utf8)
            if let encoded = Self.document(declaring: name).data(using: encoding, allowLossyConversion: false) {
                bytes = [UInt8](encoded)
            } else {
                // Latin-1 has no € or curly quotes: keep to the characters it has.
                bytes = [UInt8](Self.document(declaring: name).replacingOccurrences(of: "€", with: "E").replacingOccurrences(of: "‘", with: "'").replacingOccurrences(of: "’", with: "'").replacingOccurrences(of: "Ω", with: "O").data(using: encoding) ?? Data())
            }
            #expect(XMLReaderCoreFoundationTests.ours(bytes) == XMLReaderCoreFoundationTests.coreFoundation(bytes), "\(name)")
            #expect(try XMLPropertyListReader.read(bytes).value["n"] == 5, "\(name)")
        }
        // Every byte of the upper half, one string each.
        for name in ["ISO-8859-1", "windows-1252", "ISO-8859-15"] {
            for byte in UInt8(0x80)...UInt8(0xFF) {
                let bytes = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?><string>".utf8) + [byte] + Array("</string>".utf8)
                #expect(XMLReaderCoreFoundationTests.ours(bytes) == XMLReaderCoreFoundationTests.coreFoundation(bytes), "\(name) byte \(byte)")
            }
        }
    }

    /// The declaration is only honoured at the very start, and only its first `encoding=`.
    @Test func declarationScanning() throws {
        for text in [" <?xml version=\"1.0\" encoding=\"bogus\"?><true/>", "<?xml version=\"1.0\"?><?xml encoding=\"bogus\"?><true/>", "<?xml version=\"1.0\" encoding = \"bogus\"?><true/>", "<?xml version=\"1.0\" encoding=utf-8?><true/>"] {
            #expect(try XMLPropertyListReader.read(Array(text.utf8)).value == true, "\(text)")
        }
        #expect(throws: PropertyListError.self) { try XMLPropertyListReader.read(Array("<?xml version=\"1.0\" encoding=\"bogus\"?><true/>".utf8)) }
        #expect(throws: PropertyListError.self) { try XMLPropertyListReader.read(Array("<?xml version=\"1.0\" encoding=\"\"?><true/>".utf8)) }
    }
}
