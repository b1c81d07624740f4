import PropertyList

/// What a renderer is told while the walker goes through the graph.
enum ArchiveWalkLabel {
    case none
    case key(String)
    case index(Int)
}

protocol ArchiveWalkSink {
    mutating func beginInstance(_ label: ArchiveWalkLabel, uid: Int, className: String, classUID: Int, depth: Int, isEmpty: Bool)
    mutating func endInstance(depth: Int, isEmpty: Bool)
    mutating func beginContainer(_ label: ArchiveWalkLabel, kind: ArchiveWalkContainer, uid: Int?, depth: Int, isEmpty: Bool)
    mutating func endContainer(kind: ArchiveWalkContainer, depth: Int, isEmpty: Bool)
    /// A leaf value; `uid` is set when it is a long string or data printed here for the first
    /// time (later references to it come as `reference`).
    mutating func scalar(_ label: ArchiveWalkLabel, _ value: ArchiveWalkScalar, uid: Int?, depth: Int)
    /// An object already printed (or being printed: a cycle).
    mutating func reference(_ label: ArchiveWalkLabel, uid: Int, summary: String, depth: Int)
    /// After each step: a streaming sink passes on what it has made.
    mutating func stepFinished()
    /// A Foundation collection shown as a list or as key → value pairs (``ArchiveRenderingOptions/foundationValues``).
    mutating func beginFoundationContainer(_ label: ArchiveWalkLabel, kind: ArchiveWalkContainer, uid: Int, className: String, depth: Int, isEmpty: Bool)
    /// A Foundation value shown by its kind and text (`uuid`, `url`, …); `uid` as for ``scalar(_:_:uid:depth:)``.
    mutating func foundationText(_ label: ArchiveWalkLabel, kind: String, text: String, uid: Int?, depth: Int)
    /// An object of a Foundation value class shown as stored, because it does not read as its value.
    mutating func beginNotedInstance(_ label: ArchiveWalkLabel, uid: Int, className: String, classUID: Int, depth: Int, isEmpty: Bool, note: String)
}

enum ArchiveWalkContainer {
    case array, set, dictionary
}

enum ArchiveWalkScalar {
    case null
    case string(String)
    case integer(PropertyListInteger)
    case real(PropertyListReal)
    case bool(Bool)
    case data([UInt8])
    case date(PropertyListDate)
    /// A UID inside a value that is not an archive reference (a bare UID entry in `$objects`).
    case uid(UInt64)
}

/// Walks an archive's object graph from `$top` depth-first, without recursion, expanding every
/// object once: the first reference prints it in full, every later reference (including a
/// cycle back to an object still being printed) is a short marker. Long strings and data are
/// printed once too. So the work and the output are linear in the archive's size.
struct ArchiveGraphWalker {
    /// Strings whose printed form takes up to about this many bytes are printed wherever they
    /// are referenced; longer ones once, then by marker.
    static let inlineStringLimit = 256

    /// Whether `string` prints within ``inlineStringLimit`` bytes, escapes counted: a control
    /// character prints as six (`\u0001`), and every byte of a non-ASCII character counts three,
    /// at least what the escaped ones take (a C1 control, two bytes, prints as six; a separator
    /// or bidirectional control, three bytes, as six). (Counted by raw length, a 256-character
    /// string of controls printed 1,536 bytes at every one of a million references: the trial's
    /// 1.5 GB dump of a 1 MB file.)
    static func printsInline(_ string: String) -> Bool {
        var cost = 0
        for byte in string.utf8 {
            switch byte {
            case 0x20..<0x7F: cost &+= byte == 0x22 || byte == 0x5C ? 2 : 1
            case 0x80...: cost &+= 3
            default: cost &+= 6
            }
            if cost > inlineStringLimit { return false }
        }
        return true
    }
    /// Data up to this many bytes likewise.
    static let inlineDataLimit = 64

    let graph: ArchiveGraph
    /// Set to show Foundation's value objects as values (``ArchiveRenderingOptions/foundationValues``).
    var interpreter: ArchiveFoundationInterpreter? = nil

    private enum Work {
        case value(ArchiveWalkLabel, PropertyListValue, depth: Int)
        case endInstance(depth: Int, isEmpty: Bool)
        case endContainer(ArchiveWalkContainer, depth: Int, isEmpty: Bool)
        case top(String, PropertyListValue)
    }

