#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// `keyedarchive json`: an archive's object graph as JSON, linear in the archive's size.
///
/// ```json
/// {
///   "$archiver": "NSKeyedArchiver",
///   "$version": 100000,
///   "$classes": {"5": {"$classname": "Glider", "$classes": ["Glider", "Airplane", "NSObject"]}},
///   "$top": {"root": {"$id": 1, "$class": "Pilot", "fields": {"name": "Amelia", "owner": {"$ref": 1}}}}
/// }
/// ```
///
/// Objects print in full where first reached (depth-first from `$top`) with their UID as `$id`;
/// later references are `{"$ref": UID}`. Scalars follow the plist JSON conventions
/// (Docs/PlistJSON.md). The full contract is in Docs/KeyedArchiveFormat.md.
public enum ArchiveJSONRenderer {
    /// JSON for an archive read from binary or XML property-list bytes.
    /// - Throws: ``ArchiveError`` when the bytes are not a valid keyed archive.
    package static func render(_ bytes: [UInt8], options: ArchiveReadingOptions = .default) throws(ArchiveError) -> String {
        try render(try ArchiveGraph(bytes: bytes, options: options), budget: options.maximumExpansionCount)
    }

    /// Like `render(_ graph:)`, but stops with ``ArchiveError/Code/budgetExceeded`` once
    /// it would produce more than `budget` nodes (objects, values and back-reference markers):
    /// the expansion budget of ``ArchiveReadingOptions/maximumExpansionCount``.
    package static func render(_ graph: ArchiveGraph, budget: Int) throws(ArchiveError) -> String {
        guard let text = render(graph, nodeBudget: budget) else {
            throw StreamedRendering.budgetError(budget)
        }
        return text
    }

    /// JSON for an already validated graph; the text ends with a newline.
    public static func render(_ graph: ArchiveGraph) -> String {
        // Without a budget the walk always finishes.
        render(graph, nodeBudget: .max) ?? ""
    }

    /// JSON for an archive, handed to `output` in chunks of about 64 KiB as it is made, so that
    /// memory stays the graph's whatever the size of the text (the command-line tool prints
    /// this way).
    /// - Throws: ``ArchiveError`` when the bytes are not a valid keyed archive, before any
    ///   output; ``ArchiveError/Code/budgetExceeded`` past `maximumExpansionCount`, after the
    ///   text made until then.
    package static func render(_ bytes: [UInt8], options: ArchiveReadingOptions = .default, output: (ArraySlice<UInt8>) -> Void) throws(ArchiveError) {
        try StreamedRendering.run(bytes, options: options, output: output) { (graph, budget, sink: inout JSONSink) in render(graph, nodeBudget: budget, into: &sink) }
    }

    /// JSON for an archive held in `data`, read in place (see ``render(_:options:)-([UInt8],_)``).
    package static func render(_ data: Data, options: ArchiveReadingOptions = .default) throws(ArchiveError) -> String {
        try render(try ArchiveGraph(data: data, options: options), budget: options.maximumExpansionCount)
    }

    /// JSON for an archive held in `data`, handed to `output` in chunks as it is made (see
    /// ``render(_:options:output:)-([UInt8],_,_)``).
    package static func render(_ data: Data, options: ArchiveReadingOptions = .default, output: (ArraySlice<UInt8>) -> Void) throws(ArchiveError) {
        try StreamedRendering.run(try ArchiveGraph(data: data, options: options), options: options, output: output) { (graph, budget, sink: inout JSONSink) in render(graph, nodeBudget: budget, into: &sink) }
    }

    /// JSON for an already validated graph as `rendering` asks (Foundation's values as values,
    /// plain numbers), stopping with ``ArchiveError/Code/budgetExceeded`` past `budget` nodes.
    /// `options` bounds the decoding of Foundation's values.
    public static func render(_ graph: ArchiveGraph, rendering: ArchiveRenderingOptions, options: ArchiveReadingOptions = .default,
                              budget: Int = .max) throws(ArchiveError) -> String {
        var sink = JSONSink()
        guard render(graph, nodeBudget: budget, rendering: rendering, options: options, into: &sink) else {
            throw StreamedRendering.budgetError(budget)
        }
        return String(decoding: sink.out.bytes, as: UTF8.self)
    }

    /// JSON for an archive as `rendering` asks, handed to `output` in chunks as it is made (see
    /// ``render(_:options:output:)-([UInt8],_,_)``); what `keyedarchive json` prints.
    package static func render(_ bytes: [UInt8], options: ArchiveReadingOptions = .default, rendering: ArchiveRenderingOptions,
                              output: (ArraySlice<UInt8>) -> Void) throws(ArchiveError) {
        try render(try ArchiveGraph(bytes: bytes, options: options), rendering: rendering, options: options, output: output)
    }

