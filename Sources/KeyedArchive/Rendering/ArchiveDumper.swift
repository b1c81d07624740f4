#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// `keyedarchive dump`: an indented, readable tree of an archive's object graph.
///
/// Each object is printed in full the first time it is reached (depth-first from `$top`, fields
/// in file order) and labelled with its UID (`#4 Glider { … }`); every later reference, and every
/// reference back into an object still being printed (a cycle), is a marker `-> #4 Glider`. So
/// sharing and cycles are visible and the output stays linear in the archive's size. The format
/// is described in Docs/KeyedArchiveFormat.md.
public enum ArchiveDumper {
    /// The tree of an archive read from binary or XML property-list bytes.
    /// - Throws: ``ArchiveError`` when the bytes are not a valid keyed archive.
    package static func dump(_ bytes: [UInt8], options: ArchiveReadingOptions = .default) throws(ArchiveError) -> String {
        try dump(try ArchiveGraph(bytes: bytes, options: options), budget: options.maximumExpansionCount)
    }

    /// Like `dump(_ graph:)`, but stops with ``ArchiveError/Code/budgetExceeded`` once
    /// it would produce more than `budget` nodes (objects, values and back-reference markers):
    /// the expansion budget of ``ArchiveReadingOptions/maximumExpansionCount``.
    package static func dump(_ graph: ArchiveGraph, budget: Int) throws(ArchiveError) -> String {
        guard let text = dump(graph, nodeBudget: budget) else {
            throw StreamedRendering.budgetError(budget)
        }
        return text
    }

    /// The tree of an already validated graph.
    public static func dump(_ graph: ArchiveGraph) -> String {
        // Without a budget the walk always finishes.
        dump(graph, nodeBudget: .max) ?? ""
    }

    /// The tree of an archive, handed to `output` in chunks of about 64 KiB as it is made, so
    /// that memory stays the graph's whatever the size of the text (the command-line tool
    /// prints this way).
    /// - Throws: ``ArchiveError`` when the bytes are not a valid keyed archive, before any
    ///   output; ``ArchiveError/Code/budgetExceeded`` past `maximumExpansionCount`, after the
    ///   text made until then.
    package static func dump(_ bytes: [UInt8], options: ArchiveReadingOptions = .default, output: (ArraySlice<UInt8>) -> Void) throws(ArchiveError) {
        try StreamedRendering.run(bytes, options: options, output: output) { (graph, budget, sink: inout DumpSink) in render(graph, nodeBudget: budget, into: &sink) }
    }

    /// The tree of an archive held in `data`, read in place (see ``dump(_:options:)-([UInt8],_)``).
    package static func dump(_ data: Data, options: ArchiveReadingOptions = .default) throws(ArchiveError) -> String {
        try dump(try ArchiveGraph(data: data, options: options), budget: options.maximumExpansionCount)
    }

    /// The tree of an archive held in `data`, handed to `output` in chunks as it is made (see
    /// ``dump(_:options:output:)-([UInt8],_,_)``).
    package static func dump(_ data: Data, options: ArchiveReadingOptions = .default, output: (ArraySlice<UInt8>) -> Void) throws(ArchiveError) {
        try StreamedRendering.run(try ArchiveGraph(data: data, options: options), options: options, output: output) { (graph, budget, sink: inout DumpSink) in render(graph, nodeBudget: budget, into: &sink) }
    }

    /// The tree of an already validated graph as `rendering` asks (Foundation's values as
    /// values, the legend), stopping with ``ArchiveError/Code/budgetExceeded`` past `budget`
    /// nodes. `options` bounds the decoding of Foundation's values.
    public static func dump(_ graph: ArchiveGraph, rendering: ArchiveRenderingOptions, options: ArchiveReadingOptions = .default,
                            budget: Int = .max) throws(ArchiveError) -> String {
        var sink = DumpSink()
        guard render(graph, nodeBudget: budget, rendering: rendering, options: options, into: &sink) else {
            throw StreamedRendering.budgetError(budget)
        }
        return String(decoding: sink.out.bytes, as: UTF8.self)
    }

    /// The tree of an archive as `rendering` asks, handed to `output` in chunks as it is made
    /// (see ``dump(_:options:output:)-([UInt8],_,_)``); what `keyedarchive dump` prints.
    package static func dump(_ bytes: [UInt8], options: ArchiveReadingOptions = .default, rendering: ArchiveRenderingOptions,
                            output: (ArraySlice<UInt8>) -> Void) throws(ArchiveError) {
        try dump(try ArchiveGraph(bytes: bytes, options: options), rendering: rendering, options: options, output: output)
    }