    /// Walks the graph; false when it stopped because it would produce more than `budget`
    /// nodes (the expansion budget: every step yields at most one node).
    @discardableResult
    func walk<Sink: ArchiveWalkSink>(into sink: inout Sink, budget: Int = .max) -> Bool {
        var expanded = [Bool](repeating: false, count: graph.objects.count)
        var stack: [Work] = graph.top.reversed().map { .top($0.key, $0.value) }
        var steps = 0
        while let work = stack.popLast() {
            steps += 1
            if steps > budget { return false }
            defer { sink.stepFinished() }
            switch work {
            case .top(let key, let value):
                stack.append(.value(.key(key), value, depth: 0))
            case .endInstance(let depth, let isEmpty):
                sink.endInstance(depth: depth, isEmpty: isEmpty)
            case .endContainer(let kind, let depth, let isEmpty):
                sink.endContainer(kind: kind, depth: depth, isEmpty: isEmpty)
            case .value(let label, let value, let depth):
                switch value {
                case .uid(let uid):
                    visitObject(uid, label: label, depth: depth, expanded: &expanded, stack: &stack, sink: &sink)
                case .string(let string): sink.scalar(label, .string(string), uid: nil, depth: depth)
                case .integer(let integer): sink.scalar(label, .integer(integer), uid: nil, depth: depth)
                case .real(let real): sink.scalar(label, .real(real), uid: nil, depth: depth)
                case .bool(let flag): sink.scalar(label, .bool(flag), uid: nil, depth: depth)
                case .data(let bytes): sink.scalar(label, .data(bytes), uid: nil, depth: depth)
                case .date(let date): sink.scalar(label, .date(date), uid: nil, depth: depth)
                case .array(let elements), .set(let elements):
                    let kind: ArchiveWalkContainer
                    if case .set = value { kind = .set } else { kind = .array }
                    pushContainer(label, kind: kind, uid: nil, elements: elements, depth: depth, stack: &stack, sink: &sink)
                case .dictionary(let dictionary):
                    pushDictionary(label, uid: nil, dictionary: dictionary, depth: depth, stack: &stack, sink: &sink)
                }
            }
        }
        return true
    }

    private func pushContainer<Sink: ArchiveWalkSink>(_ label: ArchiveWalkLabel, kind: ArchiveWalkContainer, uid: Int?, elements: [PropertyListValue], depth: Int, stack: inout [Work], sink: inout Sink) {
        sink.beginContainer(label, kind: kind, uid: uid, depth: depth, isEmpty: elements.isEmpty)
        stack.append(.endContainer(kind, depth: depth, isEmpty: elements.isEmpty))
        var position = elements.count
        while position > 0 {
            position -= 1
            stack.append(.value(.index(position), elements[position], depth: depth + 1))
        }
    }

    private func pushDictionary<Sink: ArchiveWalkSink>(_ label: ArchiveWalkLabel, uid: Int?, dictionary: PropertyListDictionary, depth: Int, stack: inout [Work], sink: inout Sink) {
        sink.beginContainer(label, kind: .dictionary, uid: uid, depth: depth, isEmpty: dictionary.isEmpty)
        stack.append(.endContainer(.dictionary, depth: depth, isEmpty: dictionary.isEmpty))
        for entry in dictionary.entries.reversed() {
            stack.append(.value(.key(entry.key), entry.value, depth: depth + 1))
        }
    }

