import Foundation
import Testing
@testable import PropertyList

/// The reader's entry points and what its errors report.
@Suite struct XMLReaderAPITests {
    static let sample = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n\t<key>a</key>\n\t<integer>1</integer>\n</dict>\n</plist>\n"

    /// Every entry point reads the same document; contiguous input is read in place.
    @Test func entryPoints() throws {
        let bytes = Array(Self.sample.utf8)
        let expected = XMLPropertyListDocument(value: ["a": 1], doctype: .modern)
        #expect(try XMLPropertyListReader.read(bytes) == expected)
        #expect(try bytes.withUnsafeBytes { try XMLPropertyListReader.read($0) } == expected)
        #expect(try XMLPropertyListReader.read(contentsOf: Data(bytes)) == expected)
        #expect(try XMLPropertyListReader.read(contentsOf: bytes[...]) == expected)
        #expect(try XMLPropertyListReader.read(contentsOf: Self.sample.utf8) == expected)
        #expect(try PropertyListCodec.decode(bytes) == expected.value)
    }

    /// Lines end at LF, CR or CRLF (as Core Foundation counts them); columns count bytes.
    @Test func errorLocations() {
        func location(_ text: String) -> PropertyListError.Location? {
            do {
                _ = try XMLPropertyListReader.read(Array(text.utf8))
                return nil
            } catch {
                return error.location
            }
        }
        #expect(location("<array>\n\t<integer>x</integer>\n</array>") == .line(2, column: 11))
        #expect(location("<array>\r\n\t<integer>x</integer>\r\n</array>") == .line(2, column: 11))
        #expect(location("<array>\r\r\t<integer>x</integer>") == .line(3, column: 11))
        #expect(location("<array>\n<set/>") == .line(2, column: 1))
        #expect(location("<array>\n\t<true/>\n") == .line(3, column: 1))
        #expect(location("<string>é\u{01}&bogus;</string>") == .line(1, column: 12))
    }

    /// Empty input, and input that is only a byte-order mark or white space.
    @Test func nothingToRead() {
        for bytes: [UInt8] in [[], [0xEF, 0xBB, 0xBF], Array("  \n\t".utf8), Array("<".utf8)] {
            #expect(throws: PropertyListError.self) { try XMLPropertyListReader.read(bytes) }
        }
    }
}