    /// The tree of an already validated graph as `rendering` asks, handed to `output` in chunks
    /// as it is made: a caller that built the graph can let the archive's bytes go first.
    /// - Throws: ``ArchiveError/Code/budgetExceeded`` past `maximumExpansionCount`, after the
    ///   text made until then.
    public static func dump(_ graph: ArchiveGraph, rendering: ArchiveRenderingOptions, options: ArchiveReadingOptions = .default,
                            output: (ArraySlice<UInt8>) -> Void) throws(ArchiveError) {
        try StreamedRendering.run(graph, options: options, output: output) { (graph, budget, sink: inout DumpSink) in
            render(graph, nodeBudget: budget, rendering: rendering, options: options, into: &sink)
        }
    }

    private static func dump(_ graph: ArchiveGraph, nodeBudget: Int) -> String? {
        var sink = DumpSink()
        guard render(graph, nodeBudget: nodeBudget, into: &sink) else { return nil }
        return String(decoding: sink.out.bytes, as: UTF8.self)
    }

    private static func render(_ graph: ArchiveGraph, nodeBudget: Int, rendering: ArchiveRenderingOptions = .raw,
                               options: ArchiveReadingOptions = .default, into sink: inout DumpSink) -> Bool {
        // Any archiver's name is read (SceneKit's SCNKeyedArchiver): quoted unless plain.
        DumpSink.appendName(graph.archiver, to: &sink.out)
        sink.out.append(", version \(graph.version), \(graph.objects.count) objects\n")
        if rendering.legend {
            sink.out.append("(#N: object N of $objects, shown in full where first reached; -> #N: a later reference to it, or one back into it (a cycle))\n")
        }
        var classLines = RenderBuffer()
        var classCount = 0
        for (index, object) in graph.objects.enumerated() {
            guard case .classDescriptor(let descriptor) = object else { continue }
            classCount += 1
            classLines.append("  #\(index) ")
            DumpSink.appendName(descriptor.name, to: &classLines)
            let chainMatches = descriptor.classes.first.map { $0.isExactlyEqual(to: descriptor.name) } ?? false
            if !descriptor.storesClasses {
                classLines.append(" (no $classes)")
            } else if chainMatches {
                for superclass in descriptor.classes.dropFirst() {
                    classLines.append(" < ")
                    DumpSink.appendName(superclass, to: &classLines)
                }
            } else {
                classLines.append(" ($classes: ")
                for (position, name) in descriptor.classes.enumerated() {
                    if position > 0 { classLines.append(" < ") }
                    DumpSink.appendName(name, to: &classLines)
                }
                classLines.append(")")
            }
            if let hints = descriptor.hints {
                classLines.append(" ($classhints: ")
                for (position, name) in hints.enumerated() {
                    if position > 0 { classLines.append(", ") }
                    DumpSink.appendName(name, to: &classLines)
                }
                classLines.append(")")
            }
            classLines.append("\n")
        }
        sink.out.append("classes (\(classCount)):\n")
        sink.out.bytes.append(contentsOf: classLines.bytes)
        sink.out.append("top:\n")
        let interpreter = rendering.foundationValues ? ArchiveFoundationInterpreter(graph: graph, options: options) : nil
        return ArchiveGraphWalker(graph: graph, interpreter: interpreter).walk(into: &sink, budget: nodeBudget)
    }
}

/// The dump's text; its value rendering is shared with the graph page and DOT (``ArchiveGraphModel``).
struct DumpSink: RenderingSink {
    var out = RenderBuffer()

    mutating func stepFinished() { out.flushIfFull() }
    /// Bytes of data shown before the rest is elided.
    static let dataPreview = 32

    static func appendName(_ name: String, to buffer: inout RenderBuffer) {
        if isPlain(name) {
            buffer.append(name)
        } else {
            buffer.appendJSONString(name)
        }
    }