    private func visitObject<Sink: ArchiveWalkSink>(_ uid: PropertyListUID, label: ArchiveWalkLabel, depth: Int, expanded: inout [Bool], stack: inout [Work], sink: inout Sink) {
        guard uid.value < UInt64(graph.objects.count) else {
            // Validated graphs never get here; a marker keeps the walk total anyway.
            sink.scalar(label, .uid(uid.value), uid: nil, depth: depth)
            return
        }
        let index = Int(uid.value)
        switch graph.objects[index] {
        case .null:
            sink.scalar(label, .null, uid: nil, depth: depth)
        case .string(let string):
            if Self.printsInline(string) {
                sink.scalar(label, .string(string), uid: nil, depth: depth)
            } else if expanded[index] {
                sink.reference(label, uid: index, summary: "string", depth: depth)
            } else {
                expanded[index] = true
                sink.scalar(label, .string(string), uid: index, depth: depth)
            }
        case .data(let bytes):
            if bytes.count <= Self.inlineDataLimit {
                sink.scalar(label, .data(bytes), uid: nil, depth: depth)
            } else if expanded[index] {
                sink.reference(label, uid: index, summary: "data", depth: depth)
            } else {
                expanded[index] = true
                sink.scalar(label, .data(bytes), uid: index, depth: depth)
            }
        case .integer(let integer): sink.scalar(label, .integer(integer), uid: nil, depth: depth)
        case .real(let real): sink.scalar(label, .real(real), uid: nil, depth: depth)
        case .bool(let flag): sink.scalar(label, .bool(flag), uid: nil, depth: depth)
        case .date(let date): sink.scalar(label, .date(date), uid: nil, depth: depth)
        case .classDescriptor(let descriptor):
            sink.reference(label, uid: index, summary: "class \(descriptor.name)", depth: depth)
        case .instance(let instance):
            let className = graph.className(of: uid) ?? "?"
            if expanded[index] {
                sink.reference(label, uid: index, summary: className, depth: depth)
                return
            }
            var note: String?
            if let interpreter, let rendering = interpreter.rendering(of: index, className: className, fields: instance.storage) {
                switch rendering {
                case .scalar(let value):
                    // Short values wherever referenced, as plain ones are; long ones once.
                    let short: Bool
                    switch value {
                    case .string(let string): short = Self.printsInline(string)
                    case .data(let bytes): short = bytes.count <= Self.inlineDataLimit
                    default: short = true
                    }
                    if !short { expanded[index] = true }
                    sink.scalar(label, value, uid: short ? nil : index, depth: depth)
                    return
                case .text(let kind, let text):
                    let short = Self.printsInline(text)
                    if !short { expanded[index] = true }
                    sink.foundationText(label, kind: kind, text: text, uid: short ? nil : index, depth: depth)
                    return
                case .list(let kind, let elements):
                    expanded[index] = true
                    sink.beginFoundationContainer(label, kind: kind, uid: index, className: className, depth: depth, isEmpty: elements.isEmpty)
                    stack.append(.endContainer(kind, depth: depth, isEmpty: elements.isEmpty))
                    for (position, element) in elements.enumerated().reversed() {
                        stack.append(.value(.index(position), element, depth: depth + 1))
                    }
                    return
                case .dictionary(let entries):
                    expanded[index] = true
                    sink.beginFoundationContainer(label, kind: .dictionary, uid: index, className: className, depth: depth, isEmpty: entries.isEmpty)
                    stack.append(.endContainer(.dictionary, depth: depth, isEmpty: entries.isEmpty))
                    for entry in entries.reversed() {
                        stack.append(.value(.key(entry.key), entry.value, depth: depth + 1))
                    }
                    return
                case .malformed(let why):
                    note = why
                }
            }
            expanded[index] = true
            var fields: [PropertyListDictionary.Entry] = []
            fields.reserveCapacity(instance.storage.count)
            for entry in instance.storage.entries where !entry.key.isExactlyEqual(to: ArchiveKeys.classKey) {
                fields.append(entry)
            }
            if let note {
                sink.beginNotedInstance(label, uid: index, className: className, classUID: Int(instance.classUID.value), depth: depth, isEmpty: fields.isEmpty, note: note)
            } else {
                sink.beginInstance(label, uid: index, className: className, classUID: Int(instance.classUID.value), depth: depth, isEmpty: fields.isEmpty)
            }
            stack.append(.endInstance(depth: depth, isEmpty: fields.isEmpty))
            for entry in fields.reversed() {
                stack.append(.value(.key(entry.key), entry.value, depth: depth + 1))
            }
        case .other(let value):
            if expanded[index] {
                sink.reference(label, uid: index, summary: value.kindName, depth: depth)
                return
            }
            expanded[index] = true
            switch value {
            case .array(let elements):
                pushContainer(label, kind: .array, uid: index, elements: elements, depth: depth, stack: &stack, sink: &sink)
            case .set(let elements):
                pushContainer(label, kind: .set, uid: index, elements: elements, depth: depth, stack: &stack, sink: &sink)
            case .dictionary(let dictionary):
                pushDictionary(label, uid: index, dictionary: dictionary, depth: depth, stack: &stack, sink: &sink)
            case .uid(let target):
                sink.scalar(label, .uid(target.value), uid: index, depth: depth)
            default:
                stack.append(.value(label, value, depth: depth))
            }
        }
    }
}