    /// JSON for an already validated graph as `rendering` asks, handed to `output` in chunks as
    /// it is made: a caller that built the graph can let the archive's bytes go first.
    /// - Throws: ``ArchiveError/Code/budgetExceeded`` past `maximumExpansionCount`, after the
    ///   text made until then.
    public static func render(_ graph: ArchiveGraph, rendering: ArchiveRenderingOptions, options: ArchiveReadingOptions = .default,
                              output: (ArraySlice<UInt8>) -> Void) throws(ArchiveError) {
        try StreamedRendering.run(graph, options: options, output: output) { (graph, budget, sink: inout JSONSink) in
            render(graph, nodeBudget: budget, rendering: rendering, options: options, into: &sink)
        }
    }

    private static func render(_ graph: ArchiveGraph, nodeBudget: Int) -> String? {
        var sink = JSONSink()
        guard render(graph, nodeBudget: nodeBudget, into: &sink) else { return nil }
        return String(decoding: sink.out.bytes, as: UTF8.self)
    }

    private static func render(_ graph: ArchiveGraph, nodeBudget: Int, rendering: ArchiveRenderingOptions = .raw,
                               options: ArchiveReadingOptions = .default, into sink: inout JSONSink) -> Bool {
        sink.plainNumbers = rendering.plainNumbers
        sink.out.append("{\n  \"$archiver\": ")
        sink.out.appendJSONString(graph.archiver)
        sink.out.append(",\n  \"$version\": \(graph.version),\n  \"$classes\": {")
        var first = true
        for (index, object) in graph.objects.enumerated() {
            guard case .classDescriptor(let descriptor) = object else { continue }
            sink.out.append(first ? "\n    " : ",\n    ")
            first = false
            sink.out.append("\"\(index)\": {\"$classname\": ")
            sink.out.appendJSONString(descriptor.name)
            if descriptor.storesClasses {
                sink.out.append(", \"$classes\": ")
                sink.appendStringArray(descriptor.classes)
            }
            if let hints = descriptor.hints {
                sink.out.append(", \"$classhints\": ")
                sink.appendStringArray(hints)
            }
            sink.out.append("}")
        }
        sink.out.append(first ? "},\n  \"$top\": {" : "\n  },\n  \"$top\": {")
        sink.needsComma = [false]
        let interpreter = rendering.foundationValues ? ArchiveFoundationInterpreter(graph: graph, options: options) : nil
        guard ArchiveGraphWalker(graph: graph, interpreter: interpreter).walk(into: &sink, budget: nodeBudget) else { return false }
        sink.out.append(graph.top.isEmpty ? "}\n}\n" : "\n  }\n}\n")
        return true
    }
}

private struct JSONSink: RenderingSink {
    var out = RenderBuffer()
    /// Finite reals as plain JSON numbers (``ArchiveRenderingOptions/plainNumbers``).
    var plainNumbers = false

    mutating func stepFinished() { out.flushIfFull() }
    /// One flag per open JSON container: whether a member was already written in it.
    var needsComma: [Bool] = []
    /// Whether each open container is an instance (two closing braces: `fields` and the object).
    var base: Int { 2 }

    mutating func appendStringArray(_ strings: [String]) {
        out.append("[")
        for (position, string) in strings.enumerated() {
            if position > 0 { out.append(", ") }
            out.appendJSONString(string)
        }
        out.append("]")
    }

