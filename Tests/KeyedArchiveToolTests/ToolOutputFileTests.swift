import Foundation
import Testing

/// `convert -o OUT`: the output is written to a new file beside OUT and renamed over it only
/// when complete, so a refused or failed conversion leaves OUT as it was and nothing behind;
/// what `-o` names is otherwise treated as before (created or replaced, links followed, devices
/// and hard-linked files written in place). And the XML streamed from a binary file is the XML
/// of the whole document, on standard output or in the file.
@Suite struct ToolOutputFileTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The names in `directory`, sorted (a file left behind shows here).
    static func listing(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// A binary property list by Foundation's writer.
    static func binary(_ value: Any) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    }

    /// A binary file whose last value XML cannot hold (a set, after a long array): the usual
    /// path refuses it, naming the set.
    static let refusedForXML: Data = {
        // [ "x" × 3000 ..., set{1} ]: objects 0 (array), 1 ("x"), 2 (set), 3 (1).
        var array: [UInt8] = [0xAF, 0x11, 0x0B, 0xB9]
        for _ in 0..<3000 { array += [0x00, 0x01] }
        array += [0x00, 0x02]
        let objects = [array, [0x51, 0x78], [0xC1, 0x00, 0x03], [0x10, 0x01]]
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        func big(_ value: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * (7 - $0))) } }
        bytes += [0, 0, 0, 0, 0, 0, 2, 2] + big(objects.count) + big(0) + big(table)
        return Data(bytes)
    }()

    @Test func aRefusedConversionLeavesTheFileAsItWasAndNothingBehind() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out.xml")
        try Data("precious".utf8).write(to: out)
        let run = try ToolEndToEndTests.run(["convert", "-", "--to", "xml", "-o", out.path], input: Self.refusedForXML)
        #expect(run.status == 1)
        #expect(run.error.contains("a set has no XML property-list form"), "\(run.error)")
        #expect(try Data(contentsOf: out) == Data("precious".utf8))
        #expect(try Self.listing(directory) == ["out.xml"])
        // No file made when there was none.
        let fresh = directory.appendingPathComponent("fresh.xml")
        let again = try ToolEndToEndTests.run(["convert", "-", "--to", "xml", "-o", fresh.path], input: Self.refusedForXML)
        #expect(again.status == 1)
        #expect(try Self.listing(directory) == ["out.xml"])
        // Nor on standard output.
        let printed = try ToolEndToEndTests.run(["convert", "-", "--to", "xml"], input: Self.refusedForXML)
        #expect(printed.status == 1 && printed.output.isEmpty)
        // A faulty input, to binary, the same.
        let cut = try ToolEndToEndTests.run(["convert", "-", "--to", "binary", "-o", out.path], input: try Self.binary([1, 2, 3]).prefix(20))
        #expect(cut.status == 1)
        #expect(try Data(contentsOf: out) == Data("precious".utf8))
        #expect(try Self.listing(directory) == ["out.xml"])
    }

    /// A write that fails part way (here past a file-size limit, the signal ignored so that
    /// the write reports EFBIG) leaves `-o`'s file as it was, and the partial output is removed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sh")))
    func aWriteFailingPartWayLeavesTheFileAsItWas() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.plist")
        try Self.binary((0..<20_000).map { "value number \($0)" }).write(to: input)
        for format in ["xml", "binary"] {
            let out = directory.appendingPathComponent("out")
            try Data("precious".utf8).write(to: out)
            let script = "trap '' XFSZ; ulimit -f 64; exec \"$0\" convert \"$1\" --to \(format) -o \"$2\""
            let run = try ToolEndToEndTests.run(["-c", script, ToolEndToEndTests.executable.path, input.path, out.path], executable: URL(fileURLWithPath: "/bin/sh"))
            #expect(run.status == 1, "\(format): \(run.error)")
            #expect(run.error.contains("cannot write: File too large"), "\(format): \(run.error)")
            #expect(try Data(contentsOf: out) == Data("precious".utf8), "\(format)")
            #expect(try Self.listing(directory) == ["in.plist", "out"], "\(format)")
        }
    }

    @Test func aFinishedConversionReplacesTheFileKeepingItsMode() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.plist")
        try Self.binary(["name": "Amelia", "hours": 1234, "ratio": 0.5]).write(to: input)
        let out = directory.appendingPathComponent("out.xml")
        try Data("old contents, longer than the new ones will be? no, but here all the same".utf8).write(to: out)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: out.path)
        let run = try ToolEndToEndTests.run(["convert", input.path, "--to", "xml", "-o", out.path])
        #expect(run.status == 0, "\(run.error)")
        let written = try Data(contentsOf: out)
        let printed = try ToolEndToEndTests.run(["convert", input.path, "--to", "xml"])
        #expect(written == printed.output)
        let back = try PropertyListSerialization.propertyList(from: written, options: [], format: nil) as? [String: Any]
        #expect(back?["name"] as? String == "Amelia" && back?["hours"] as? Int == 1234)
        #expect((try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int) == 0o640)
        #expect(try Self.listing(directory) == ["in.plist", "out.xml"])
        // A new file gets the usual mode for the umask (0644 under the usual 022), as before.
        let fresh = directory.appendingPathComponent("fresh.plist")
        #expect(try ToolEndToEndTests.run(["convert", out.path, "--to", "binary", "-o", fresh.path]).status == 0)
        let mask = umask(0)
        umask(mask)
        #expect((try FileManager.default.attributesOfItem(atPath: fresh.path)[.posixPermissions] as? Int) == 0o666 & ~Int(mask))
        // -o may name the input itself.
        #expect(try ToolEndToEndTests.run(["convert", fresh.path, "--to", "xml", "-o", fresh.path]).status == 0)
        #expect(try Data(contentsOf: fresh) == written)
    }

    @Test func linksDevicesAndHardLinksAreWrittenAsBefore() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.plist")
        try Self.binary(["a": [1, 2, 3]]).write(to: input)
        let expected = try ToolEndToEndTests.run(["convert", input.path, "--to", "xml"]).output
        // A symbolic link: the file it names is replaced, the link stays.
        let real = directory.appendingPathComponent("real.xml")
        try Data("old".utf8).write(to: real)
        let link = directory.appendingPathComponent("link.xml")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.xml")
        #expect(try ToolEndToEndTests.run(["convert", input.path, "--to", "xml", "-o", link.path]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.xml")
        #expect(try Data(contentsOf: real) == expected)
        // A hard-linked file is written in place: both names see the new contents.
        let first = directory.appendingPathComponent("first.xml"), second = directory.appendingPathComponent("second.xml")
        try Data("old".utf8).write(to: first)
        try FileManager.default.linkItem(at: first, to: second)
        #expect(try ToolEndToEndTests.run(["convert", input.path, "--to", "xml", "-o", first.path]).status == 0)
        #expect(try Data(contentsOf: second) == expected)
        #expect(try Self.listing(directory) == ["first.xml", "in.plist", "link.xml", "real.xml", "second.xml"])
        // A device.
        #expect(try ToolEndToEndTests.run(["convert", input.path, "--to", "xml", "-o", "/dev/null"]).status == 0)
        // A directory that does not exist, and a directory as OUT: named as before.
        let missing = try ToolEndToEndTests.run(["convert", input.path, "--to", "xml", "-o", directory.appendingPathComponent("no/out.xml").path])
        #expect(missing.status == 1 && missing.error.contains("cannot write: No such file or directory"), "\(missing.error)")
        let folder = try ToolEndToEndTests.run(["convert", input.path, "--to", "xml", "-o", directory.path])
        #expect(folder.status == 1 && folder.error.contains("cannot write: Is a directory"), "\(folder.error)")
        #expect(try Self.listing(directory) == ["first.xml", "in.plist", "link.xml", "real.xml", "second.xml"])
    }

    /// A file the user may not write is refused as before (root may write any file, so the
    /// check needs another user).
    @Test(.enabled(if: geteuid() != 0, "root may write a read-only file"))
    func aReadOnlyFileIsRefusedAsBefore() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("locked.xml")
        try Data("locked".utf8).write(to: out)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: out.path)
        let run = try ToolEndToEndTests.run(["convert", "-", "--to", "xml", "-o", out.path], input: try Self.binary([1]))
        #expect(run.status == 1 && run.error.contains("Permission denied"), "\(run.error)")
        #expect(try Data(contentsOf: out) == Data("locked".utf8))
    }

    /// The XML `convert` streams from a binary file is the whole-document writer's (through
    /// Foundation's binary reading and the tool's XML → binary, which reproduce it) and reads
    /// back in Foundation as the binary did; a lossy value is named once.
    @Test func streamedXMLReadsBackAsTheBinaryDid() throws {
        let value: [String: Any] = ["pilots": (0..<500).map { ["name": "Pilot \($0)", "hours": $0 * 7, "rating": Double($0) / 3, "tags": ["a", "b"]] as [String: Any] }, "when": Date(timeIntervalSinceReferenceDate: 86_400)]
        let binary = try Self.binary(value)
        let run = try ToolEndToEndTests.run(["convert", "-", "--to", "xml"], input: binary)
        #expect(run.status == 0 && run.error.isEmpty, "\(run.error)")
        let back = try PropertyListSerialization.propertyList(from: run.output, options: [], format: nil) as? NSDictionary
        let original = try PropertyListSerialization.propertyList(from: binary, options: [], format: nil) as? NSDictionary
        #expect(back != nil && back == original)
        // The XML, read and written again as XML, is a fixed point: the writer's own bytes.
        let rewritten = try ToolEndToEndTests.run(["convert", "-", "--to", "xml"], input: run.output)
        #expect(rewritten.output == run.output)
    }
}