    /// Keys and class names print bare when they cannot be misread; otherwise quoted.
    static func isPlain(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        for byte in text.utf8 {
            switch byte {
            case 0x21...0x7E where byte != UInt8(ascii: ":") && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "{") && byte != UInt8(ascii: "["): continue
            default: return false
            }
        }
        return true
    }

    private mutating func line(_ label: ArchiveWalkLabel, depth: Int) {
        out.indent(depth + 1)
        switch label {
        case .none: break
        case .key(let key):
            Self.appendName(key, to: &out)
            out.append(": ")
        case .index(let index):
            out.append("[\(index)]: ")
        }
    }

    mutating func beginInstance(_ label: ArchiveWalkLabel, uid: Int, className: String, classUID: Int, depth: Int, isEmpty: Bool) {
        line(label, depth: depth)
        out.append("#\(uid) ")
        Self.appendName(className, to: &out)
        out.append(isEmpty ? " {}\n" : " {\n")
    }

    mutating func endInstance(depth: Int, isEmpty: Bool) {
        guard !isEmpty else { return }
        out.indent(depth + 1)
        out.append("}\n")
    }

    mutating func beginContainer(_ label: ArchiveWalkLabel, kind: ArchiveWalkContainer, uid: Int?, depth: Int, isEmpty: Bool) {
        line(label, depth: depth)
        if let uid { out.append("#\(uid) ") }
        switch kind {
        case .array: out.append(isEmpty ? "[]\n" : "[\n")
        case .set: out.append(isEmpty ? "set []\n" : "set [\n")
        case .dictionary: out.append(isEmpty ? "{}\n" : "{\n")
        }
    }

    mutating func endContainer(kind: ArchiveWalkContainer, depth: Int, isEmpty: Bool) {
        guard !isEmpty else { return }
        out.indent(depth + 1)
        out.append(kind == .dictionary ? "}\n" : "]\n")
    }

    mutating func scalar(_ label: ArchiveWalkLabel, _ value: ArchiveWalkScalar, uid: Int?, depth: Int) {
        line(label, depth: depth)
        if let uid { out.append("#\(uid) ") }
        Self.appendScalar(value, to: &out)
        out.append("\n")
    }

    /// A leaf value as the dump shows it (a string quoted and escaped, data as hex, a date in ISO 8601).
    static func appendScalar(_ value: ArchiveWalkScalar, to out: inout RenderBuffer) {
        switch value {
        case .null: out.append("nil")
        case .string(let string): out.appendJSONString(string)
        case .integer(let integer): out.append(integer.description)
        case .real(let real):
            out.append(RenderBuffer.realText(real.doubleValue))
            if real.is32Bit { out.append(" (float)") }
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .data(let bytes):
            out.append("<\(bytes.count) bytes")
            if !bytes.isEmpty {
                out.append(": ")
                out.appendHex(bytes, limit: Self.dataPreview)
                if bytes.count > Self.dataPreview { out.append(" ...") }
            }
            out.append(">")
        case .date(let date):
            if let text = RenderBuffer.isoDate(date) {
                out.append("date \(text)")
            } else {
                out.append("date \(RenderBuffer.realText(date.secondsSinceReferenceDate)) s since 2001")
            }
        case .uid(let value): out.append("CF$UID(\(value))")
        }
    }

    mutating func reference(_ label: ArchiveWalkLabel, uid: Int, summary: String, depth: Int) {
        line(label, depth: depth)
        out.append("-> #\(uid) ")
        Self.appendName(summary, to: &out)
        out.append("\n")
    }

    mutating func beginFoundationContainer(_ label: ArchiveWalkLabel, kind: ArchiveWalkContainer, uid: Int, className: String, depth: Int, isEmpty: Bool) {
        line(label, depth: depth)
        out.append("#\(uid) ")
        Self.appendName(className, to: &out)
        out.append(kind == .dictionary ? (isEmpty ? " {}\n" : " {\n") : (isEmpty ? " []\n" : " [\n"))
    }

    /// Kinds whose text this package makes from numbers alone, printed bare; the others (a URL,
    /// a unit's symbol) hold the archive's text and are quoted.
    private static let bareKinds: Set<String> = ["uuid", "indexes", "indexPath", "nsvalue", "decimal", "affineTransform"]

    mutating func foundationText(_ label: ArchiveWalkLabel, kind: String, text: String, uid: Int?, depth: Int) {
        line(label, depth: depth)
        if let uid { out.append("#\(uid) ") }
        Self.appendFoundationText(kind: kind, text: text, to: &out)
        out.append("\n")
    }

    /// A Foundation value as the dump shows it: its kind, then its text (bare or quoted).
    static func appendFoundationText(kind: String, text: String, to out: inout RenderBuffer) {
        out.append(kind)
        out.append(" ")
        if bareKinds.contains(kind) { out.append(text) } else { out.appendJSONString(text) }
    }

    mutating func beginNotedInstance(_ label: ArchiveWalkLabel, uid: Int, className: String, classUID: Int, depth: Int, isEmpty: Bool, note: String) {
        line(label, depth: depth)
        out.append("#\(uid) ")
        Self.appendName(className, to: &out)
        out.append(isEmpty ? " {}" : " {")
        out.append("   (shown as stored: \(note.escapedForMessage))\n")
    }
}