    /// Separator, indentation and member name for the next value in the current container.
    private mutating func member(_ label: ArchiveWalkLabel, depth: Int) {
        if let last = needsComma.last, last { out.append(",") }
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = true }
        out.append("\n")
        out.indent(depth + base)
        if case .key(let key) = label {
            out.appendJSONString(key)
            out.append(": ")
        }
    }

    mutating func beginInstance(_ label: ArchiveWalkLabel, uid: Int, className: String, classUID: Int, depth: Int, isEmpty: Bool) {
        member(label, depth: depth)
        out.append("{\"$id\": \(uid), \"$class\": ")
        out.appendJSONString(className)
        out.append(isEmpty ? ", \"fields\": {}}" : ", \"fields\": {")
        if !isEmpty { needsComma.append(false) }
    }

    mutating func endInstance(depth: Int, isEmpty: Bool) {
        guard !isEmpty else { return }
        needsComma.removeLast()
        out.append("\n")
        out.indent(depth + base)
        out.append("}}")
    }

    mutating func beginContainer(_ label: ArchiveWalkLabel, kind: ArchiveWalkContainer, uid: Int?, depth: Int, isEmpty: Bool) {
        member(label, depth: depth)
        // Plain dictionaries and sets are wrapped so that they can never read as a marker object.
        var opening = ""
        if let uid { opening += "{\"$id\": \(uid), " } else if kind != .array { opening += "{" }
        switch kind {
        case .array: opening += uid == nil ? "[" : "\"$array\": ["
        case .set: opening += "\"$set\": ["
        case .dictionary: opening += "\"$dict\": {"
        }
        out.append(opening)
        if isEmpty {
            out.append(closing(kind: kind, uid: uid != nil))
        } else {
            needsComma.append(false)
        }
        wrapped.append(uid != nil)
    }

    /// Whether each open plain container carries an `$id` wrapper (so needs one more brace).
    var wrapped: [Bool] = []

    private func closing(kind: ArchiveWalkContainer, uid: Bool) -> String {
        let inner = kind == .dictionary ? "}" : "]"
        let outer = (uid || kind != .array) ? "}" : ""
        return inner + outer
    }

    mutating func endContainer(kind: ArchiveWalkContainer, depth: Int, isEmpty: Bool) {
        let hasID = wrapped.popLast() ?? false
        guard !isEmpty else { return }
        needsComma.removeLast()
        out.append("\n")
        out.indent(depth + base)
        out.append(closing(kind: kind, uid: hasID))
    }

    mutating func scalar(_ label: ArchiveWalkLabel, _ value: ArchiveWalkScalar, uid: Int?, depth: Int) {
        member(label, depth: depth)
        if let uid {
            out.append("{\"$id\": \(uid), ")
            switch value {
            case .string(let string):
                out.append("\"$string\": ")
                out.appendJSONString(string)
            case .data(let bytes):
                out.append("\"$data\": \"")
                out.appendBase64(bytes)
                out.append("\"")
            case .uid(let target):
                out.append("\"$uid\": \(target)")
            default:
                out.append("\"$value\": ")
                appendScalar(value)
            }
            out.append("}")
            return
        }
        appendScalar(value)
    }

    private mutating func appendScalar(_ value: ArchiveWalkScalar) {
        switch value {
        case .null: out.append("null")
        case .string(let string): out.appendJSONString(string)
        case .integer(let integer): out.append(integer.description)
        case .real(let real):
            let double = real.doubleValue
            if double.isFinite, plainNumbers {
                out.append(RenderBuffer.realText(double))
            } else if double.isFinite {
                out.append("{\"$real\": \(RenderBuffer.realText(double))}")
            } else {
                out.append("{\"$real\": \"\(RenderBuffer.realText(double))\"}")
            }
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .data(let bytes):
            out.append("{\"$data\": \"")
            out.appendBase64(bytes)
            out.append("\"}")
        case .date(let date):
            let seconds = date.secondsSinceReferenceDate
            if seconds.isFinite {
                out.append("{\"$date\": \(RenderBuffer.realText(seconds))}")
            } else {
                out.append("{\"$date\": \"\(RenderBuffer.realText(seconds))\"}")
            }
        case .uid(let target): out.append("{\"$uid\": \(target)}")
        }
    }

    mutating func reference(_ label: ArchiveWalkLabel, uid: Int, summary: String, depth: Int) {
        member(label, depth: depth)
        out.append("{\"$ref\": \(uid)}")
    }

    mutating func beginFoundationContainer(_ label: ArchiveWalkLabel, kind: ArchiveWalkContainer, uid: Int, className: String, depth: Int, isEmpty: Bool) {
        member(label, depth: depth)
        out.append("{\"$id\": \(uid), \"$class\": ")
        out.appendJSONString(className)
        switch kind {
        case .array: out.append(", \"$array\": [")
        case .set: out.append(", \"$set\": [")
        case .dictionary: out.append(", \"$dict\": {")
        }
        if isEmpty {
            out.append(closing(kind: kind, uid: true))
        } else {
            needsComma.append(false)
        }
        wrapped.append(true)
    }

    mutating func foundationText(_ label: ArchiveWalkLabel, kind: String, text: String, uid: Int?, depth: Int) {
        member(label, depth: depth)
        out.append(uid.map { "{\"$id\": \($0), \"$" } ?? "{\"$")
        out.append(kind)
        out.append("\": ")
        out.appendJSONString(text)
        out.append("}")
    }

    mutating func beginNotedInstance(_ label: ArchiveWalkLabel, uid: Int, className: String, classUID: Int, depth: Int, isEmpty: Bool, note: String) {
        member(label, depth: depth)
        out.append("{\"$id\": \(uid), \"$class\": ")
        out.appendJSONString(className)
        out.append(", \"$note\": ")
        out.appendJSONString("shown as stored: " + note)
        out.append(isEmpty ? ", \"fields\": {}}" : ", \"fields\": {")
        if !isEmpty { needsComma.append(false) }
    }
}
